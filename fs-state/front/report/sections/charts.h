/* report.html's charts of summary.json: reach as stacked bars, coverage as paired bars. */
#ifndef METIS_REPORT_CHARTS_H
#define METIS_REPORT_CHARTS_H

#include "front/json/json_reader.h"
#include <stdio.h>

void reach_section(FILE *f, json_object *summary);
void coverage_section(FILE *f, json_object *summary);

#endif
