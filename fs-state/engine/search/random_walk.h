/* search = random, the measuring stick: which operation a random walk takes next and how long a walk lasts. */
#ifndef METIS_RANDOM_WALK_H
#define METIS_RANDOM_WALK_H

#include <stdint.h>
#include "engine/config/config.h"
#include "engine/input/input.h"

struct walk {
    struct rng r;               /* its own generator: the argument draws stay those of dfs */
    int total;                  /* sum of the [ops] weights */
    int cum[OP_COUNT];          /* cum[op]: weights of the operations up to and with op */
    uint64_t max_len;           /* [run] walk_max */
    uint64_t left;              /* operations this walk still takes */
    uint64_t walks;             /* walks begun */
};

/* Seeds the walk from the run's seed; the weights are the model's branches per operation. */
void walk_init(struct walk *w, const struct metis_config *cfg);
/* An operation drawn by weight, as a random pick among the model's branches would be. */
int walk_next_op(struct walk *w);
/* A walk's length, log-uniform in 1 .. max_len: as many short walks (near the initial state)
 * as long ones, whatever the bound. */
uint64_t walk_length(struct walk *w);

#endif
