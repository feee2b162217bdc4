/* The engine's concurrent steps: each one run on the group and recorded (log, reach, counts per operation pair), and one no serial order explains reported as a class of its own. */
#ifndef METIS_TOGETHER_RUN_H
#define METIS_TOGETHER_RUN_H

#include <stdint.h>
#include <stdio.h>
#include "engine/concurrent/concurrent.h"
#include "engine/ops/together.h"
#include "engine/concurrent/together_counts.h"

struct engine;

/* The concurrent step set from state from (STEP_NO_STATE: the live one) to state to, recorded:
 * reach counts of every call on every fs, the log's records, the counts. -1 when the step
 * failed (e->g.err; the driver tells a target's failure from Metis's own). */
int together_run(struct engine *e, const struct together_set *set, uint64_t from, uint64_t to,
                 long depth, struct concurrent_verdict *v);
/* A step no serial order explains on some fs: a discrepancy, a hit of its class ("together
 * create_file+mkdir race not serializable"), and for a new class the detail file with each
 * order the reference ran, the fs's outcomes and both trees (the reference holds the order
 * nearest the fs's try). */
void together_report(struct engine *e, const struct together_set *set,
                     const struct concurrent_verdict *v);
/* One line for `metis check`: what [run] together makes of the run; "" when off. */
void together_describe(const struct metis_config *cfg, char *buf, size_t len);

#endif
