/* Dives of the SPIN search: drawn lengths and drawn depths to climb back to, so that the search's operations spread over many paths from near the initial state instead of one ever deeper path. */
#include <math.h>
#include "engine/search/dive.h"

void dive_init(struct dive *d, uint64_t seed, long max_len)
{
    *d = (struct dive){ .max_len = max_len };
    rng_seed(&d->r, seed ^ 0xd1fe5eedc0ffeeull);
}

/* Log-uniform in 1 .. n: as many short dives as long ones. */
static long log_uniform(struct rng *r, long n)
{
    long x = (long)exp(rng_unit(r) * log((double)n + 1));
    return x < 1 ? 1 : x > n ? n : x;
}

/* Uniform over the ancestors: near, shallow and root-only climbs were measured and did no
 * better (README, "Search power"). */
static long climb_target(struct dive *d, long depth)
{
    return 1 + (long)rng_below(&d->r, (uint64_t)(depth - 1));
}

int dive_cut(struct dive *d, long depth)
{
    if (d->max_len <= 0)
        return 0;
    if (d->back_to && depth > d->back_to)
        return d->cut++, 1;
    if (d->back_to || !d->end) {
        d->back_to = 0;
        d->end = depth + log_uniform(&d->r, d->max_len);
        d->dives++;
        return 0;
    }
    if (depth < d->end || depth <= 1)
        return 0;
    d->back_to = climb_target(d, depth);
    return d->cut++, 1;
}
