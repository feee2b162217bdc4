/* search = bounded inside pan: the transition table, the depth cut, the states met, and each search one depth deeper. */
#include "engine/search/bounded.h"
#include <stdio.h>
#include <string.h>

static int init_fail(struct engine *e, const char *what)
{
    snprintf(e->err, sizeof e->err, "search = bounded: %s", what);
    return -1;
}

/* The progress of the searches before this one, and this one's depth. */
static void take_progress(struct bounded *b, struct engine *e)
{
    b->p = &e->search.bounded;
    *b->p = e->search.prior.bounded;
    b->p->on = 1;
    b->p->limit = e->cfg.run.max_depth;
    b->p->depth = b->p->done + 1;
    b->p->per_state = b->tt.n;
    transitions_bounds(&e->in, b->p->bounds, sizeof b->p->bounds);
}

int bounded_init(struct bounded *b, struct engine *e)
{
    memset(b, 0, sizeof *b);
    b->base = -1;
    if (transitions_build(&e->in, &b->tt) < 0)
        return init_fail(e, "out of memory for the transition table");
    if (b->tt.total > TRANSITIONS_MAX)
        return init_fail(e, "more transitions than TRANSITIONS_MAX (metis check says how many)");
    if (state_set_init(&b->seen, (size_t)e->g.dlen * (size_t)e->g.nfs) < 0)
        return init_fail(e, "out of memory for the states met");
    b->stride = transitions_grouped(&b->tt) ? 3 : 1;
    take_progress(b, e);
    return 0;
}

/* Operations from the initial state of the state a step from pan's depth makes (the first
 * step is the least deep; a grouped table's takes SPIN three steps). */
static long op_depth(struct bounded *b, long depth)
{
    if (b->base < 0)
        b->base = depth;
    return (depth - b->base) / b->stride + 1;
}

int bounded_cut(struct bounded *b, long depth)
{
    return op_depth(b, depth) > b->p->depth;
}

int bounded_note(struct bounded *b, const unsigned char *abs, long depth)
{
    return state_set_note(&b->seen, abs, op_depth(b, depth)) < 0 ? -1 : 0;
}

int bounded_note_initial(struct bounded *b, const unsigned char *abs)
{
    return state_set_note(&b->seen, abs, 0) < 0 ? -1 : 0;
}

void bounded_search_done(struct bounded *b, uint64_t ops)
{
    struct bounded_progress *p = b->p;
    p->done = p->depth;
    p->states = b->seen.n;
    p->frontier = state_set_count_at(&b->seen, p->depth);
    p->ops = ops;
    p->closed = p->frontier == 0;
}

int bounded_needs_deeper(const struct bounded *b)
{
    return b->p->done < b->p->limit && !b->p->closed;
}
