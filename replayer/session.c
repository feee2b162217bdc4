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
#include "backend/runlock.h"
#include "lib/signals.h"

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

int session_call(struct session *s, const struct rcall *c, uint64_t from, uint64_t to)
{
    if (fsgroup_call(&s->g, c, from, to) < 0)
        return group_failed(s);
    take_outcomes(s);
    return 0;
}

int session_trace_step(struct session *s, const struct trace_op *op, uint64_t from, uint64_t to)
{
    return op->is_call ? session_call(s, &op->call, from, to)
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
    for (int i = 0; i < s->g.nfs; i++)
        s->differs[i] = s->g.out[i].differs;
    return n;
}

void session_stop(struct session *s)
{
    fsgroup_close(&s->g);
    if (s->started)
        backend_sweep(session_run_id());
    s->started = 0;
}
