/* The engine's run state inside pan: the file systems, the input driver, the search path and the counters the report shows (the types the engine's rooms share). */
#ifndef METIS_ENGINE_TYPES_H
#define METIS_ENGINE_TYPES_H

#include <stdint.h>
#include "engine/classify/classes.h"
#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/classify/known_file.h"
#include "engine/ops/ops.h"
#include "engine/records/reach.h"
#include "engine/records/sampler.h"
#include "engine/runstate/search_types.h"
#include "engine/step/step.h"
#include "engine/concurrent/together_counts.h"
#include "engine/input/view.h"

struct tree_delta;

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
    struct cache_stale stale[METIS_MAX_FS];   /* cache staleness per fs (cache_recheck.h) */
};

/* Whether class k of e's table is in the known file, by its own record or its group's (inline: run_outputs.c and engine.c both
 * ask). */
static inline int engine_class_known(const struct engine *e, int k)
{
    const struct dclass *c = &e->classes.v[k];
    return e->have_known && known_match(&e->known, c->signature, c->group) >= 0;
}

#endif
