/* Builds and runs the prepopulation plan of prepopulate.h. */
#include "engine/ops/prepopulate.h"
#include "lib/text/buf.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static int plan_push(struct op_args **ops, size_t *n, size_t *cap, const struct op_args *a)
{
    if (array_reserve(ops, cap, *n + 1, sizeof **ops))
        return -1;
    (*ops)[(*n)++] = *a;
    return 0;
}

static void plan_entry(struct op_args *a, enum op_id op, const char *path, mode_t mode)
{
    memset(a, 0, sizeof *a);
    a->op = op;
    a->mode = mode;
    a->uid = a->gid = (uint32_t)-1;
    strncpy(a->path, path, sizeof a->path - 1);
}

int prepopulate_plan(const struct metis_config *cfg, const struct name_pool *pool,
                     struct op_args **ops, size_t *n)
{
    struct rng r;
    struct op_args a;
    size_t cap = 0;
    int rc = 0;
    *ops = NULL;
    *n = 0;
    if (cfg->pool.prepopulate <= 0)
        return 0;
    rng_seed(&r, cfg->run.seed ^ 0x9e3779b97f4a7c15ULL);
    for (int i = 0; i < pool->ndirs && rc == 0; i++) {
        if (rng_unit(&r) >= cfg->pool.prepopulate)
            continue;
        plan_entry(&a, OP_mkdir, pool->dirs[i], 0755);
        rc = plan_push(ops, n, &cap, &a);
    }
    for (int i = 0; i < pool->nfiles && rc == 0; i++) {
        if (rng_unit(&r) >= cfg->pool.prepopulate)
            continue;
        uint64_t seed = rng_next(&r);
        plan_entry(&a, OP_create_file, pool->files[i], 0644);
        a.flags = O_CREAT | O_WRONLY;
        rc = plan_push(ops, n, &cap, &a);
        plan_entry(&a, OP_write_file, pool->files[i], 0);
        a.flags = O_WRONLY;
        a.size = seed % 64;
        a.data_seed = seed;
        if (rc == 0)
            rc = plan_push(ops, n, &cap, &a);
    }
    return rc;
}

void prepopulate_run(int rootfd, const struct op_args *ops, size_t n)
{
    struct op_result r;
    for (size_t i = 0; i < n; i++)
        op_exec(rootfd, &ops[i], &r);
}
