/* The counts of a run's concurrent steps ([run] together): per operation pair, tries, passes and the serial orders met; reach.txt's section and summary.json's object. */
#ifndef METIS_TOGETHER_COUNTS_H
#define METIS_TOGETHER_COUNTS_H

#include <stdint.h>
#include <stdio.h>
#include "engine/concurrent/concurrent.h"
#include "engine/ops/together.h"

/* What concurrent steps with calls of operations a and b (a <= b) did. */
struct together_pair {
    uint64_t steps, tries, passes, failed;
    uint64_t met_a_first, met_b_first;   /* steps whose tries met an order making a's call
                                            first, and b's (of two calls of one operation:
                                            the one drawn first, and the other) */
};

/* The run's concurrent steps, counters only (searches.c adds them word by word). */
struct together_counts {
    uint64_t steps, tries, passes, failed, diverged;
    uint64_t orders_run;         /* serial orders the reference ran */
    uint64_t order_us;           /* ... in microseconds */
    struct together_pair pair[OP_COUNT][OP_COUNT];
};

/* Counts one concurrent step of set on nfs file systems, as v judged it. */
void together_count(struct together_counts *c, const struct together_set *set,
                    const struct concurrent_verdict *v, int nfs);
/* reach.txt's section and summary.json's "together" object (nothing without steps). */
void together_write_text(const struct together_counts *c, FILE *f);
void together_write_json(const struct together_counts *c, FILE *f);

#endif
