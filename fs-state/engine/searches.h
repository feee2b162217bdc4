/* Several searches in one run: when SPIN has explored everything with budget left, the run goes on with the next derived input seed. */
#ifndef METIS_SEARCHES_H
#define METIS_SEARCHES_H

#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "exits.h"
#include "input.h"
#include "reach.h"
#include "together_counts.h"

/* pan's exit status when its search completed and the front end is to start the next one is
 * exits.h's METIS_EXIT_RESTART. */
/* What one search hands the next, in OUT/work/ (written by every search as it ends). */
#define SEARCH_CARRY_FILE "searches.carry"

/* The totals of the searches so far, added into the next one's report. */
struct search_carry {
    uint64_t magic;
    int searches;                /* searches these totals cover */
    double t_first;              /* now_seconds() when the first search started */
    uint64_t ops, restores, discrepancies;
    double stored, matched;
    long max_depth;
    struct reach reach;
    struct coverage cov;
    struct together_counts together;
    double t[METIS_MAX_FS][4];   /* each fs's prepare, operation, abstract, finish seconds */
    int fail_streak;             /* the search ended on a target failure: how many in a row */
    char fail_signature[160];    /* ... of this class, with no operation done in between */
};

/* A target that fails this many times in a row, the same class each time and no operation done
 * in between, ends the run (exit 1): set up afresh, it fails again at once. */
#define SEARCH_FAIL_LIMIT 3

struct search_run {
    int index;                   /* this search, from 1 */
    uint64_t base_seed;          /* the run's seed: search 1's; later ones are derived */
    int completed;               /* ended because SPIN had explored every state */
    int restarting;              /* ... and another search follows (no summary line yet) */
    struct search_carry prior;   /* totals of the searches before this one (zero for the first) */
    int fail_streak;             /* this search ended on a target failure: prior's streak + 1 */
    char fail_signature[160];
    uint64_t init_draws, init_ok;            /* operations drawn at the initial state */
    uint64_t init_err[ERRNO_MAX];            /* ... their errnos on the reference */
};

struct engine;

/* The input seed of search index (1: the run's seed itself). */
uint64_t search_seed(uint64_t base, int index);
/* At engine_init: which search this is (METIS_SEARCH), its seed, the previous searches'
 * totals and the budget they left. -1 with e->err on a missing or foreign carry file. */
int search_resume(struct engine *e);
/* When the search starts (after the set-up): the time budget left to it. */
void search_begin(struct engine *e);
/* Counts an operation's reference outcome when it started from the initial state. */
void search_note(struct search_run *s, uint64_t from_sid, int err);
/* SPIN has explored everything: 1 when budget and max_searches allow another search. */
int search_should_restart(const struct engine *e, double now);
/* The one-line warning of a first search that ended early, naming its likely cause. */
void search_warn(const struct engine *e, FILE *f);
/* A target failed (its class's signature) after ops_done operations of this search: 1 when
 * that makes SEARCH_FAIL_LIMIT failures of the class in a row without an operation between. */
int search_note_failure(struct search_run *s, const char *signature, uint64_t ops_done);
/* At engine_close, before the report: the previous searches' totals added in. */
void search_fold(struct engine *e);
/* ... after the report: the totals for the next search. -1 on a write error. */
int search_save(const struct engine *e);

#endif
