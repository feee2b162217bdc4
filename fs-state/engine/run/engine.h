/* The engine's run: set-up and tear-down, the search path, and the record of each discrepancy (its state: engine_types.h). */
#ifndef METIS_ENGINE_H
#define METIS_ENGINE_H

#include <stdint.h>
#include "engine/runstate/engine_types.h"
#include "engine/vocab/exits.h"   /* how a run ends: enum metis_exit */

/* Error convention: 0 or -1 with e->err (engine_init) or e->g.err (the steps); nothing below
 * the pan front end (driver.c) exits. */

/* Reads the configuration named by the environment, opens the log and the backends. */
int engine_init(struct engine *e);
/* Sets the file systems up, equalizes them and makes the initial state (state 0). */
int engine_start(struct engine *e);
/* Writes the report and tears every file system down (once; later calls do nothing). */
void engine_close(struct engine *e, enum metis_exit st, const char *reason);
/* Logs a discrepancy of the last step (a: its operation, NULL for the initial state) and counts
 * it as a hit of its class (classes.h); the first example of a new class also gets a detail file
 * with both trees and the saved states of the search path. */
void engine_report_discrepancy(struct engine *e, const struct op_args *a);
/* A target (fs i) that died, hung or could not bring a state back (k) during the step from
 * state (a: the operation in progress, NULL at the initial state): a hit of its own class
 * (classes_target_failure), logged (`target` line), told on stderr, and for a new class a
 * detail file naming the state, the operation and what failed. Counts as a discrepancy. */
void engine_report_target_failure(struct engine *e, int i, enum target_failure k,
                                  const struct op_args *a, uint64_t state);
/* A detail file's parts: the saved states of the search path's last ring states (exported
 * for the replayer, under dir), and fs i's tree as it is now (mounted for the purpose). */
void engine_export_ring(struct engine *e, FILE *f, const char *dir);
void engine_write_listing(struct engine *e, FILE *f, int i);
/* Logs what the last step's restores left in the backends' history (backend.h): their
 * "call" and "fresh" records, numbered seq (the step's operation; 0 at set-up). */
void engine_log_history(struct engine *e, uint64_t seq);
/* Search path: push the state a step made, or unwind to a state SPIN went back to. */
int engine_path_push(struct engine *e, uint64_t sid, uint64_t seq);
int engine_path_unwind_to(struct engine *e, uint64_t sid);
void progress_tick(struct engine *e, double now);

#endif
