/* A daemon's attribute cache told apart from a defect: a state difference is read again past the kernel's cache before it may be a class, and one that goes away is counted as cache staleness. */
#include "engine/run/cache_recheck.h"
#include "engine/runstate/engine_types.h"
#include "engine/run/known_delta.h"
#include "engine/records/log.h"
#include "lib/system/helpers.h"
#include <stdio.h>
#include <string.h>

static void describe(const struct engine *e, int i, const struct op_args *a, char *out,
                     size_t len)
{
    const struct fs_outcome *o = &e->g.out[i];
    if (o->have_fresh && o->fresh.attr != TREE_DIFF_NONE)
        snprintf(out, len, "%s of %s after %s", tree_diff_name(o->fresh.attr), o->fresh.entry,
                 a ? op_name(a->op) : "set-up");
    else
        snprintf(out, len, "the state after %s", a ? op_name(a->op) : "set-up");
}

static void count_stale(struct engine *e, int i, const char *what)
{
    struct cache_stale *s = &e->stale[i];
    if (!s->count++) {
        s->first_op = e->ops;
        snprintf(s->first, sizeof s->first, "%s", what);
    }
    log_line("stale %llu fs=%s what=%s", (unsigned long long)e->ops, e->cfg.fs[i].name, what);
}

int cache_recheck(struct engine *e, const struct op_args *a, int *leaf)
{
    char what[METIS_MAX_FS][200];
    unsigned which = fsgroup_cache_suspects(&e->g);
    if (!which)
        return 0;
    for (int i = 1; i < e->g.nfs; i++)
        if (which >> i & 1)
            describe(e, i, a, what[i], sizeof what[i]);
    if (fsgroup_reread_fresh(&e->g, which) < 0)
        return -1;
    fsgroup_compare(&e->g, a == NULL);
    for (int i = 1; i < e->g.nfs; i++)
        if ((which >> i & 1) && !(e->g.out[i].differs & DIFF_STATE))
            count_stale(e, i, what[i]);
    if (!a)
        return 0;
    known_delta_drop(&e->path[e->depth - 1], e->g.nfs);   /* judged again from the new trees */
    *leaf = known_delta_judge(e);
    return *leaf < 0 ? -1 : 0;
}
