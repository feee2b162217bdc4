/* The types of several searches in one run: the totals one search hands the next, and the search's own record (a member of struct engine). */
#ifndef METIS_SEARCH_TYPES_H
#define METIS_SEARCH_TYPES_H

#include <stdint.h>
#include "engine/config/config.h"
#include "engine/vocab/exits.h"
#include "engine/input/input.h"
#include "engine/records/reach.h"
#include "engine/concurrent/together_counts.h"

/* pan's exit status when its search completed and the front end is to start the next one is
 * exits.h's METIS_EXIT_RESTART. */
/* What one search hands the next, in OUT/work/ (written by every search as it ends). */
#define SEARCH_CARRY_FILE "searches.carry"

/* search = bounded: how far the run has checked every state (search/bounded.c). Each search
 * of the run is one depth, the next one deeper, until max_depth. */
struct bounded_progress {
    int on;
    long limit;                  /* max_depth: the depth every state is to be checked to */
    long depth;                  /* this search's depth: at most this many operations */
    long done;                   /* the deepest depth whose search completed (0: none) */
    uint64_t states;             /* that search's distinct states (the initial one among them) */
    uint64_t frontier;           /* ... first met at its depth */
    uint64_t ops;                /* ... and its operations */
    int closed;                  /* a completed search met no state at its own depth and deferred
                                    none: no state lies deeper, every reachable one was checked */
    uint64_t per_state;          /* transitions that leave each state */
    int share, shares;           /* a swarm VT's share of the pairs of first and second
                                    transitions (search/bounded.c; shares 1: all of them) */
    int claims;                  /* a claim table shared with this host's other VTs is in use */
    uint64_t deferred;           /* this search's states cut because another VT claimed them
                                    (a state met again nearer the initial one counts again) */
    char bounds[512];            /* the pool and partitions (transitions_bounds) */
    int symmetric;               /* [run] symmetry = names: states counted up to renaming */
};

/* One fs's state differences that went away when read again past the kernel's attribute
 * cache (cache_recheck.h): counted, never classes. */
struct cache_stale {
    uint64_t count;
    uint64_t first_op;           /* the operation of the first one */
    char first[200];             /* "mode of /d0/f1 after chmod" */
};

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
    struct cache_stale stale[METIS_MAX_FS];
    double t[METIS_MAX_FS][4];   /* each fs's prepare, operation, abstract, finish seconds */
    int history_length;          /* searches so far ended at HISTORY_SEARCH_OPS (driver.c) */
    int fail_streak;             /* the search ended on a target failure: how many in a row */
    char fail_signature[160];    /* ... of this class, with no operation done in between */
    struct bounded_progress bounded;
    unsigned char lingering_known[METIS_MAX_FS];   /* struct backend's, learnt so far */
    uint64_t lingering_killed[METIS_MAX_FS];
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
    struct bounded_progress bounded;         /* search = bounded only */
    double t_began, setup_s;                 /* when this search began, after its set-up of
                                                setup_s seconds */
    int history_length;                      /* it ends at HISTORY_SEARCH_OPS (driver.c) */
};

#endif
