/* The engine's run state inside pan: the file systems, the input driver, the search path and the counters the report shows. */
#ifndef METIS_ENGINE_H
#define METIS_ENGINE_H

#include <stdint.h>
#include "classes.h"
#include "config.h"
#include "exits.h"   /* how a run ends: enum metis_exit */
#include "input.h"
#include "known_delta.h"
#include "known_file.h"
#include "ops.h"
#include "reach.h"
#include "sampler.h"
#include "searches.h"
#include "step.h"
#include "together_counts.h"
#include "view.h"

struct path_entry {
    uint64_t sid;                /* concrete state id */
    uint64_t seq;                /* the operation that made it (0: the initial state) */
    struct tree_delta *delta;    /* per fs: its attribute-only differences from the reference
                                    in this state (known_delta.h); NULL: none judged */
};

struct engine {
    struct metis_config cfg;
    struct fsgroup g;            /* the file systems and the last step's outcomes */
    struct input in;
    struct op_args args;
    struct reach reach;
    struct path_entry *path;
    size_t depth, path_cap;
    uint64_t cur_sid, live_sid, next_sid;
    /* The state a step made on which a fs was mounted afresh (its kept directories,
     * "fresh" in its history) and that step: a trace of what the fs ran since starts there. */
    uint64_t fresh_sid, fresh_seq;
    int fresh_pinned;            /* SPIN went back past it: discarded when a newer one comes */
    uint64_t ops, restores, discrepancies;   /* discrepancies: every hit of every class */
    struct dclass_table classes;
    double stored, matched;
    long max_depth_seen;
    double t_start, last_progress;
    struct report_sampler sampler;   /* samples.csv: the counters once a second */
    char out_dir[1024], run_id[64];
    char err[1400];              /* why engine_init failed */
    int finished;
    struct search_run search;    /* which search of the run this is, and the ones before */
    struct view_stack views;     /* the reference's tree at each state of the search path */
    struct known_list known;     /* classes of the known file (METIS_KNOWN); n 0 without one */
    int have_known;
    int step_unknown;            /* the last discrepancy's classes not in the known file */
    struct together_counts together;   /* the concurrent steps ([run] together) */
};

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
/* Whether class k of e's table is in the known file, by its own record or its group's (inline: run_outputs.c and engine.c both
 * ask, and engine.c calls run_outputs.c). */
static inline int engine_class_known(const struct engine *e, int k)
{
    const struct dclass *c = &e->classes.v[k];
    return e->have_known && known_match(&e->known, c->signature, c->group) >= 0;
}
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
