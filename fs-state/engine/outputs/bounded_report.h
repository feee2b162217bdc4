/* What a bounded search verified, for people and tools: its verdict line and summary.json's "complete" and "bounded". */
#ifndef METIS_BOUNDED_REPORT_H
#define METIS_BOUNDED_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "engine/runstate/engine_types.h"

/* 1 when every state within the run's depth was checked (or none lies deeper). */
int bounded_complete(const struct bounded_progress *p);
/* "verified: N states, M transitions, depth <= D, BOUNDS: no discrepancy", "not complete:
 * depth k of D completed, N states, F on the frontier" or "not verified: ...". */
void bounded_verdict(const struct engine *e, char *buf, size_t len);
/* ,"complete":BOOL,"bounded":{...} (only for search = bounded). */
void bounded_write_json(const struct engine *e, FILE *f);

#endif
