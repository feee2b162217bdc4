/* Search shapes of a swarm's VTs: the shape table, each VT's shape drawn from the swarm seed, and a shape set in a run's config. */
#include "search_shape.h"
#include "engine/input/input.h"
#include <stdio.h>

/* One of each kind of search the engine has, so that a swarm of 8 VTs or more is not bet on
 * one: SPIN's search as the config has it, dives, shallower bounds, short searches from fresh
 * file systems, and the random walk (one VT in SHAPE_COUNT). */
static const struct search_shape shapes[SHAPE_COUNT] = {
    [SHAPE_PLAIN] = { "plain", -1, -1, 0, -1 },
    [SHAPE_DIVE30] = { "dive30", SEARCH_DFS, 30, 0, -1 },
    [SHAPE_DIVE300] = { "dive300", SEARCH_DFS, 300, 0, -1 },
    [SHAPE_DEPTH200] = { "depth200", SEARCH_DFS, -1, 200, -1 },
    [SHAPE_DEPTH1000] = { "depth1000", SEARCH_DFS, -1, 1000, -1 },
    [SHAPE_OPS1000] = { "ops1000", SEARCH_DFS, -1, 0, 1000 },
    [SHAPE_OPS10000] = { "ops10000", SEARCH_DFS, -1, 0, 10000 },
    [SHAPE_RANDOM] = { "random", SEARCH_RANDOM, -1, 0, -1 },
};

/* VT i takes slot i mod SHAPE_COUNT; slot 0 is the plain search, the other shapes fill the
 * other slots in an order drawn from the swarm seed, so that two swarms pair shapes with
 * other SPIN options. */
enum search_shape_id search_shape_of(uint64_t swarm_seed, int vt)
{
    int slot[SHAPE_COUNT];
    struct rng r;
    for (int k = 0; k < SHAPE_COUNT; k++)
        slot[k] = k;
    rng_seed(&r, swarm_seed ^ 0x5ea4c5a9e5eedull);
    for (int k = SHAPE_COUNT - 1; k > 1; k--) {
        int j = 1 + (int)rng_below(&r, (uint64_t)k);
        int t = slot[k];
        slot[k] = slot[j];
        slot[j] = t;
    }
    return (enum search_shape_id)slot[(vt < 0 ? 0 : vt) % SHAPE_COUNT];
}

const struct search_shape *search_shape_get(int id)
{
    return &shapes[id >= 0 && id < SHAPE_COUNT ? id : SHAPE_PLAIN];
}

void search_shape_apply(int id, struct run_config *run)
{
    const struct search_shape *s = search_shape_get(id);
    if (s->kind >= 0)
        snprintf(run->search, sizeof run->search, "%s",
                 s->kind == SEARCH_RANDOM ? "random" : "dfs");
    if (s->dive >= 0)
        run->dive = s->dive;
    if (s->depth > 0 && run->max_depth > s->depth)
        run->max_depth = s->depth;
    if (s->search_ops >= 0)
        run->search_ops = (uint64_t)s->search_ops;
}
