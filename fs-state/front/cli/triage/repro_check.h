/* A class's reproducer put to the test after the triage: once on the fs under test and on the reference, again when it does not bite, and why it may not. */
#ifndef METIS_REPRO_CHECK_H
#define METIS_REPRO_CHECK_H

#include "triage_types.h"
#include "front/cli/classes/summary_classes.h"
#include "front/json/json_reader.h"

#define REPRO_RUNS 5            /* runs on the target at most, the first one included */

/* Runs c's reproducer once on the fs under test and once on the reference before until; when
 * the target's run does not exit 1, runs it there again (REPRO_RUNS in all) as long as spare
 * seconds last. c->exit_target and c->exit_ref get the first runs' exits (-1: not run),
 * c->runs and c->bites how often it ran on the target and exited 1, and c->why why it may not
 * bite when it did not every time (summary: the run's summary.json). */
void repro_check(const struct triage *t, struct run_class *c, double until, double spare,
                 json_object *summary);

#endif
