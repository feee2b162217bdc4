/* Replay session: backends opened from the config, stepped on the fsset workers, swept on exit and on signals. */
#include "session.h"
#include "equalize.h"
#include "prepopulate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fsset.h"
#include "import.h"
#include "input.h"
#include "ops.h"

static int fsset_started;
static char run_id[64];
static volatile sig_atomic_t stop_signal;

/* What restore needs for backends without snapshots: each state's parent and operation. */
struct history {
    uint64_t sid, parent;
    struct op_args args;
};
static struct history *hist;
static size_t nhist, hist_cap;

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

static void on_crash(int sig)
{
    /* Not async-signal-safe, but a leaked loop device or mount costs more than the risk. */
    backend_sweep(session_run_id());
    signal(sig, SIG_DFL);
    raise(sig);
}

static void sweep_at_exit(void)
{
    backend_sweep(session_run_id());
}

void session_install_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
    atexit(sweep_at_exit);
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

/* Runs job on every fs at once with the configured time limit, as the engine does. */
static int run_all(struct session *s, fsset_job job, void *ctx, const char *step, double timeout)
{
    int late = -1;
    int rc = fsset_run(job, ctx, timeout, &late);
    if (rc == 0)
        return 0;
    if (rc < 0)
        snprintf(s->err, sizeof s->err, "fs %s: %s timed out after %.0f s",
                 late >= 0 && late < s->nfs ? s->cfg.fs[late].name : "?", step, timeout);
    else
        snprintf(s->err, sizeof s->err, "%s", s->be[rc - 1]->err[0] ? s->be[rc - 1]->err : step);
    return -1;
}

/* ---- history for replay-restored backends ---- */

static int history_add(uint64_t sid, uint64_t parent, const struct op_args *a)
{
    if (nhist == hist_cap) {
        size_t ncap = hist_cap ? 2 * hist_cap : 256;
        struct history *n = realloc(hist, ncap * sizeof *n);
        if (!n)
            return -1;
        hist = n;
        hist_cap = ncap;
    }
    hist[nhist].sid = sid;
    hist[nhist].parent = parent;
    hist[nhist].args = *a;
    nhist++;
    return 0;
}

static const struct history *history_find(uint64_t sid)
{
    for (size_t i = nhist; i-- > 0;)
        if (hist[i].sid == sid)
            return &hist[i];
    return NULL;
}

static int replay_to(struct backend *b, uint64_t sid, int depth)
{
    struct op_result r;
    if (sid == 0) {
        struct session *s = b->replay_ctx;
        int i = 0;
        while (i < s->nfs - 1 && s->be[i] != b)
            i++;
        if (equalize_replay(b->rootfd, &s->fillers[i]) < 0)
            return -1;
        prepopulate_run(b->rootfd, s->plan, s->nplan);
        return 0;
    }
    const struct history *h = history_find(sid);
    if (!h || depth > 1000000) {
        snprintf(b->err, sizeof b->err, "fs %s: restore: state %llu is unknown to the replayer",
                 b->cfg->name, (unsigned long long)sid);
        return -1;
    }
    if (replay_to(b, h->parent, depth + 1) < 0)
        return -1;
    op_exec(b->rootfd, &h->args, &r);
    return 0;
}

static int replay_hook(void *ctx, struct backend *b, uint64_t sid)
{
    (void)ctx;
    return replay_to(b, sid, 0);
}

/* ---- jobs ---- */

struct step_job {
    struct session *s;
    const struct op_args *args;  /* NULL: the initial state (prepopulate) */
    uint64_t from, to;
};

static int read_state(struct session *s, int i)
{
    struct backend *b = s->be[i];
    struct trace_outcome *o = &s->out[i];
    o->dlen = backend_read_back(b, &s->abs[i], o->digest, NULL);
    if (o->dlen < 0) {
        b->ops->end(b);
        return -1;
    }
    o->have = 1;
    return 0;
}

static int step_one(int i, void *ctx)
{
    struct step_job *j = ctx;
    struct session *s = j->s;
    if (i >= s->nfs)
        return 0;
    struct backend *b = s->be[i];
    struct trace_outcome *o = &s->out[i];
    struct op_result r = { 0, 0 };
    if (j->from != SESSION_NO_STATE && b->ops->restore(b, j->from) < 0)
        return -1;
    if (b->ops->begin(b) < 0)
        return -1;
    if (j->args)
        op_exec(b->rootfd, j->args, &r);
    else
        prepopulate_run(b->rootfd, s->plan, s->nplan);
    o->ret = r.ret;
    o->err = r.err;
    if (read_state(s, i) < 0)
        return -1;
    if (b->ops->end(b) < 0)
        return -1;
    return j->to != SESSION_NO_STATE ? b->ops->save(b, j->to) : 0;
}

static int setup_one(int i, void *ctx)
{
    struct session *s = ctx;
    if (i >= s->nfs)
        return 0;
    return s->be[i]->ops->setup(s->be[i]);
}

static int discard_one(int i, void *ctx)
{
    struct step_job *j = ctx;
    if (i < j->s->nfs)
        j->s->be[i]->ops->discard(j->s->be[i], j->to);
    return 0;
}

/* ---- session ---- */

static int init_abstraction(struct session *s)
{
    char msg[256];
    s->dlen = abstract_digest_len(s->cfg.run.hash);
    if (s->dlen <= 0)
        return serr(s, "unknown hash '%s'", s->cfg.run.hash);
    for (int i = 0; i < s->nfs; i++) {
        if (fs_abstract_opts(&s->cfg, i, &s->abs[i], s->exclude[i], sizeof s->exclude[i], msg,
                             sizeof msg) < 0)
            return serr(s, "%s", msg);
    }
    return 0;
}

/* The initial state is made by the engine's prepopulation plan for this config's pool. */
static int init_pool(struct session *s)
{
    struct input in;
    if (input_init(&in, &s->cfg, s->cfg.run.seed) < 0)
        return serr(s, "%s", "cannot build the name pool of the config");
    free(s->plan);
    int rc = prepopulate_plan(&s->cfg, &in.pool, &s->plan, &s->nplan);
    input_free(&in);
    return rc < 0 ? serr(s, "%s", "out of memory for the prepopulation plan") : 0;
}

static int open_backends(struct session *s)
{
    for (int i = 0; i < s->nfs; i++) {
        s->be[i] = backend_open(&s->cfg.fs[i], session_run_id(), "/tmp");
        if (!s->be[i])
            return serr(s, "cannot create the backend of fs %s", s->cfg.fs[i].name);
        s->be[i]->replay_fn = replay_hook;
        s->be[i]->replay_ctx = s;
        s->needs_history |= s->cfg.fs[i].type == FS_FUSE && s->cfg.fs[i].size == 0;
        if (s->cfg.fs[i].op_timeout > s->timeout)
            s->timeout = s->cfg.fs[i].op_timeout;
    }
    if (s->timeout <= 0)
        s->timeout = 30;
    return 0;
}

int session_start(struct session *s, const struct metis_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->nfs = cfg->nfs;
    nhist = 0;
    if (init_abstraction(s) < 0 || init_pool(s) < 0)
        return -1;
    if (!fsset_started && fsset_start(METIS_MAX_FS) < 0)
        return serr(s, "%s", "cannot start the file-system worker threads");
    fsset_started = 1;
    s->started = 1;
    if (open_backends(s) < 0)
        return -1;
    double setup_timeout = s->timeout > 120 ? s->timeout : 120;
    if (run_all(s, setup_one, s, "setup", setup_timeout) < 0)
        return -1;
    /* As the engine did before the run, so ENOSPC falls where it fell there. */
    struct free_counts fc[METIS_MAX_FS];
    if (equalize_backends(s->be, s->nfs, fc, s->fillers) < 0) {
        for (int i = 0; i < s->nfs; i++)
            if (s->be[i]->err[0])
                return serr(s, "%s", s->be[i]->err);
        return serr(s, "%s", "equalizing free space failed");
    }
    struct step_job j = { s, NULL, SESSION_NO_STATE, 0 };
    return run_all(s, step_one, &j, "initial state", s->timeout);
}

int session_step(struct session *s, const struct op_args *a, uint64_t from, uint64_t to)
{
    struct step_job j = { s, a, from, to };
    uint64_t parent = from == SESSION_NO_STATE ? s->live : from;
    if (to != SESSION_NO_STATE && s->needs_history && history_add(to, parent, a) < 0)
        return serr(s, "%s", "out of memory");
    if (run_all(s, step_one, &j, op_name(a->op), s->timeout) < 0)
        return -1;
    s->live = to;
    return 0;
}

void session_discard(struct session *s, uint64_t sid)
{
    struct step_job j = { s, NULL, SESSION_NO_STATE, sid };
    run_all(s, discard_one, &j, "discard", s->timeout);
}

struct import_job {
    struct session *s;
    const char *const *files;
    uint64_t sid;
};

static int import_one(int i, void *ctx)
{
    struct import_job *j = ctx;
    if (i >= j->s->nfs)
        return 0;
    struct backend *b = j->s->be[i];
    if (import_state(b, j->files[i], j->sid) < 0)
        return -1;
    if (b->ops->begin(b) < 0)
        return -1;
    j->s->out[i].ret = 0;
    j->s->out[i].err = 0;
    if (read_state(j->s, i) < 0)
        return -1;
    return b->ops->end(b);
}

int session_import(struct session *s, const char *const files[METIS_MAX_FS], uint64_t sid)
{
    struct import_job j = { s, files, sid };
    for (int i = 0; i < s->nfs; i++)
        if (!files[i])
            return serr(s, "fs %s: no exported state to import", s->cfg.fs[i].name);
    if (run_all(s, import_one, &j, "import", s->timeout) < 0)
        return -1;
    s->live = sid;
    return 0;
}

int session_compare(struct session *s, int initial)
{
    const struct trace_outcome *ref = &s->out[0];
    int n = 0;
    for (int i = 1; i < s->nfs; i++) {
        const struct trace_outcome *o = &s->out[i];
        unsigned d = 0;
        if (!initial && o->ret != ref->ret)
            d |= TRACE_DIFF_RET;
        if (!initial && o->err != ref->err && !fs_errno_equivalent(&s->cfg.fs[i], o->err, ref->err))
            d |= TRACE_DIFF_ERRNO;
        if (o->dlen != ref->dlen || memcmp(o->digest, ref->digest, (size_t)ref->dlen) != 0)
            d |= TRACE_DIFF_STATE;
        s->differs[i] = d;
        n += d != 0;
    }
    s->differs[0] = 0;
    return n;
}

void session_stop(struct session *s)
{
    for (int i = 0; i < s->nfs; i++)
        if (s->be[i]) {
            backend_close(s->be[i]);
            s->be[i] = NULL;
        }
    if (s->started)
        backend_sweep(session_run_id());
    s->started = 0;
}
