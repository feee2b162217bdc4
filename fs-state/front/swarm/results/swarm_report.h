/* The swarm's merged report: per-VT table, totals and the list of discrepancies, and bin/metis's hook once it is written. */
#ifndef METIS_SWARM_REPORT_H
#define METIS_SWARM_REPORT_H

#include "front/swarm/shared/swarm_types.h"

int swarm_report(struct swarm *s);
/* Called with the output directory once the summary is written; bin/metis sets it (report.html). */
extern void (*swarm_report_written)(const char *out);

#endif
