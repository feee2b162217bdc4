/* The engine inside pan: one search step on every file system, restores on backtrack, checks, stops. */
#include "driver.h"
#include "abstract.h"
#include "equalize.h"
#include "backend.h"
#include "config.h"
#include "engine.h"
#include "fsset.h"
#include "input.h"
#include "log.h"
#include "prepopulate.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

unsigned char metis_abs[METIS_MAX_FS * ABSTRACT_MAX_DIGEST];
uint64_t metis_sid;

static struct engine E;
static volatile sig_atomic_t stop_signal;

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void on_crash_signal(int sig)
{
    /* write(2) is async-signal-safe: keep what the log holds, then die as we would have. */
    log_flush();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGSEGV, on_crash_signal);
    signal(SIGBUS, on_crash_signal);
    signal(SIGABRT, on_crash_signal);
    signal(SIGFPE, on_crash_signal);
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &stops, NULL);   /* bin/metis blocked them until now */
}

/* ---- per-file-system jobs, run in parallel by fsset ---- */

struct step_job {
    const struct op_args *args;
    int restore;                 /* restore E.cur_sid first */
    uint64_t save_sid;
};

static int fs_restore_if(struct backend *b, int restore, uint64_t sid)
{
    return restore ? b->ops->restore(b, sid) : 0;
}

static int step_one(int i, void *ctx)
{
    struct step_job *j = ctx;
    struct backend *b = E.be[i];
    struct fs_outcome *o = &E.out[i];
    double t = now_seconds();
    if (fs_restore_if(b, j->restore, E.cur_sid) < 0 || b->ops->begin(b) < 0)
        return -1;
    double t_op = now_seconds();
    op_exec(b->rootfd, j->args, &o->res);
    double t_abs = now_seconds();
    o->dlen = backend_read_back(b, &E.abs[i], o->digest, NULL);
    double t_end = now_seconds();
    if (o->dlen < 0) {
        b->ops->end(b);
        return -1;
    }
    if (b->ops->end(b) < 0 || b->ops->save(b, j->save_sid) < 0)
        return -1;
    double t_done = now_seconds();
    o->t_prepare += t_op - t;
    o->t_op += t_abs - t_op;
    o->t_abstract += t_end - t_abs;
    o->t_finish += t_done - t_end;
    return 0;
}

static int discard_one(int i, void *ctx)
{
    const uint64_t *sid = ctx;
    E.be[i]->ops->discard(E.be[i], *sid);
    return 0;
}

void engine_infra_failure(const char *what)
{
    fprintf(stderr, "metis: infrastructure failure: %s\n", what);
    log_line("infra %s", what);
    engine_finish(STATUS_INFRA, what);
}

static void run_on_all(fsset_job job, void *ctx, const char *step)
{
    int late = -1;
    int rc = fsset_run(job, ctx, E.timeout, &late);
    char msg[1200];
    if (rc == 0)
        return;
    if (rc < 0)
        snprintf(msg, sizeof msg, "%s: %s timed out after %.0f s", E.be[late]->cfg->name, step,
                 E.timeout);
    else
        snprintf(msg, sizeof msg, "%s", E.be[rc - 1]->err[0] ? E.be[rc - 1]->err : step);
    engine_infra_failure(msg);
}

/* ---- search path: the states from the initial one to where SPIN is now ---- */

static void path_push(uint64_t sid, uint64_t seq, const struct op_args *a)
{
    if (E.depth == E.path_cap) {
        E.path_cap = E.path_cap ? 2 * E.path_cap : 1024;
        E.path = realloc(E.path, E.path_cap * sizeof *E.path);
        if (!E.path)
            engine_infra_failure("out of memory for the search path");
    }
    E.path[E.depth].sid = sid;
    E.path[E.depth].seq = seq;
    E.path[E.depth].op = NULL;
    if (E.needs_history && a) {
        char text[METIS_OP_LINE_MAX];
        op_format(a, text, sizeof text);
        if (!(E.path[E.depth].op = strdup(text)))
            engine_infra_failure("out of memory for the search path");
    }
    E.depth++;
}

/* SPIN went back to state sid: every state above it on the path is gone for good. */
static void path_unwind_to(uint64_t sid)
{
    while (E.depth > 0 && E.path[E.depth - 1].sid != sid) {
        uint64_t gone = E.path[--E.depth].sid;
        free(E.path[E.depth].op);
        run_on_all(discard_one, &gone, "discard");
    }
    if (E.depth == 0)
        engine_infra_failure("SPIN returned to a state that is not on the search path");
}

/* ---- the step ---- */

static void stop_if_done(double now)
{
    if (stop_signal)
        engine_finish(STATUS_INTERRUPTED, strsignal(stop_signal));
    if (E.cfg.run.ops && E.ops >= E.cfg.run.ops)
        engine_finish(E.discrepancies ? STATUS_DISCREPANCY : STATUS_OK, "operation limit");
    if (E.cfg.run.seconds > 0 && now - E.t_start >= E.cfg.run.seconds)
        engine_finish(E.discrepancies ? STATUS_DISCREPANCY : STATUS_OK, "time limit");
}

static void log_step(const struct op_args *a, uint64_t from, uint64_t to, long depth)
{
    char text[2 * METIS_PATH_MAX + 512], hex[2 * ABSTRACT_MAX_DIGEST + 1];
    op_format(a, text, sizeof text);
    log_line("op %llu depth=%ld from=%llu %s", (unsigned long long)E.ops, depth,
             (unsigned long long)from, text);
    for (int i = 0; i < E.nfs; i++) {
        hex_encode(E.out[i].digest, (size_t)E.out[i].dlen, hex);
        log_line("res %llu %s ret=%ld errno=%s state=%s", (unsigned long long)E.ops,
                 E.cfg.fs[i].name, E.out[i].res.ret, errno_name(E.out[i].res.err), hex);
    }
    log_line("save %llu sid=%llu", (unsigned long long)E.ops, (unsigned long long)to);
}

static void track_state(uint64_t sid)
{
    for (int i = 0; i < E.nfs; i++)
        memcpy(metis_abs + (size_t)i * E.dlen, E.out[i].digest, (size_t)E.dlen);
    metis_sid = sid;
    E.live_sid = sid;
}

void metis_step(int op, double stored, double matched, long depth)
{
    double now = now_seconds();
    E.stored = stored;
    E.matched = matched;
    if (depth > E.max_depth_seen)
        E.max_depth_seen = depth;
    stop_if_done(now);
    struct step_job job = {.args = &E.args, .restore = metis_sid != E.live_sid};
    if (job.restore) {
        path_unwind_to(metis_sid);
        E.restores++;
        log_line("restore sid=%llu", (unsigned long long)metis_sid);
    }
    E.cur_sid = metis_sid;
    op_draw((enum op_id)op, &E.in, &E.args);
    job.save_sid = E.next_sid++;
    E.ops++;
    run_on_all(step_one, &job, op_name(op));
    reach_count(&E.reach, (enum op_id)op, &E.out[0].res);
    log_step(&E.args, E.cur_sid, job.save_sid, depth);
    path_push(job.save_sid, E.ops, &E.args);
    track_state(job.save_sid);
    if (engine_compare(&E.args))
        engine_report_discrepancy(&E.args);
    progress_tick(now);
    log_tick(now);
}

/* ---- start ---- */

static int setup_one(int i, void *ctx)
{
    struct backend *b = E.be[i];
    return b->ops->setup(b);
}

static int initial_one(int i, void *ctx)
{
    struct backend *b = E.be[i];
    struct fs_outcome *o = &E.out[i];
    if (b->ops->begin(b) < 0)
        return -1;
    prepopulate_run(b->rootfd, E.plan, E.nplan);
    o->dlen = backend_read_back(b, &E.abs[i], o->digest, NULL);
    if (o->dlen < 0) {
        b->ops->end(b);
        return -1;
    }
    return b->ops->end(b) < 0 || b->ops->save(b, 0) < 0 ? -1 : 0;
}

/* ---- equal free inodes and space on every file system ---- */

static void equalize_free_space(void)
{
    struct free_counts fc[METIS_MAX_FS];
    if (equalize_backends(E.be, E.nfs, fc, E.fillers) < 0) {
        for (int i = 0; i < E.nfs; i++)
            if (E.be[i]->err[0])
                engine_infra_failure(E.be[i]->err);
        engine_infra_failure("equalizing free space failed");
    }
    for (int i = 0; i < E.nfs; i++) {
        log_line("free %s inodes=%llu bytes=%llu", E.cfg.fs[i].name,
                 (unsigned long long)fc[i].inodes, (unsigned long long)fc[i].bytes);
        if (fc[i].inodes != fc[0].inodes && fc[i].inodes != UINT64_MAX && fc[0].inodes != UINT64_MAX)
            fprintf(stderr, "metis: warning: free inodes differ (%s %llu, %s %llu): inode "
                    "exhaustion would give ENOSPC at different points; size them alike "
                    "(configs/README.md)\n", E.cfg.fs[0].name, (unsigned long long)fc[0].inodes,
                    E.cfg.fs[i].name, (unsigned long long)fc[i].inodes);
    }
}

/* A backend with no snapshots (fuse without an image) was remounted fresh: rebuild state sid,
 * which is on the search path, from the initial state's making and the path's operations. */
static int replay_search_path(void *ctx, struct backend *b, uint64_t sid)
{
    int i = (int)(long)ctx;
    struct op_args a;
    struct op_result r;
    char err[256];
    if (equalize_replay(b->rootfd, &E.fillers[i]) < 0)
        return -1;
    prepopulate_run(b->rootfd, E.plan, E.nplan);
    for (size_t k = 1; k < E.depth && E.path[k - 1].sid != sid; k++) {
        if (op_parse(E.path[k].op, &a, err, sizeof err) < 0) {
            snprintf(b->err, sizeof b->err, "%s: replaying '%s': %s", b->cfg->name,
                     E.path[k].op, err);
            return -1;
        }
        op_exec(b->rootfd, &a, &r);
    }
    return 0;
}

static void hook_replay(void)
{
    for (int i = 0; i < E.nfs; i++) {
        E.be[i]->replay_fn = replay_search_path;
        E.be[i]->replay_ctx = (void *)(long)i;
        E.needs_history |= E.cfg.fs[i].type == FS_FUSE && E.cfg.fs[i].size == 0;
    }
}

/* A RefFS worker is pinned to one CPU with its daemon (backend_reffs.c). With no other file
 * system, handing it each step from that CPU too saves two cross-CPU wake-ups per step
 * (reffs-only 3,690-3,950 ops/s against 2,750-2,800). With others the main thread stays free:
 * ref-vs-ext4 gained nothing (424 against 423 ops/s, medians of 3), and VTs of a swarm that
 * pinned their RefFS to the same CPU would crowd it further. */
static void join_reffs_cpu(void)
{
    if (E.nfs == 1 && E.cfg.fs[0].type == FS_REFFS)
        fsset_join_cpu(0);
}

void metis_start(void)
{
    install_signals();
    /* Modes are drawn whole: the invoking shell's umask must not filter them. */
    umask(0);
    engine_init(&E);
    if (prepopulate_plan(&E.cfg, &E.in.pool, &E.plan, &E.nplan) < 0)
        engine_infra_failure("out of memory for the prepopulation plan");
    hook_replay();
    if (fsset_start(E.nfs) < 0)
        engine_infra_failure("cannot start the file-system worker threads");
    run_on_all(setup_one, NULL, "setup");
    join_reffs_cpu();
    equalize_free_space();
    run_on_all(initial_one, NULL, "initial state");
    path_push(0, 0, NULL);
    track_state(0);
    E.next_sid = 1;
    char hex[2 * ABSTRACT_MAX_DIGEST + 1];
    for (int i = 0; i < E.nfs; i++) {
        hex_encode(E.out[i].digest, (size_t)E.out[i].dlen, hex);
        log_line("init %s sid=0 state=%s", E.cfg.fs[i].name, hex);
    }
    E.t_start = now_seconds();
    E.last_progress = E.t_start;
    if (engine_compare(NULL))
        engine_report_discrepancy(NULL);
}

struct engine *engine_get(void)
{
    return &E;
}
