/* One discrepancy in report.html: outcomes per file system and the trees side by side. */
#ifndef METIS_REPORT_DISC_VIEW_H
#define METIS_REPORT_DISC_VIEW_H

#include "front/report/runfiles/disc.h"
#include <stdio.h>

#define DISC_VIEW_MAX_ROWS 400   /* per tree table; the detail file has every entry */

void disc_view(FILE *f, const struct disc_file *d);

#endif
