/* The distinct abstract states a bounded search met, each with the fewest operations it was met after: what its verdict counts. */
#ifndef METIS_STATE_SET_H
#define METIS_STATE_SET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct state_set {
    unsigned char *keys;        /* cap keys of klen bytes */
    long *depth;                /* each key's least depth; -1: an empty slot */
    size_t n, cap, klen;
};

/* An empty set of keys of klen bytes (a state's digests, one per fs). -1: no memory. */
int state_set_init(struct state_set *s, size_t klen);
void state_set_free(struct state_set *s);
/* Notes key met depth operations from the initial state: 1 new, 0 met before (the lesser
 * depth kept), -1 no memory. */
int state_set_note(struct state_set *s, const unsigned char *key, long depth);
/* How many states were first met exactly depth operations away. */
uint64_t state_set_count_at(const struct state_set *s, long depth);
/* Writes every key, klen bytes each, in no order, to path (replaced whole). -1: errno. */
int state_set_write(const struct state_set *s, const char *path);

#endif
