/* search = bounded: every transition tried once from every state within this search's depth, the states it met counted, and each search one depth deeper than the last. */
#ifndef METIS_BOUNDED_H
#define METIS_BOUNDED_H

#include <stddef.h>
#include "engine/ops/transitions.h"
#include "engine/runstate/engine_types.h"
#include "engine/search/state_set.h"
#include "lib/system/claims.h"
#include "tree/canon.h"

/* Every distinct state's digests, raw: what a swarm of VTs splitting one space unites. */
#define BOUNDED_STATES_FILE "bounded-states.bin"

struct bounded {
    struct transitions tt;
    struct state_set seen;
    long base;                   /* pan's depth at the first step; -1 before it */
    long stride;                 /* pan's steps per operation: 1, or 3 for a grouped table */
    struct bounded_progress *p;  /* the engine's (e->search.bounded), carried between searches */
    struct tree_canon_kinds kinds;   /* with p->symmetric: the pool's file names, its directories' */
    struct claims *claims;       /* METIS_CLAIMS: the claim table of this host's VTs; NULL: none */
    size_t klen;                 /* a state's key's length: the digests SPIN matches on */
    uint64_t *visit;             /* per op depth: the visit (its sid) whose claim was decided */
    unsigned char *deferred;     /* ... and whether it deferred to another VT's claim */
};

/* The transition table and this search's depth: one deeper than the last completed one.
 * -1 with e->err. */
int bounded_init(struct bounded *b, struct engine *e);
/* 1 when transition t from pan's depth would make a state past this search's depth, ends a
 * pair of a state one operation deep and a second transition outside this swarm VT's share,
 * or leaves a state another VT claims with at least the budget left here (from: the key of
 * the state it leaves, sid: that visit of it): the step does nothing and SPIN, finding its
 * state stored, goes back. */
int bounded_cut(struct bounded *b, long t, long depth, const unsigned char *from, uint64_t sid);
/* The state a step from pan's depth made (or the initial state, depth 0 of pan's first step)
 * is one the search met. -1: no memory. */
int bounded_note(struct bounded *b, const unsigned char *abs, long depth);
int bounded_note_initial(struct bounded *b, const unsigned char *abs);
/* SPIN explored everything within this search's depth: what it checked, as the run's progress. */
void bounded_search_done(struct bounded *b, uint64_t ops);
/* The states met, in BOUNDED_STATES_FILE under dir (a swarm unites its VTs'). -1: errno. */
int bounded_write_states(const struct bounded *b, const char *dir);
/* 1 when the verdict needs a deeper search (the run's depth not reached, states left deeper). */
int bounded_needs_deeper(const struct bounded *b);

#endif
