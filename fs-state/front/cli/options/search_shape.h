/* Search shapes of a swarm's VTs: the search kind and the depth, dive and length bounds a VT runs with, drawn from the swarm seed. */
#ifndef METIS_SEARCH_SHAPE_H
#define METIS_SEARCH_SHAPE_H

#include <stdint.h>
#include "engine/config/config.h"

enum search_shape_id { SHAPE_PLAIN, SHAPE_DIVE30, SHAPE_DIVE300, SHAPE_DEPTH200,
                       SHAPE_DEPTH1000, SHAPE_OPS1000, SHAPE_OPS10000, SHAPE_RANDOM,
                       SHAPE_COUNT };

/* What a shape sets; every other key keeps the config's value. */
struct search_shape {
    const char *name;           /* as search_opts_describe shows it: "dive30" */
    int kind;                   /* SEARCH_DFS or SEARCH_RANDOM; -1: the config's */
    long dive;                  /* [run] dive; -1: the config's */
    long depth;                 /* [run] max_depth at most this; 0: the config's */
    long long search_ops;       /* [run] search_ops; -1: the config's */
};

/* The shape of swarm VT vt: VT 0's is SHAPE_PLAIN (the config's own search), and any
 * SHAPE_COUNT consecutive VTs have every shape once. */
enum search_shape_id search_shape_of(uint64_t swarm_seed, int vt);
/* The shape's table entry (SHAPE_PLAIN's for an id out of range). */
const struct search_shape *search_shape_get(int id);
/* Sets what the shape sets in run, the front end's copy of the config. */
void search_shape_apply(int id, struct run_config *run);

#endif
