/* search = random: the walk's operation draws by weight and its log-uniform lengths. */
#include <math.h>
#include "engine/search/random_walk.h"

void walk_init(struct walk *w, const struct metis_config *cfg)
{
    *w = (struct walk){ .max_len = (uint64_t)cfg->run.walk_max };
    rng_seed(&w->r, cfg->run.seed ^ 0x57a1c0ffee5eedull);
    for (int op = 0; op < OP_COUNT; op++) {
        w->total += cfg->op_weight[op];
        w->cum[op] = w->total;
    }
}

int walk_next_op(struct walk *w)
{
    int x = (int)rng_below(&w->r, (uint64_t)w->total);
    int op = 0;
    while (w->cum[op] <= x)
        op++;
    return op;
}

uint64_t walk_length(struct walk *w)
{
    if (w->max_len <= 1)
        return 1;
    double len = exp(rng_unit(&w->r) * log((double)w->max_len + 1));
    uint64_t n = (uint64_t)len;
    return n < 1 ? 1 : n > w->max_len ? w->max_len : n;
}
