/* The known delta along the search path: a step's trees held against its parent state's attribute differences (tree/delta.c), kept on the path entry of the state it made. */
#include "engine/run/known_delta.h"
#include "engine/runstate/engine_types.h"
#include "engine/records/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void known_delta_drop(struct path_entry *p, int nfs)
{
    if (!p->delta)
        return;
    for (int i = 0; i < nfs; i++)
        tree_delta_free(&p->delta[i]);
    free(p->delta);
    p->delta = NULL;
}

const struct tree_delta *known_delta_at(const struct engine *e, size_t k, int i)
{
    if (k >= e->depth || !e->path[k].delta || !e->path[k].delta[i].n)
        return NULL;
    return &e->path[k].delta[i];
}

/* The delta the newest state came from: its parent's on the path. */
static const struct tree_delta *parent_delta(const struct engine *e, int i)
{
    return e->depth >= 2 ? known_delta_at(e, e->depth - 2, i) : NULL;
}

/* fs i's tree as the step read it back (keep_listings), else read again. */
static char *step_listing(struct engine *e, int i)
{
    char *kept = e->g.out[i].listing ? strdup(e->g.out[i].listing) : NULL;
    return kept ? kept : classes_read_listing(&e->g, i);
}

int known_delta_below(const struct engine *e)
{
    for (int i = 1; i < e->g.nfs; i++)
        if (e->depth && known_delta_at(e, e->depth - 1, i))
            return 1;
    return 0;
}

static int judge_one(struct engine *e, int i, const char *ref, struct tree_delta *now)
{
    struct fs_outcome *o = &e->g.out[i];
    char *other = step_listing(e, i);
    if (!other) {
        snprintf(e->g.err, sizeof e->g.err, "%s", e->g.be[i]->err);
        return -1;
    }
    int v = tree_delta_compare(ref, other, parent_delta(e, i), now, &o->fresh);
    free(other);
    if (v < 0) {
        snprintf(e->g.err, sizeof e->g.err, "fs %s: its tree has no listing line at %s",
                 e->cfg.fs[i].name, o->fresh.entry);
        return -1;
    }
    o->have_fresh = 1;
    if (o->fresh.attr == TREE_DIFF_NONE)
        o->differs &= ~DIFF_STATE;    /* all known: nothing this step did differs */
    if (v == DELTA_ATTRS)
        log_line("delta %llu fs=%s items=%zu", (unsigned long long)e->ops, e->cfg.fs[i].name,
                 now->n);
    return v == DELTA_STRUCTURE;
}

int known_delta_judge(struct engine *e)
{
    struct path_entry *p = &e->path[e->depth - 1];
    char *ref = NULL;
    int structure = 0;
    for (int i = 1; i < e->g.nfs && structure >= 0; i++) {
        if (!(e->g.out[i].differs & DIFF_STATE))
            continue;
        if (!ref && !(ref = step_listing(e, 0))) {
            snprintf(e->g.err, sizeof e->g.err, "%s", e->g.be[0]->err);
            return -1;
        }
        if (!p->delta && !(p->delta = calloc((size_t)e->g.nfs, sizeof *p->delta)))
            structure = -1;
        int r = structure < 0 ? -1 : judge_one(e, i, ref, &p->delta[i]);
        structure = r < 0 ? -1 : structure | r;
    }
    free(ref);
    return structure;
}

const char *known_delta_describe(const struct engine *e, int i, char *buf, size_t len)
{
    const struct tree_delta *d = parent_delta(e, i);
    if (!d)
        return NULL;
    char first[256];
    snprintf(first, sizeof first, "%s", d->item[0]);
    for (char *t = first; (t = strchr(t, '\t'));)
        *t = ' ';
    snprintf(buf, len, "%zu attribute difference%s (first: %s)", d->n, d->n == 1 ? "" : "s",
             first);
    return buf;
}
