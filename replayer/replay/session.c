/* Replay session: the engine's step core run outside SPIN, with the cleanup a standalone program needs. */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"
#include "engine/concurrent/concurrent.h"
#include "engine/config/fault_config.h"
#include "backend/base/runlock.h"
#include "lib/system/signals.h"

static char run_id[64];
static volatile sig_atomic_t stop_signal;
static int run_lock = -1;   /* the run's lock (backend/runlock.h): a sweep leaves us alone */


const char *session_run_id(void)
{
    if (!run_id[0]) {
        const char *env = getenv("METIS_RUN_ID");
        if (env && *env)
            snprintf(run_id, sizeof run_id, "%s", env);
        else
            snprintf(run_id, sizeof run_id, "r%d", (int)getpid());
    }
    return run_id;
}

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* Our leftovers first, then the lock: a sweep that finds it free may remove what is left. */
static void sweep_and_release(void)
{
    backend_sweep(session_run_id());
    runlock_release(run_lock, session_run_id());
    run_lock = -1;
}

static void on_crash(int sig)
{
    /* Not async-signal-safe, but a leaked loop device or mount costs more than the risk. */
    sweep_and_release();
    signals_die(sig);
}

void session_install_cleanup(void)
{
    char err[512];
    signals_on_stop(on_stop);
    signals_on_crash(on_crash);
    run_lock = runlock_hold(session_run_id(), err, sizeof err);
    if (run_lock < 0)   /* a pid-named run without a lock still counts as live while we run */
        fprintf(stderr, "metis-replay: warning: %s\n", err);
    atexit(sweep_and_release);
}

int session_interrupted(void)
{
    return stop_signal != 0;
}

static int serr(struct session *s, const char *fmt, const char *detail)
{
    snprintf(s->err, sizeof s->err, fmt, detail);
    return -1;
}

/* The group's outcomes in the trace's terms, for comparison with recorded ones. */
static void take_outcomes(struct session *s)
{
    for (int i = 0; i < s->g.nfs; i++) {
        const struct fs_outcome *o = &s->g.out[i];
        s->out[i].have = 1;
        s->out[i].ret = o->res.ret;
        s->out[i].err = o->res.err;
        s->out[i].dlen = o->dlen;
        s->out[i].ncalls = 0;
        memcpy(s->out[i].digest, o->digest, sizeof o->digest);
    }
}

static int group_failed(struct session *s)
{
    return serr(s, "%s", s->g.err);
}

int session_start(struct session *s, const struct metis_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->started = 1;
    if (fsgroup_open(&s->g, &s->cfg, session_run_id(), "/tmp") < 0)
        return group_failed(s);
    /* mkfs of a large image may take longer than a step may. */
    if (fsgroup_setup(&s->g, s->g.timeout > 120 ? s->g.timeout : 120) < 0 ||
        fsgroup_initial(&s->g) < 0)
        return group_failed(s);
    take_outcomes(s);
    return 0;
}

int session_step(struct session *s, const struct op_args *a, const struct fault_spec *fault,
                 uint64_t from, uint64_t to)
{
    struct fault_spec f = { 0 };
    if (fault && fault->on) {
        f = *fault;
        fault_spec_hook(&f, &s->cfg, (int)a->op);
    }
    if (fsgroup_step(&s->g, a, &f, from, to) < 0)
        return group_failed(s);
    take_outcomes(s);
    return 0;
}

/* Every fs's outcomes of a concurrent step's calls, in the trace's terms. */
static void take_calls(struct session *s, const struct together_set *set,
                       const struct concurrent_verdict *v)
{
    take_outcomes(s);
    for (int i = 0; i < s->g.nfs; i++) {
        s->out[i].ncalls = set->k;
        for (int c = 0; c < set->k; c++) {
            s->out[i].call_ret[c] = v->fs[i].res[c].ret;
            s->out[i].call_err[c] = v->fs[i].res[c].err;
        }
        s->out[i].ret = v->fs[i].res[0].ret;
        s->out[i].err = v->fs[i].res[0].err;
    }
}

/* A step of calls made in one order on every fs: each call's outcome and the state held to
 * fs 0's, as the step core holds one call's. */
static void compare_calls(struct session *s, const struct together_set *set)
{
    const struct trace_outcome *ref = &s->out[0];
    for (int i = 0; i < s->g.nfs; i++) {
        const struct trace_outcome *o = &s->out[i];
        unsigned d = 0;
        for (int c = 0; c < set->k && i > 0; c++) {
            d |= o->call_ret[c] != ref->call_ret[c] ? DIFF_RET : 0;
            d |= o->call_err[c] != ref->call_err[c] &&
                 !fs_errno_equivalent(&s->cfg.fs[i], o->call_err[c], ref->call_err[c]) ? DIFF_ERRNO : 0;
        }
        if (i > 0 && (o->dlen != ref->dlen || memcmp(o->digest, ref->digest, (size_t)o->dlen)))
            d |= DIFF_STATE;
        s->differs[i] = s->g.out[i].differs = d;
    }
}

/* The state a concurrent step's tries and orders go back to: saved now when a replay that
 * saves nothing holds it (under an id far above any a replay gives), discarded after. */
#define TOGETHER_PARENT_SID (1ull << 41)

static uint64_t parent_state(struct session *s, uint64_t from)
{
    if (from != SESSION_NO_STATE)
        return from;
    if (s->g.live != SESSION_NO_STATE)
        return s->g.live;
    if (fsgroup_save_as(&s->g, TOGETHER_PARENT_SID, ~0u) < 0)
        return SESSION_NO_STATE;
    s->g.live = TOGETHER_PARENT_SID;
    return TOGETHER_PARENT_SID;
}

int session_together(struct session *s, const struct together_set *set, int tries,
                     const char *order, uint64_t from, uint64_t to)
{
    static struct concurrent_verdict v;
    unsigned char atoms[TOGETHER_MAX_ATOMS];
    if (!tries && together_atoms_parse(order, set->k, atoms) < 0)
        return serr(s, "'%s' is no serial order of the concurrent step's calls", order);
    uint64_t parent = tries ? parent_state(s, from) : from;
    if (tries && parent == SESSION_NO_STATE)
        return group_failed(s);
    int rc = tries ? concurrent_step(&s->g, set, tries, from, parent, to, &v)
                   : concurrent_in_order(&s->g, set, atoms, from, parent, to, &v);
    if (parent == TOGETHER_PARENT_SID)
        fsgroup_discard(&s->g, TOGETHER_PARENT_SID);
    if (rc < 0)
        return group_failed(s);
    take_calls(s, set, &v);
    if (!tries)
        compare_calls(s, set);
    for (int i = 0; i < s->g.nfs && tries; i++)
        s->differs[i] = s->g.out[i].differs;
    return 0;
}

int session_save(struct session *s, uint64_t sid)
{
    return fsgroup_save_as(&s->g, sid, ~0u) < 0 ? group_failed(s) : 0;
}

struct atoms_job {
    const struct together_set *set;
    const unsigned char *atoms;
    struct op_result *res;
};

static int make_atoms(int fs, int rootfd, void *ctx)
{
    struct atoms_job *j = ctx;
    together_run_atoms(rootfd, j->set, j->atoms, j->res);
    return 0;
}

int session_order_on_reference(struct session *s, const struct together_set *set,
                               const unsigned char *atoms, uint64_t from, struct op_result *res)
{
    struct atoms_job job = { set, atoms, res };
    struct step_pass p = { from, SESSION_NO_STATE, 1u, 1, make_atoms, &job,
                           "a serial order of the calls" };
    if (fsgroup_pass(&s->g, &p) < 0)
        return group_failed(s);
    s->g.out[0].res = res[0];
    take_outcomes(s);
    return 0;
}

int session_call(struct session *s, const struct rcall *c, unsigned on, uint64_t from,
                 uint64_t to)
{
    if (fsgroup_call(&s->g, c, on, from, to) < 0)
        return group_failed(s);
    take_outcomes(s);
    return 0;
}

int session_trace_step(struct session *s, const struct trace_op *op, unsigned on, uint64_t from,
                       uint64_t to)
{
    return op->is_call ? session_call(s, &op->call, on, from, to)
                       : session_step(s, &op->args, &op->fault, from, to);
}

void session_discard(struct session *s, uint64_t sid)
{
    fsgroup_discard(&s->g, sid);
}

struct import_job {
    struct session *s;
    const char *const *files;
    uint64_t sid;
};

static int import_one(int i, void *ctx)
{
    struct import_job *j = ctx;
    struct fsgroup *g = &j->s->g;
    if (i >= g->nfs)
        return 0;
    struct backend *b = g->be[i];
    if (import_state(b, j->files[i], j->sid) < 0 || b->ops->begin(b) < 0)
        return -1;
    g->out[i].res = (struct op_result){ 0, 0 };
    if (fsgroup_read_state(g, i) < 0)
        return -1;
    return b->ops->end(b);
}

int session_import(struct session *s, const char *const files[METIS_MAX_FS], uint64_t sid)
{
    struct import_job j = { s, files, sid };
    for (int i = 0; i < s->g.nfs; i++)
        if (!files[i])
            return serr(s, "fs %s: no exported state to import", s->cfg.fs[i].name);
    if (fsgroup_run(&s->g, import_one, &j, "import") < 0)
        return group_failed(s);
    s->g.live = sid;
    take_outcomes(s);
    return 0;
}

int session_compare(struct session *s, int initial)
{
    int n = fsgroup_compare(&s->g, initial);
    /* As the engine does (cache_recheck.h): a difference must stay past the attribute cache.
     * A read that fails leaves the first comparison standing; the next step meets the cause. */
    unsigned which = fsgroup_cache_suspects(&s->g);
    if (which && fsgroup_reread_fresh(&s->g, which) == 0)
        n = fsgroup_compare(&s->g, initial);
    for (int i = 0; i < s->g.nfs; i++)
        s->differs[i] = s->g.out[i].differs;
    return n;
}

void session_stop(struct session *s)
{
    /* A step that timed out left a worker blocked on the hung daemon: it is killed and its
     * connection aborted first, or the worker wakes into what the close freed (a shrink that
     * started afresh after mhddfs hung in a rename ended with SIGSEGV). */
    if (s->g.timed_out && s->g.failed_fs >= 0 && s->g.failed_fs < s->g.nfs)
        fsgroup_recover(&s->g, s->g.failed_fs, TF_HANG);
    fsgroup_close(&s->g);
    if (s->started)
        backend_sweep(session_run_id());
    s->started = 0;
}
