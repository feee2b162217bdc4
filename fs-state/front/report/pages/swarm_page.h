/* The report.html of a swarm directory: totals, one row per VT, merged discrepancies. */
#ifndef METIS_REPORT_SWARM_PAGE_H
#define METIS_REPORT_SWARM_PAGE_H

#include "front/json/json_reader.h"
#include <stdio.h>

/* dir is the swarm directory, absolute; summary its summary.json. */
void swarm_page(FILE *f, const char *dir, json_object *summary);

#endif
