/* Dives of the SPIN search: how long SPIN goes down before the engine sends it back up, and how far up. */
#ifndef METIS_DIVE_H
#define METIS_DIVE_H

#include <stdint.h>
#include "engine/input/input.h"

struct dive {
    struct rng r;               /* its own generator: the argument draws stay as they are */
    long max_len;               /* [run] dive: a dive's operations at most; 0 = no dives */
    long end;                   /* a step at this depth or deeper ends the dive */
    long back_to;               /* > 0: SPIN is on its way back up to this depth */
    uint64_t dives, cut;        /* dives begun; branches cut on the way up */
};

/* Seeds the dives from the run's seed; max_len 0 turns them off. */
void dive_init(struct dive *d, uint64_t seed, long max_len);
/* Whether the step SPIN takes at depth must be cut: 1 while SPIN climbs back after a dive
 * ended (the step then does nothing, so SPIN finds its state already stored and goes on up),
 * 0 to take it. A dive ends once it has gone its drawn length below where it began; the
 * climb goes back to a drawn depth above. */
int dive_cut(struct dive *d, long depth);

#endif
