/* search = bounded inside pan: the transition table, the depth cut, the states met, and each search one depth deeper. */
#include "engine/search/bounded.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int init_fail(struct engine *e, const char *what)
{
    snprintf(e->err, sizeof e->err, "search = bounded: %s", what);
    return -1;
}

/* METIS_SPLIT=I/N (a swarm VT of N, metis run --vts): the VT's share of the first
 * transitions; 0 of 1 without it. */
static int take_share(struct bounded_progress *p)
{
    const char *v = getenv("METIS_SPLIT");
    p->share = 0;
    p->shares = 1;
    if (!v)
        return 0;
    if (sscanf(v, "%d/%d", &p->share, &p->shares) != 2 || p->shares < 1 || p->share < 0 ||
        p->share >= p->shares)
        return -1;
    return 0;
}

/* The progress of the searches before this one, and this one's depth. */
static void take_progress(struct bounded *b, struct engine *e)
{
    b->p = &e->search.bounded;
    *b->p = e->search.prior.bounded;
    b->p->on = 1;
    b->p->limit = e->cfg.run.max_depth;
    b->p->depth = b->p->done + 1;
    b->p->claims = 0;
    b->p->deferred = 0;
    b->p->per_state = b->tt.n;
    transitions_bounds(&e->in, b->p->bounds, sizeof b->p->bounds);
}

/* Each pool path's last name, files as kind 0 and directories as kind 1: in a pool every
 * directory holds the same names, so the transition table offers the same operations on each
 * name of one kind in one directory (README, "Bounded verification", symmetry). */
static int take_kinds(struct bounded *b, const struct name_pool *pool)
{
    char **paths[2] = { pool->files, pool->dirs };
    int n[2] = { pool->nfiles, pool->ndirs };
    for (int k = 0; k < 2; k++) {
        const char **names = malloc(((size_t)n[k] + 1) * sizeof *names);
        if (!names)
            return -1;
        for (int i = 0; i < n[k]; i++) {
            const char *slash = strrchr(paths[k][i], '/');
            names[i] = slash ? slash + 1 : paths[k][i];
        }
        b->kinds.names[k] = names;
        b->kinds.n[k] = n[k];
    }
    return 0;
}

/* METIS_CLAIMS=PATH (metis run --claims NAME, a bounded swarm's VTs): the claim table this
 * host's VTs share. Without it, or when it cannot be had, the VT searches as it would alone:
 * a VT that defers to no claim only does more work. -1: no memory. */
static int take_claims(struct bounded *b, struct engine *e)
{
    const char *path = getenv("METIS_CLAIMS");
    char err[600];
    if (!path || !*path)
        return 0;
    b->claims = claims_open(path, b->klen, err, sizeof err);
    if (!b->claims) {
        fprintf(stderr, "metis: %s: searching without it\n", err);
        return 0;
    }
    b->visit = calloc((size_t)b->p->depth + 1, sizeof *b->visit);
    b->deferred = calloc((size_t)b->p->depth + 1, 1);
    if (!b->visit || !b->deferred)
        return -1;
    b->p->claims = 1;
    return 0;
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
    b->klen = (size_t)e->g.dlen * (size_t)e->g.nfs;
    take_progress(b, e);
    b->p->symmetric = run_symmetry_names(&e->cfg.run);
    if (b->p->symmetric && take_kinds(b, &e->in.pool) < 0)
        return init_fail(e, "out of memory for the pool's names");
    if (take_share(b->p) < 0)
        return init_fail(e, "METIS_SPLIT is not I/N with I below N");
    if (take_claims(b, e) < 0)
        return init_fail(e, "out of memory for the claims");
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

/* A swarm VT's share: the pairs of a state one operation deep (its key: from) and a second
 * transition whose mix falls to it. Pairs rather than first transitions alone: from almost any
 * first transition most of the space lies a few more away (README, "Bounded verification").
 * The state rather than the first transition that reached it: SPIN explores a state once at
 * depth 1, after whichever first transition reaches it first in its order, and VTs of other
 * orders would share out its second transitions by different first ones (3 VTs missed 3 of
 * the CI bounds' 97 states within depth 2 that way). */
static int not_ours(const struct bounded *b, const unsigned char *from, long t)
{
    uint64_t h = 0;
    memcpy(&h, from, b->klen < sizeof h ? b->klen : sizeof h);
    return (h % (uint64_t)b->p->shares + (uint64_t)t) % (uint64_t)b->p->shares !=
           (uint64_t)b->p->share;
}

/* A state of op depth d >= 2 (below the split) that another VT claims with at least the
 * budget left here is left to it: its claimer explores everything within that budget below it
 * (README, "Bounded verification", why the union stays exact). Decided once per visit, at its
 * first transition, so that a claim is made only by a VT that goes on to explore. */
static int deferred(struct bounded *b, long d, const unsigned char *key, uint64_t sid)
{
    if (b->visit[d] != sid + 1) {
        uint32_t budget = (uint32_t)(b->p->depth - d), level = (uint32_t)b->p->depth;
        b->visit[d] = sid + 1;
        b->deferred[d] = claims_take(b->claims, key, level, budget, (uint32_t)b->p->share) ==
                         CLAIM_DEFER;
        b->p->deferred += b->deferred[d];
    }
    return b->deferred[d];
}

int bounded_cut(struct bounded *b, long t, long depth, const unsigned char *from, uint64_t sid)
{
    long d = op_depth(b, depth);
    if (d > b->p->depth)
        return 1;
    if (d == 2)
        return not_ours(b, from, t);
    return d > 2 && b->claims && deferred(b, d - 1, from, sid);
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
    /* A VT that left states to others' claims cannot tell that nothing lies deeper. */
    p->closed = p->frontier == 0 && p->deferred == 0;
}

int bounded_needs_deeper(const struct bounded *b)
{
    return b->p->done < b->p->limit && !b->p->closed;
}

int bounded_write_states(const struct bounded *b, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, BOUNDED_STATES_FILE);
    return state_set_write(&b->seen, path);
}
