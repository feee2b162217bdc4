/* Several searches in one run: derived seeds, the totals one search hands the next, the restart rule and the early-end warning. */
#include "engine/run/searches.h"
#include "engine/runstate/engine_types.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CARRY_MAGIC 0x3643535349544d45ull    /* "EMTISSC6": this build's carry layout */

/* The reach and coverage tables are arrays of counters only: added word by word. */
_Static_assert(sizeof(((struct reach *)0)->row) % sizeof(uint64_t) == 0, "reach rows hold only counters");
_Static_assert(sizeof(struct together_counts) % sizeof(uint64_t) == 0, "together counts are counters");
_Static_assert(sizeof(struct coverage) % sizeof(uint64_t) == 0, "coverage holds only counters");

uint64_t search_seed(uint64_t base, int index)
{
    if (index <= 1)
        return base;
    struct rng r;
    rng_seed(&r, base ^ (0x9e3779b97f4a7c15ull * (uint64_t)index));
    return rng_next(&r);
}

static void carry_path(const struct engine *e, char *buf, size_t len)
{
    snprintf(buf, len, "%s/work/%s", e->out_dir, SEARCH_CARRY_FILE);
}

static int resume_fail(struct engine *e, const char *path, const char *why)
{
    snprintf(e->err, sizeof e->err, "%s: %s (search %d needs the totals of the one before)",
             path, why, e->search.index);
    return -1;
}

/* The classes found so far go on into the next search: a difference found again there is a
 * hit of its class, not a new one. Their detail files move to search-N/ with the search that
 * wrote them (front/cli/runs/restart.c), so the names say so. */
static int write_classes(const struct dclass_table *t, int index, FILE *f)
{
    if (fwrite(&t->n, sizeof t->n, 1, f) != 1 || fwrite(&t->details, sizeof t->details, 1, f) != 1)
        return -1;
    for (int k = 0; k < t->n; k++) {
        struct dclass c = t->v[k];
        char moved[sizeof c.detail + 32];
        snprintf(moved, sizeof moved, "search-%d/%s", index, t->v[k].detail);
        if (c.detail[0] && strncmp(c.detail, "search-", 7) != 0 && strlen(moved) < sizeof c.detail)
            memcpy(c.detail, moved, strlen(moved) + 1);
        if (fwrite(&c, sizeof c, 1, f) != 1)
            return -1;
    }
    return 0;
}

static int read_classes(struct dclass_table *t, FILE *f)
{
    int n;
    if (fread(&n, sizeof n, 1, f) != 1 || fread(&t->details, sizeof t->details, 1, f) != 1 ||
        n < 0 || n > 1000000)
        return -1;
    if (n == 0)
        return 0;
    if (!(t->v = calloc((size_t)n, sizeof *t->v)) ||
        fread(t->v, sizeof *t->v, (size_t)n, f) != (size_t)n)
        return -1;
    t->n = t->cap = n;
    return 0;
}

int search_resume(struct engine *e)
{
    struct search_run *s = &e->search;
    const char *v = getenv("METIS_SEARCH");
    char path[1200];
    s->index = v && atoi(v) > 1 ? atoi(v) : 1;
    s->base_seed = e->cfg.run.seed;
    if (s->index == 1)
        return 0;
    carry_path(e, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return resume_fail(e, path, strerror(errno));
    size_t n = fread(&s->prior, sizeof s->prior, 1, f);
    int classes_ok = n == 1 && read_classes(&e->classes, f) == 0;
    fclose(f);
    if (n != 1 || s->prior.magic != CARRY_MAGIC || s->prior.searches != s->index - 1 ||
        !classes_ok)
        return resume_fail(e, path, "not the totals of the previous search of this build");
    e->cfg.run.seed = search_seed(s->base_seed, s->index);
    if (e->cfg.run.ops)
        e->cfg.run.ops = e->cfg.run.ops > s->prior.ops ? e->cfg.run.ops - s->prior.ops : 1;
    return 0;
}

void search_begin(struct engine *e)
{
    double used = e->t_start - e->search.prior.t_first;
    if (e->search.index > 1 && e->cfg.run.seconds > 0)
        e->cfg.run.seconds = e->cfg.run.seconds > used ? e->cfg.run.seconds - used : 1e-9;
}

void search_note(struct search_run *s, uint64_t from_sid, int err)
{
    if (from_sid != 0)
        return;
    s->init_draws++;
    if (err == 0)
        s->init_ok++;
    else if (err > 0 && err < ERRNO_MAX)
        s->init_err[err]++;
}

int search_note_failure(struct search_run *s, const char *signature, uint64_t ops_done)
{
    int again = ops_done == 0 && s->prior.fail_streak > 0 &&
                strcmp(s->prior.fail_signature, signature) == 0;
    s->fail_streak = again ? s->prior.fail_streak + 1 : 1;
    snprintf(s->fail_signature, sizeof s->fail_signature, "%s", signature);
    return s->fail_streak >= SEARCH_FAIL_LIMIT;
}

int search_should_restart(const struct engine *e, double now)
{
    const struct run_config *r = &e->cfg.run;
    if (!r->ops && r->seconds <= 0)
        return 0;               /* no budget to fill: one search, as it always was */
    if ((r->ops && e->ops >= r->ops) || (r->seconds > 0 && now - e->t_start >= r->seconds))
        return 0;
    return r->max_searches == 0 || e->search.index < r->max_searches;
}

/* "ENOENT 12, EEXIST 3": the errnos of the initial state's draws, most frequent first; returns
 * the most frequent. */
static int write_init_errnos(const struct search_run *s, FILE *f)
{
    unsigned char shown[ERRNO_MAX] = { 0 };
    int top = 0;
    for (int k = 0; k < 3; k++) {
        int best = 0;
        for (int e = 1; e < ERRNO_MAX; e++)
            if (!shown[e] && s->init_err[e] && (!best || s->init_err[e] > s->init_err[best]))
                best = e;
        if (!best)
            break;
        shown[best] = 1;
        fprintf(f, "%s%s %" PRIu64, k ? ", " : "", errno_name(best), s->init_err[best]);
        top = k ? top : best;
    }
    return top;
}

void search_warn(const struct engine *e, FILE *f)
{
    const struct search_run *s = &e->search;
    const struct pool_config *p = &e->cfg.pool;
    fprintf(f, "metis: warning: search %d explored every state it could reach after only %" PRIu64
            " operations: ", s->index, e->ops);
    if (s->init_draws && !s->init_ok) {
        fprintf(f, "all %" PRIu64 " draws from the initial state failed (", s->init_draws);
        int top = write_init_errnos(s, f);
        if (top != ENOENT)
            fputs("): widen [ops] or [pool]\n", f);
        else
            fprintf(f, "): pool paths lie below directories that do not exist; set [pool] "
                    "prepopulate%s, or a shallower pool\n",
                    p->existing < 0.5 ? " or existing" : "");
        return;
    }
    fprintf(f, "every further operation led back to a state already seen (%.0f states): the pool "
            "(%d directories x %d files, depth %d) or max_depth %ld leaves little to explore\n",
            e->stored, p->dirs, p->files, p->depth, e->cfg.run.max_depth);
}

static void add_words(void *dst, const void *src, size_t bytes)
{
    uint64_t *d = dst;
    const uint64_t *s = src;
    for (size_t i = 0; i < bytes / sizeof *d; i++)
        d[i] += s[i];
}

/* The run's first example is the earlier search's; this one's operations count after its. */
static void fold_stale(struct cache_stale *now, const struct cache_stale *before, uint64_t ops)
{
    if (!before->count) {
        now->first_op += now->count ? ops : 0;
        return;
    }
    uint64_t n = now->count;
    *now = *before;
    now->count += n;
}

void search_fold(struct engine *e)
{
    const struct search_carry *p = &e->search.prior;
    if (e->search.index <= 1)
        return;
    e->ops += p->ops;
    e->restores += p->restores;
    e->discrepancies += p->discrepancies;
    e->stored += p->stored;
    e->matched += p->matched;
    if (p->max_depth > e->max_depth_seen)
        e->max_depth_seen = p->max_depth;
    /* Only the counters add up: the fs count and names are this process's own. */
    add_words(e->reach.row, p->reach.row, sizeof e->reach.row);
    for (int i = e->reach.nfs; i < p->reach.nfs && i < e->cfg.nfs && i < REACH_MAX_FS; i++)
        e->reach.fsname[i] = e->cfg.fs[i].name;
    if (p->reach.nfs > e->reach.nfs)
        e->reach.nfs = p->reach.nfs;
    add_words(&e->in.cov, &p->cov, sizeof e->in.cov);
    add_words(&e->together, &p->together, sizeof e->together);
    for (int i = 0; i < METIS_MAX_FS; i++)
        fold_stale(&e->stale[i], &p->stale[i], p->ops);
    for (int i = 0; i < e->g.nfs; i++) {
        struct fs_outcome *o = &e->g.out[i];
        o->t_prepare += p->t[i][0];
        o->t_op += p->t[i][1];
        o->t_abstract += p->t[i][2];
        o->t_finish += p->t[i][3];
    }
    for (int i = 0; i < e->g.nfs; i++)
        if (e->g.be[i])
            e->g.be[i]->lingering_killed += p->lingering_killed[i];
    e->t_start = p->t_first;
}

void search_apply_learnt(struct engine *e)
{
    for (int i = 0; i < e->g.nfs && e->search.index > 1; i++)
        if (e->g.be[i])
            e->g.be[i]->lingering_known |= e->search.prior.lingering_known[i];
}

int search_save(const struct engine *e)
{
    static struct search_carry c;
    char path[1200], tmp[1300];
    memset(&c, 0, sizeof c);
    c.magic = CARRY_MAGIC;
    c.searches = e->search.index;
    c.t_first = e->t_start;
    c.ops = e->ops;
    c.restores = e->restores;
    c.discrepancies = e->discrepancies;
    c.stored = e->stored;
    c.matched = e->matched;
    c.max_depth = e->max_depth_seen;
    c.reach = e->reach;
    c.cov = e->in.cov;
    c.together = e->together;
    memcpy(c.stale, e->stale, sizeof c.stale);
    for (int i = 0; i < e->g.nfs; i++) {
        const struct fs_outcome *o = &e->g.out[i];
        c.t[i][0] = o->t_prepare, c.t[i][1] = o->t_op;
        c.t[i][2] = o->t_abstract, c.t[i][3] = o->t_finish;
    }
    c.fail_streak = e->search.fail_streak;
    memcpy(c.fail_signature, e->search.fail_signature, sizeof c.fail_signature);
    c.bounded = e->search.bounded;
    c.history_length = e->search.prior.history_length + e->search.history_length;
    for (int i = 0; i < e->g.nfs; i++)
        if (e->g.be[i]) {
            c.lingering_known[i] = (unsigned char)e->g.be[i]->lingering_known;
            c.lingering_killed[i] = e->g.be[i]->lingering_killed;
        }
    carry_path(e, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(&c, sizeof c, 1, f) == 1 &&
             write_classes(&e->classes, e->search.index, f) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}
