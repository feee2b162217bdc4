/* Run report: the progress line, the final summary line, summary.json, reach.txt and coverage.txt. */
#ifndef METIS_REPORT_H
#define METIS_REPORT_H

#include "engine/runstate/engine_types.h"
#include "engine/vocab/exits.h"

void report_write(struct engine *e, enum metis_exit st, const char *reason);
const char *status_name(enum metis_exit st);

#endif
