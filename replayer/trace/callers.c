/* Which file systems make a history's restore call when it is replayed: the one that made it in the run, and those that follow a target's restores. */
#include "callers.h"
#include "engine/vocab/fsinfo.h"

#include <stddef.h>

static int logs_own_calls(const struct trace_fs *f)
{
    return fs_logs_own_calls((enum fs_type)fs_type_by_name(f->type), f->fstype);
}

/* Step m of the sequence: idx[m], or m itself when idx is NULL (the whole trace). */
static size_t at(const size_t *idx, size_t m)
{
    return idx ? idx[m] : m;
}

/* Whether fs i has a call of its own before operation seq among the steps just before step j
 * of the sequence: the calls of one restore are next to each other, before that operation, fs
 * by fs in the config's order (the reference's first), so a fs that restored by calls of its
 * own shows them before a target's. Looking back only, a step's makers depend on the steps
 * before it alone, as a shrinker's saved prefix states need. */
static int has_call_before(const struct trace *t, const size_t *idx, size_t j, int i,
                           uint64_t seq)
{
    for (size_t m = j; m-- > 0;) {
        const struct trace_op *op = &t->ops[at(idx, m)];
        if (!op->is_call || op->seq != seq)
            return 0;
        if (op->call_fs == i)
            return 1;
    }
    return 0;
}

int trace_call_made_on_in(const struct trace *t, const size_t *idx, size_t n, size_t j, int i)
{
    const struct trace_op *op = &t->ops[at(idx, j)];
    if (!op->is_call || op->call_fs == i)
        return 1;
    if (op->call_fs < 0 || op->call_fs >= t->nfs || logs_own_calls(&t->fs[op->call_fs]))
        return 0;
    return !has_call_before(t, idx, j, i, op->seq);
}

int trace_call_made_on(const struct trace *t, size_t k, int i)
{
    return trace_call_made_on_in(t, NULL, t->nops, k, i);
}
