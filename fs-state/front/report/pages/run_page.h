/* The report.html of one run directory: header, plots, reach, coverage, discrepancies. */
#ifndef METIS_REPORT_RUN_PAGE_H
#define METIS_REPORT_RUN_PAGE_H

#include "front/json/json_reader.h"
#include <stdio.h>

/* dir is the run directory, absolute; summary its summary.json (NULL if it has none). */
void run_page(FILE *f, const char *dir, json_object *summary);

#endif
