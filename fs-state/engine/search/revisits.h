/* [run] revisits: how many times SPIN may expand one abstract state again, each time with new argument draws. */
#ifndef METIS_REVISITS_H
#define METIS_REVISITS_H

#include <stddef.h>
#include <stdint.h>

/* SPIN draws each operation once per state it reaches, and reaches the states near the initial
 * one once per search, where a random walk draws again at every restart: a state reached for
 * the k-th time (k <= budget) is made new to SPIN by a round number it matches on too. */
struct revisits {
    int budget;                 /* 0: every state is expanded once, as SPIN does */
    struct revisit_count *seen; /* uthash: times each abstract state was reached */
    uint64_t again;             /* expansions beyond the first */
};

void revisits_init(struct revisits *r, int budget);
/* The round of a state just reached (its abstract digests, len bytes): 0 the first time, then
 * 1, 2 ... up to the budget, where it stays (SPIN then matches it). */
uint32_t revisits_round(struct revisits *r, const unsigned char *abs, size_t len);
void revisits_free(struct revisits *r);

#endif
