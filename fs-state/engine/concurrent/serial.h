/* The serial-order check of a concurrent step: the reference makes the calls in every serial order from the step's state, and an outcome is held against each order's. */
#ifndef METIS_SERIAL_H
#define METIS_SERIAL_H

#include <stdint.h>
#include "engine/step/step.h"
#include "engine/ops/together.h"

/* Orders of the calls as wholes: TOGETHER_MAX! = 24; with each call's resolution put at any
 * point before its act: 24 × 24 = 576. */
#define SERIAL_MAX_ORDERS 576
#define SERIAL_SET_WORDS ((SERIAL_MAX_ORDERS + 63) / 64)

/* What the reference did in one order: its atoms (together.h), every call's outcome and the
 * state after. */
struct serial_order {
    unsigned char atom[TOGETHER_MAX_ATOMS];
    unsigned char acts[TOGETHER_MAX];       /* the calls in the order they act */
    int calls;                  /* the index of that order of acts among the whole-call orders */
    struct op_result res[TOGETHER_MAX];     /* by call number */
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
};

/* Orders as a set: bit o for order o of a table. */
struct serial_set {
    uint64_t w[SERIAL_SET_WORDS];
};

/* The orders of one set of calls on the reference: first the k! orders of whole calls, in
 * lexicographic order (order 0: as drawn); then, once a try needs them (serial_run_early),
 * the orders in which some call resolves its names before others act and acts after them, as
 * the kernel lets a call do (ops.h, struct op_hold). */
struct serial_table {
    int k, n;                   /* calls; orders run so far */
    int whole;                  /* how many of them are orders of whole calls (k!) */
    int early_run;              /* the orders with early resolutions are among them */
    int last;                   /* the order whose end state the reference holds now */
    double seconds;             /* spent running them */
    struct serial_order order[SERIAL_MAX_ORDERS];
};

/* Error convention: 0 or -1 with the message in g->err (the step core's). */

/* Runs the set on the reference (fs 0 alone) in every order of whole calls, each from the
 * state the step starts from: state from, or (STEP_NO_STATE) the one the fs holds, which the
 * first order's pass saves first when it is not saved yet. parent is that state's id, the
 * later orders' restore. *ref_history: the length of the reference's history (backend.h) after
 * the first order, whose restore alone is the way to the step's state. */
int serial_run_whole(struct fsgroup *g, const struct together_set *set, uint64_t from,
                     uint64_t parent, struct serial_table *t, size_t *ref_history);
/* Adds and runs the orders with early resolutions (once; 0 when they are there already). */
int serial_run_early(struct fsgroup *g, const struct together_set *set, uint64_t parent,
                     struct serial_table *t);
/* How many orders give fs's every call's outcome (res, by call number; errnos the fs may give
 * for the reference's, errno_equiv, are equal) and its end state; which ones into *m. */
int serial_matches(const struct serial_table *t, const struct fs_config *fs,
                   const struct op_result *res, const unsigned char *digest, int dlen,
                   struct serial_set *m);
/* How many calls' outcomes (res, by call number) differ from order o's, errno_equiv allowed. */
int serial_calls_differ(const struct serial_table *t, int o, const struct fs_config *fs,
                        const struct op_result *res);
/* The order nearest to fs's outcome: the fewest calls whose outcome differs, then a state that
 * differs counting as one more; the first of equals. */
int serial_closest(const struct serial_table *t, const struct fs_config *fs,
                   const struct op_result *res, const unsigned char *digest, int dlen);
/* Makes the reference hold order o's end state (making it again from parent unless it is the
 * last one run) and saves it as to. */
int serial_keep(struct fsgroup *g, const struct together_set *set, struct serial_table *t,
                int o, uint64_t parent, uint64_t to);
/* The orders of whole calls alone, not run (a replay's table, to name them). */
void serial_whole_orders(struct serial_table *t, int k);
/* Every order, those with early resolutions too, not run (a reproducer's table). */
void serial_all_orders(struct serial_table *t, int k);

/* Sets as sets: empty, one order in, the first order in (-1 when none), intersection. */
void serial_set_clear(struct serial_set *m);
void serial_set_add(struct serial_set *m, int o);
int serial_set_first(const struct serial_set *m);
void serial_set_and(struct serial_set *m, const struct serial_set *other);

#endif
