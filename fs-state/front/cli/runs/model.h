/* Promela model generation and pan build: the SPIN side of a run, done for the user. */
#ifndef METIS_MODEL_H
#define METIS_MODEL_H

#include <stddef.h>
#include <stdio.h>
#include "engine/config/config.h"

/* Search options a run (or a swarm VT) hands to SPIN, and a swarm VT's search shape. */
struct search_opts {
    int t_rand, p_rand, t_reverse;   /* compile-time order randomization / runtime reversal */
    int bitstate;                    /* bitstate storage instead of exhaustive */
    int hash_fn;                     /* pan -hN */
    int hash_count;                  /* pan -kN (bitstate) */
    unsigned long spin_seed;         /* pan -RSn */
    int shape;                       /* enum search_shape_id (search_shape.h): 0 outside a swarm */
};

/* Writes the model for cfg (one branch per operation weight unit) to f. */
int model_write(const struct metis_config *cfg, FILE *f);
/* Generates, runs spin -a and compiles pan in workdir against the kit in libdir.
 * Returns 0, or -1 with a message. The pan binary path is written to pan_out. */
int pan_build(const struct metis_config *cfg, const struct search_opts *so, const char *workdir,
              const char *libdir, char *pan_out, size_t outlen, char *err, size_t errlen);
/* pan's command-line arguments for cfg and so (NULL-terminated, static storage). */
char **pan_args(const struct metis_config *cfg, const struct search_opts *so, const char *pan);

#endif
