/* A concurrent step over a group: the reference's serial orders, the targets' tries at once, the verdict and the states kept. */
#include "concurrent.h"

#include <stdio.h>
#include <string.h>

/* A try on one fs under test: the calls at once, outcomes into its verdict entry. */
struct issue_job {
    struct fsgroup *g;
    const struct together_set *set;
    struct concurrent_verdict *v;
};

static int issue_calls(int fs, int rootfd, void *ctx)
{
    struct issue_job *j = ctx;
    struct op_result *res = j->v->fs[fs].res;
    if (together_issue(rootfd, j->set, res) < 0)
        return -1;
    j->g->out[fs].res = res[0];
    for (int c = 0; c < j->set->k; c++)
        if (backend_errno_of_dead_daemon(res[c].err))
            j->g->out[fs].res = res[c];
    return 0;
}

/* Holds each fs of mask's last try against the orders; returns the fs still to try again. */
static unsigned judge_tries(struct fsgroup *g, const struct together_set *set, unsigned mask,
                            struct concurrent_verdict *v)
{
    unsigned again = 0;
    for (int i = 1; i < g->nfs; i++) {
        struct concurrent_fs *f = &v->fs[i];
        if (!((mask >> i) & 1))
            continue;
        const struct fs_outcome *o = &g->out[i];
        f->tries++;
        f->last = serial_matches(&v->orders, &g->cfg->fs[i], f->res, o->digest, o->dlen);
        f->closest = serial_closest(&v->orders, &g->cfg->fs[i], f->res, o->digest, o->dlen);
        f->met |= f->last;
        f->passes += f->last != 0;
        if (f->last)
            again |= 1u << i;
    }
    (void)set;
    return again;
}

/* Every fs under test issues the calls at once, tries times at most, each try from the state
 * before the step, until a try no order explains. */
static int make_tries(struct fsgroup *g, const struct together_set *set, int tries,
                      uint64_t from, uint64_t parent, struct concurrent_verdict *v)
{
    unsigned all = (g->nfs >= 32 ? ~0u : (1u << g->nfs) - 1) & ~1u, todo = all;
    struct issue_job job = { g, set, v };
    for (int r = 0; r < tries && todo; r++) {
        struct step_pass p = { r ? parent : from, STEP_NO_STATE, todo, r > 0, issue_calls, &job,
                               "the calls issued at once" };
        if (fsgroup_pass(g, &p) < 0)
            return -1;
        unsigned passed = judge_tries(g, set, todo, v);
        todo = r + 1 < tries ? passed : 0;
    }
    return 0;
}

/* The order the reference keeps: one every fs's last try matched; else the one nearest the
 * first fs that failed; else (each fs serializable alone) the first fs's first order. */
static int order_to_keep(const struct fsgroup *g, struct concurrent_verdict *v)
{
    uint32_t common = ~0u;
    int first_failed = 0;
    for (int i = 1; i < g->nfs; i++) {
        common &= v->fs[i].last;
        if (!v->fs[i].last && !first_failed)
            first_failed = i;
        v->failed += !v->fs[i].last;
    }
    if (first_failed)
        return v->fs[first_failed].closest;
    if (common)
        return __builtin_ctz(common);
    v->diverged = 1;
    return __builtin_ctz(v->fs[1].last);
}

static void mark_differs(struct fsgroup *g, const struct concurrent_verdict *v)
{
    for (int i = 0; i < g->nfs; i++) {
        g->out[i].differs = i > 0 && !v->fs[i].last ? DIFF_SERIAL : 0;
        g->out[i].have_fresh = 0;
        memset(&g->out[i].crash, 0, sizeof g->out[i].crash);
        g->out[i].skipped = 0;
    }
}

/* The reference keeps order o and every fs is saved as to. */
static int keep_states(struct fsgroup *g, const struct together_set *set,
                       struct concurrent_verdict *v, uint64_t parent, uint64_t to)
{
    static char history[TOGETHER_MAX * METIS_OP_LINE_MAX];
    unsigned targets = (g->nfs >= 32 ? ~0u : (1u << g->nfs) - 1) & ~1u;
    memcpy(v->fs[0].res, v->orders.order[v->kept].res, sizeof v->fs[0].res);
    if (fsgroup_save_as(g, to, targets) < 0 || serial_keep(g, set, &v->orders, v->kept, parent, to) < 0)
        return -1;
    if (serial_history(set, &v->orders, v->kept, history, sizeof history) < 0) {
        snprintf(g->err, sizeof g->err, "a concurrent step's calls do not fit its history");
        return -1;
    }
    return fsgroup_passes_done(g, parent, to, history);
}

int concurrent_step(struct fsgroup *g, const struct together_set *set, int tries, uint64_t from,
                    uint64_t parent, uint64_t to, struct concurrent_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (serial_run_all(g, set, from, parent, 0, &v->orders) < 0 ||
        make_tries(g, set, tries, from, parent, v) < 0)
        return -1;
    v->kept = order_to_keep(g, v);
    if (keep_states(g, set, v, parent, to) < 0)
        return -1;
    mark_differs(g, v);
    return 0;
}

/* The calls in one order on fs, one after another. */
struct serial_job {
    const struct together_set *set;
    struct concurrent_verdict *v;
    struct fsgroup *g;
    int o;
};

static int make_in_order(int fs, int rootfd, void *ctx)
{
    struct serial_job *j = ctx;
    together_serial(rootfd, j->set, j->v->orders.order[j->o].call, j->v->fs[fs].res);
    j->g->out[fs].res = j->v->fs[fs].res[0];
    return 0;
}

int concurrent_serial_step(struct fsgroup *g, const struct together_set *set, int o,
                           uint64_t from, uint64_t parent, uint64_t to,
                           struct concurrent_verdict *v)
{
    static char history[TOGETHER_MAX * METIS_OP_LINE_MAX];
    memset(v, 0, sizeof *v);
    serial_orders(&v->orders, set->k);
    v->kept = o;
    struct serial_job job = { set, v, g, o };
    struct step_pass p = { from, to, 0, 0, make_in_order, &job, "the calls in a serial order" };
    if (fsgroup_pass(g, &p) < 0 || serial_history(set, &v->orders, o, history, sizeof history) < 0)
        return -1;
    return fsgroup_passes_done(g, parent, to, history);
}
