/* The serial-order check of a concurrent step: the reference runs the calls in every order from the step's state, and an outcome is held against each order's. */
#ifndef METIS_SERIAL_H
#define METIS_SERIAL_H

#include <stdint.h>
#include "step.h"
#include "together.h"

#define SERIAL_MAX_ORDERS 24     /* TOGETHER_MAX! */

/* What the reference did with the calls made one after another in one order. */
struct serial_order {
    unsigned char call[TOGETHER_MAX];       /* call numbers, call[0] made first */
    struct op_result res[TOGETHER_MAX];     /* by call number */
    unsigned char digest[TREE_MAX_DIGEST];  /* the abstract state after the last */
    int dlen;
};

/* Every serial order of a set on the reference, in lexicographic order (order 0: as drawn). */
struct serial_table {
    int k, n;                   /* calls; orders (k!) */
    struct serial_order order[SERIAL_MAX_ORDERS];
    int last;                   /* the order whose end state the reference holds now */
    double seconds;             /* spent running them */
};

/* Error convention: 0 or -1 with the message in g->err (the step core's). */

/* Runs set on the reference (fs 0 alone) in every serial order, each from the state the step
 * starts from: state from, or (STEP_NO_STATE) the one the fs holds, which the first order's
 * pass saves first when it is not saved yet. parent is that state's id, the later orders'
 * restore. again: the reference had a pass of this step already. */
int serial_run_all(struct fsgroup *g, const struct together_set *set, uint64_t from,
                   uint64_t parent, int again, struct serial_table *t);
/* The orders (bit o for order o) whose every call's outcome and end state are fs's: res by
 * call number; errnos fs may give for the reference's count as equal (errno_equiv). */
uint32_t serial_matches(const struct serial_table *t, const struct fs_config *fs,
                        const struct op_result *res, const unsigned char *digest, int dlen);
/* The order nearest to fs's outcome: the fewest calls whose outcome differs, then a state that
 * differs counting as one more; the first of equals. */
int serial_closest(const struct serial_table *t, const struct fs_config *fs,
                   const struct op_result *res, const unsigned char *digest, int dlen);
/* Makes the reference hold order o's end state (running it again from parent unless it is the
 * last one run) and saves it as to; out[0] then is that order's (its res: the first call's). */
int serial_keep(struct fsgroup *g, const struct together_set *set, struct serial_table *t,
                int o, uint64_t parent, uint64_t to);
/* "2,1": the order's call numbers from 1, first made first. */
void serial_order_text(const struct serial_table *t, int o, char *buf, size_t len);
/* The order the text names, or -1. */
int serial_order_parse(const struct serial_table *t, const char *text);
/* The lines of op_format text of the set's calls in order o, for replaying backends. */
int serial_history(const struct together_set *set, const struct serial_table *t, int o,
                   char *buf, size_t len);
/* Fills t's orders (calls and count) without running them: k calls, k! orders. */
void serial_orders(struct serial_table *t, int k);

#endif
