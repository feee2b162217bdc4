/* A concurrent step over a group: the reference's serial orders, the targets' tries at once, the verdict and the states kept. */
#include "engine/concurrent/concurrent.h"

#include <stdio.h>
#include <string.h>

/* Every fs but the reference. */
static unsigned targets(const struct fsgroup *g)
{
    return (g->nfs >= 32 ? ~0u : (1u << g->nfs) - 1) & ~1u;
}

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

/* The orders fs i's last try matches; the orders with early resolutions are run the first
 * time a try needs them. -1 when they cannot be run. */
static int match_try(struct fsgroup *g, const struct together_set *set, uint64_t parent, int i,
                     struct concurrent_verdict *v)
{
    struct concurrent_fs *f = &v->fs[i];
    const struct fs_outcome *o = &g->out[i];
    const struct fs_config *fs = &g->cfg->fs[i];
    int n = serial_matches(&v->orders, fs, f->res, o->digest, o->dlen, &f->last);
    if (!n && !v->orders.early_run) {
        if (serial_run_early(g, set, parent, &v->orders) < 0)
            return -1;
        n = serial_matches(&v->orders, fs, f->res, o->digest, o->dlen, &f->last);
    }
    f->closest = serial_closest(&v->orders, fs, f->res, o->digest, o->dlen);
    return n;
}

/* Holds each fs of mask's last try against the orders; *again gets the fs that passed. */
static int judge_tries(struct fsgroup *g, const struct together_set *set, uint64_t parent,
                       unsigned mask, struct concurrent_verdict *v, unsigned *again)
{
    *again = 0;
    for (int i = 1; i < g->nfs; i++) {
        struct concurrent_fs *f = &v->fs[i];
        if (!((mask >> i) & 1))
            continue;
        int n = match_try(g, set, parent, i, v);
        if (n < 0)
            return -1;
        int first = serial_set_first(&f->last);
        f->tries++;
        f->failed = n == 0;
        f->passes += n > 0;
        if (n > 0) {
            f->met |= 1u << v->orders.order[first].calls;
            f->early += first >= v->orders.whole;
            *again |= 1u << i;
        }
    }
    return 0;
}

/* Every fs under test issues the calls at once, tries times at most, each try from the state
 * before the step, until a try no order explains. */
static int make_tries(struct fsgroup *g, const struct together_set *set, int tries,
                      uint64_t from, uint64_t parent, struct concurrent_verdict *v,
                      size_t history_len[METIS_MAX_FS])
{
    unsigned todo = targets(g), passed;
    struct issue_job job = { g, set, v };
    for (int r = 0; r < tries && todo; r++) {
        struct step_pass p = { r ? parent : from, STEP_NO_STATE, todo, r > 0, issue_calls, &job,
                               "the calls issued at once" };
        if (fsgroup_pass(g, &p) < 0)
            return -1;
        for (int i = 1; r == 0 && i < g->nfs; i++)
            history_len[i] = g->be[i]->history.len;
        if (judge_tries(g, set, parent, todo, v, &passed) < 0)
            return -1;
        todo = passed;
    }
    return 0;
}

/* A target without snapshots (and a reference restored by its own logged calls) keeps in its
 * history (backend.h) what the restore before the step's first try did: the way to the state the step starts from, which a replay of its
 * history needs. The restores between tries and orders are the step's own; a replay of the
 * step makes them itself (by its own restores), so they are no steps of the history. */
static void step_history_only(struct fsgroup *g, const size_t history_len[METIS_MAX_FS])
{
    for (int i = 0; i < g->nfs; i++) {
        struct buf *h = &g->be[i]->history;
        if (h->len > history_len[i]) {
            h->len = history_len[i];
            h->p[h->len] = '\0';
        }
    }
}

/* ---- the control: the same calls one after another on the fs ---- */

/* A state id no step gives: a failing try's state, kept aside during its control. */
#define TRY_SID (UINT64_MAX - 2)

struct control_job {
    const struct together_set *set;
    const unsigned char *atoms;  /* NULL: make nothing (the try's state read back) */
    struct op_result res[TOGETHER_MAX];
};

static int control_calls(int fs, int rootfd, void *ctx)
{
    struct control_job *j = ctx;
    if (j->atoms)
        together_run_atoms(rootfd, j->set, j->atoms, j->res);
    return 0;
}

/* Does fs i, making the calls one after another in the order nearest its failing try, give
 * what the reference gives in that order? If not, the try showed a difference the fs has
 * with one call at a time too (an errno of its own, a mode): no race, and the steps of one
 * call report it. If so, the race is the calls meeting. The fs holds its try's state again
 * afterwards (unless it has no snapshots). 1 race, 0 not, -1 failure. */
static int control_serial(struct fsgroup *g, const struct together_set *set, uint64_t parent,
                          struct concurrent_verdict *v, int i)
{
    const struct serial_order *o = &v->orders.order[v->fs[i].closest];
    struct control_job job = { set, o->atom, { { 0, 0 } } };
    struct step_pass run = { parent, STEP_NO_STATE, 1u << i, 1, control_calls, &job,
                             "the calls one after another" };
    struct step_pass back = { TRY_SID, STEP_NO_STATE, 1u << i, 1, control_calls, &job,
                              "the try's state" };
    /* A fs without snapshots restores by calls or a replay of operations, and may have no way
     * back to a try's state: no sequence of calls need make what calls at once made (a race
     * past an inode limit cannot be made again one call at a time). */
    int aside = !((g->no_snapshots >> i) & 1);
    struct fs_outcome tried = g->out[i];
    if ((aside && fsgroup_keep_aside(g, TRY_SID, 1u << i) < 0) || fsgroup_pass(g, &run) < 0)
        return -1;
    const struct fs_outcome *out = &g->out[i];
    int race = !serial_calls_differ(&v->orders, v->fs[i].closest, &g->cfg->fs[i], job.res) &&
               out->dlen == o->dlen && !memcmp(out->digest, o->digest, (size_t)o->dlen);
    job.atoms = NULL;
    if (aside && (fsgroup_pass(g, &back) < 0 || fsgroup_forget_aside(g, TRY_SID, 1u << i) < 0))
        return -1;
    /* Without the way back the fs holds the control's state; the step's outcome stays the
     * try's (its history names the kept order's calls, as for every fs replayed). */
    if (!aside)
        g->out[i] = tried;
    g->out[i].res = v->fs[i].res[0];
    return race;
}

/* Every failing fs's try held to its control: a fs whose calls go wrong one at a time too is
 * no race (the step is a leaf, no finding). */
static int control_failures(struct fsgroup *g, const struct together_set *set, uint64_t parent,
                            struct concurrent_verdict *v)
{
    for (int i = 1; i < g->nfs; i++) {
        int race = v->fs[i].failed ? control_serial(g, set, parent, v, i) : 1;
        if (race < 0)
            return -1;
        if (!race) {
            v->fs[i].failed = 0;
            v->fs[i].serial_differs = 1;
        }
    }
    return 0;
}

static int any_serial_differs(const struct fsgroup *g, const struct concurrent_verdict *v)
{
    for (int i = 1; i < g->nfs; i++)
        if (v->fs[i].serial_differs)
            return 1;
    return 0;
}

/* The order the reference keeps: one every fs's last try matched; else the one nearest the
 * first fs that failed; else (each fs serializable alone) the first fs's first. */
static int order_to_keep(const struct fsgroup *g, struct concurrent_verdict *v)
{
    struct serial_set common;
    int first_failed = 0;
    memset(&common, 0xff, sizeof common);
    for (int i = 1; i < g->nfs; i++) {
        serial_set_and(&common, &v->fs[i].last);
        if (v->fs[i].failed && !first_failed)
            first_failed = i;
        v->failed += v->fs[i].failed;
    }
    if (first_failed)
        return v->fs[first_failed].closest;
    int o = serial_set_first(&common);
    if (o >= 0 && o < v->orders.n && !any_serial_differs(g, v))
        return o;
    v->diverged = 1;
    for (int i = 1; i < g->nfs; i++)
        if (v->fs[i].serial_differs)
            return v->fs[i].closest;
    return serial_set_first(&v->fs[1].last);
}

static void mark_differs(struct fsgroup *g, const struct concurrent_verdict *v)
{
    for (int i = 0; i < g->nfs; i++) {
        g->out[i].differs = i > 0 && v->fs[i].failed ? DIFF_SERIAL : 0;
        g->out[i].have_fresh = 0;
        memset(&g->out[i].crash, 0, sizeof g->out[i].crash);
        g->out[i].skipped = 0;
    }
}

/* The reference keeps the kept order's end state and every fs is saved as to. */
static int keep_states(struct fsgroup *g, const struct together_set *set,
                       struct concurrent_verdict *v, uint64_t parent, uint64_t to)
{
    static char history[(TOGETHER_MAX + 1) * METIS_OP_LINE_MAX];
    const struct serial_order *o = &v->orders.order[v->kept];
    memcpy(v->fs[0].res, o->res, sizeof v->fs[0].res);
    if (fsgroup_save_as(g, to, targets(g)) < 0 ||
        serial_keep(g, set, &v->orders, v->kept, parent, to) < 0)
        return -1;
    if (together_history(set, o->atom, history, sizeof history) < 0) {
        snprintf(g->err, sizeof g->err, "a concurrent step's calls do not fit its history");
        return -1;
    }
    return fsgroup_passes_done(g, parent, to, history);
}

int concurrent_step(struct fsgroup *g, const struct together_set *set, int tries, uint64_t from,
                    uint64_t parent, uint64_t to, struct concurrent_verdict *v)
{
    size_t history_len[METIS_MAX_FS];
    memset(v, 0, sizeof *v);
    for (int i = 0; i < g->nfs; i++)
        history_len[i] = g->be[i]->history.len;
    int rc = serial_run_whole(g, set, from, parent, &v->orders, &history_len[0]) < 0 ||
             make_tries(g, set, tries, from, parent, v, history_len) < 0 ||
             control_failures(g, set, parent, v) < 0 ? -1 : 0;
    if (rc == 0) {
        v->kept = order_to_keep(g, v);
        rc = keep_states(g, set, v, parent, to);
    }
    step_history_only(g, history_len);
    if (rc < 0)
        return -1;
    mark_differs(g, v);
    return 0;
}

/* The calls in one order of atoms on every fs. */
struct order_job {
    const struct together_set *set;
    const unsigned char *atoms;
    struct concurrent_verdict *v;
    struct fsgroup *g;
};

static int make_in_order(int fs, int rootfd, void *ctx)
{
    struct order_job *j = ctx;
    together_run_atoms(rootfd, j->set, j->atoms, j->v->fs[fs].res);
    j->g->out[fs].res = j->v->fs[fs].res[0];
    return 0;
}

int concurrent_in_order(struct fsgroup *g, const struct together_set *set,
                        const unsigned char *atoms, uint64_t from, uint64_t parent, uint64_t to,
                        struct concurrent_verdict *v)
{
    static char history[(TOGETHER_MAX + 1) * METIS_OP_LINE_MAX];
    memset(v, 0, sizeof *v);
    struct order_job job = { set, atoms, v, g };
    struct step_pass p = { from, to, 0, 0, make_in_order, &job, "the calls in a serial order" };
    if (fsgroup_pass(g, &p) < 0)
        return -1;
    if (together_history(set, atoms, history, sizeof history) < 0) {
        snprintf(g->err, sizeof g->err, "a concurrent step's calls do not fit its history");
        return -1;
    }
    return fsgroup_passes_done(g, parent, to, history);
}
