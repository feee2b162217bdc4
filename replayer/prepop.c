/* The initial state as engine.c's prepopulate() makes it, as a list of operations (for emit-c). */
#include "emitc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

static int push(struct prepop_op **ops, size_t *n, size_t *cap, const struct prepop_op *op)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        struct prepop_op *m = realloc(*ops, ncap * sizeof *m);
        if (!m)
            return -1;
        *ops = m;
        *cap = ncap;
    }
    (*ops)[(*n)++] = *op;
    return 0;
}

int emitc_prepopulate_ops(const struct metis_config *cfg, struct prepop_op **ops, size_t *n)
{
    struct input in;
    struct rng r;
    struct prepop_op op;
    size_t cap = 0;
    *ops = NULL;
    *n = 0;
    if (cfg->pool.prepopulate <= 0)
        return 0;
    if (input_init(&in, cfg, cfg->run.seed) < 0)
        return -1;
    rng_seed(&r, cfg->run.seed ^ 0x9e3779b97f4a7c15ULL);
    int rc = 0;
    for (int i = 0; i < in.pool.ndirs && rc == 0; i++) {
        if (rng_unit(&r) >= cfg->pool.prepopulate)
            continue;
        memset(&op, 0, sizeof op);
        op.args.op = OP_mkdir;
        op.args.mode = 0755;
        snprintf(op.args.path, sizeof op.args.path, "%s", in.pool.dirs[i]);
        rc = push(ops, n, &cap, &op);
    }
    for (int i = 0; i < in.pool.nfiles && rc == 0; i++) {
        if (rng_unit(&r) >= cfg->pool.prepopulate)
            continue;
        uint64_t seed = rng_next(&r);
        memset(&op, 0, sizeof op);
        op.args.op = OP_create_file;
        op.args.mode = 0644;
        snprintf(op.args.path, sizeof op.args.path, "%s", in.pool.files[i]);
        rc = push(ops, n, &cap, &op);
        op.args.op = OP_write_file;
        op.args.size = seed % 64;
        op.args.data_seed = seed;
        op.only_if_created = 1;
        if (rc == 0)
            rc = push(ops, n, &cap, &op);
    }
    input_free(&in);
    return rc;
}
