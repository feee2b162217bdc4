/* The engine inside pan: its entry points, the one engine instance, signals, and when a run stops. */
#include "engine/search/driver.h"
#include "engine/run/engine.h"
#include "engine/run/known_delta.h"
#include "engine/run/cache_recheck.h"
#include "engine/run/searches.h"
#include "engine/records/log.h"
#include "engine/search/dive.h"
#include "engine/search/revisits.h"
#include "engine/search/random_walk.h"
#include "engine/search/bounded.h"
#include "engine/fault/fault_plan.h"
#include "engine/run/together_run.h"
#include "backend/base/runlock.h"
#include "lib/system/signals.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned char metis_abs[METIS_MAX_FS * TREE_MAX_DIGEST];
uint64_t metis_sid;
uint32_t metis_round;

/* pan calls metis_step without a context: this is the one place the engine lives. */
static struct engine E;
static struct dive dive;         /* [run] dive: SPIN's dives and climbs */
static struct revisits revisits; /* [run] revisits: rounds of a state reached again */
static struct fault_plan faults; /* [run] faults: which steps are fault steps */
static int last_leaf;            /* the last step's trees differed: nothing below it is searched */
static volatile sig_atomic_t stop_signal;
static int run_lock = -1;   /* the run's lock (backend/runlock.h), held while pan lives */
static struct together_set together_calls;   /* a concurrent step's ([run] together) */
static struct bounded bounded;   /* search = bounded: its transitions and the states met */
static FILE *state_log;          /* METIS_STATE_LOG: every state a step made, for measurements */
static int bounded_on;

/* METIS_STEP_PROFILE=1: where a step's time goes, on stderr at the end (tests/bench/README.md).
 * A clock read per part costs ~30 ns: cheap enough to be always compiled in. */
enum { PROF_SPIN, PROF_UNWIND, PROF_DRAW, PROF_STEP, PROF_COUNT_, PROF_LOG, PROF_PATH,
       PROF_COMPARE, PROF_TICK, PROF_N };
static const char *const prof_names[PROF_N] = { "spin", "unwind", "draw", "fsgroup_step",
                                                "counters", "log", "path_view", "compare",
                                                "progress" };
static struct {
    int on;
    double t[PROF_N], last, mark;
    unsigned long long steps;
} prof;

static void prof_mark(int part)
{
    if (!prof.on)
        return;
    double now = now_seconds();
    prof.t[part] += now - prof.mark;
    prof.mark = now;
}

/* METIS_TEST_STEP_BUSY_US=N, a test hook: every step spends N more microseconds of CPU, so
 * that make bench's guard can be shown to flag a slower step (tests/bench/README.md). Busy,
 * not asleep: the guard holds CPU time per operation, which a sleep would not change. */
static double test_step_busy_s;

static void test_step_busy(void)
{
    /* Off (the hook unset) it must cost a step nothing: no clock read. */
    if (test_step_busy_s <= 0)
        return;
    double until = now_seconds() + test_step_busy_s;
    while (now_seconds() < until)
        ;
}

static void prof_print(void)
{
    if (!prof.on || !prof.steps)
        return;
    double n = (double)prof.steps, sum = 0;
    fprintf(stderr, "metis: step profile over %llu steps (us per step):", prof.steps);
    for (int k = 0; k < PROF_N; k++) {
        fprintf(stderr, " %s=%.1f", prof_names[k], prof.t[k] / n * 1e6);
        sum += prof.t[k];
    }
    for (int i = 0; i < E.g.nfs; i++) {
        const struct fs_outcome *o = &E.g.out[i];
        fprintf(stderr, " %s:{restore+begin=%.1f op=%.1f readback=%.1f end+save=%.1f}",
                E.cfg.fs[i].name, o->t_prepare / n * 1e6, o->t_op / n * 1e6,
                o->t_abstract / n * 1e6, o->t_finish / n * 1e6);
    }
    fprintf(stderr, " total=%.1f\n", sum / n * 1e6);
}

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void on_crash_signal(int sig)
{
    /* write(2) is async-signal-safe: keep what the log holds, then die as we would have. */
    log_flush();
    signals_die(sig);
}

static void install_signals(void)
{
    signals_on_stop(on_stop_signal);
    signals_on_crash(on_crash_signal);
    signals_release_stops();   /* bin/metis started us with them held (SPAWN_HOLD_STOPS) */
}

/* The run's lock is let go of after the teardown: pan may be the run's last process (its
 * front end was killed), and then nothing of the run may stay behind it. */
static void close_engine(enum metis_exit st, const char *reason)
{
    engine_close(&E, st, reason);
    runlock_release(run_lock, E.run_id);
    run_lock = -1;
    if (state_log)
        fclose(state_log);
    state_log = NULL;
}

static void __attribute__((noreturn)) finish(enum metis_exit st, const char *reason)
{
    if (E.finished)
        _exit(st);
    prof_print();
    close_engine(st, reason);
    _exit(st);
}

/* Exit 1 when any search of the run found a discrepancy, not only this one. */
static enum metis_exit verdict(void)
{
    return E.discrepancies || E.search.prior.discrepancies ? METIS_EXIT_DISCREPANCY
                                                           : METIS_EXIT_OK;
}

static void __attribute__((noreturn)) infra_failure(const char *what)
{
    fprintf(stderr, "metis: infrastructure failure: %s\n", what);
    log_line("infra %s", what);
    finish(METIS_EXIT_INFRA, what);
}

/* The rule that keeps a run whose target keeps failing from spinning (searches.h). */
static void stop_if_target_keeps_failing(int fs, enum target_failure k, uint64_t ops_done)
{
    char sig[160];
    snprintf(sig, sizeof sig, "%s %s", target_failure_name(k), E.cfg.fs[fs].name);
    if (!search_note_failure(&E.search, sig, ops_done))
        return;
    fprintf(stderr, "metis: fs %s: %s %d times in a row, set up afresh each time and failing "
            "again before any operation was done: the run stops\n", E.cfg.fs[fs].name,
            target_failure_name(k), SEARCH_FAIL_LIMIT);
    finish(METIS_EXIT_DISCREPANCY, "the target keeps failing");
}

/* The target failed (its class is recorded) and cannot be brought back: its FUSE connection
 * stays busy after its daemon was killed. The run ends on what it found, exit 1. */
static void __attribute__((noreturn)) cannot_bring_back(int fs)
{
    fprintf(stderr, "metis: fs %s cannot be brought back (%s): the run stops\n",
            E.cfg.fs[fs].name, E.g.err);
    log_line("target-lost %s", E.cfg.fs[fs].name);
    finish(METIS_EXIT_DISCREPANCY, "the target cannot be brought back");
}

/* A target failed (died, hung, or could not bring a state back): a finding, recorded as a
 * class of its own. The run goes on as a new search, in which every fs is set up afresh: the
 * simplest sound way back to a target that works and a reference at the initial state. */
static void __attribute__((noreturn)) survive(int fs, enum target_failure k,
                                              const struct op_args *a, uint64_t state,
                                              uint64_t ops_done)
{
    engine_report_target_failure(&E, fs, k, a, state);
    if (fsgroup_recover(&E.g, fs, k) < 0)
        cannot_bring_back(fs);
    stop_if_target_keeps_failing(fs, k, ops_done);
    if (E.t_start == 0) {        /* failed before the search began: its budget starts now */
        E.t_start = now_seconds();
        search_begin(&E);
    }
    if (stop_signal)
        finish(METIS_EXIT_STOPPED, strsignal(stop_signal));
    if (!E.cfg.run.keep_going || !search_should_restart(&E, now_seconds()))
        finish(METIS_EXIT_DISCREPANCY, "target failure");
    fprintf(stderr, "metis: search %d ends after %llu operations (fs %s: %s); every fs is set "
            "up afresh and search %d follows with seed %llu\n", E.search.index,
            (unsigned long long)E.ops, E.cfg.fs[fs].name, target_failure_name(k),
            E.search.index + 1,
            (unsigned long long)search_seed(E.search.base_seed, E.search.index + 1));
    E.search.restarting = 1;
    close_engine(METIS_EXIT_DISCREPANCY, "target failure");
    _exit(METIS_EXIT_RESTART);
}

/* A step, restore or discard failed from state: a target's failure survives (survive),
 * anything else is Metis's own. ops_done: this search's operations that completed. */
static void __attribute__((noreturn)) step_failed(const struct op_args *a, uint64_t state,
                                                  uint64_t ops_done)
{
    int fs;
    enum target_failure k = fsgroup_target_failure(&E.g, &fs);
    if (k == TF_NONE)
        infra_failure(E.g.err);
    survive(fs, k, a, state, ops_done);
}

/* Ends this pan so that the front end starts the next search (searches.c). */
static void __attribute__((noreturn)) next_search(enum metis_exit st, const char *reason)
{
    E.search.restarting = 1;
    close_engine(st, reason);
    _exit(METIS_EXIT_RESTART);
}

/* A bounded search's budget: the run's operations and seconds, when it has them. */
static int budget_left(double now)
{
    const struct run_config *r = &E.cfg.run;
    return !(r->ops && E.ops >= r->ops) && !(r->seconds > 0 && now - E.t_start >= r->seconds);
}

/* SPIN checked every state within this search's depth: the run goes one depth deeper, or its
 * verdict is complete, or its budget is spent. */
static void __attribute__((noreturn)) bounded_depth_done(enum metis_exit st)
{
    const struct bounded_progress *p = bounded.p;
    bounded_search_done(&bounded, E.ops);
    if (bounded_write_states(&bounded, E.out_dir) < 0)
        fprintf(stderr, "metis: %s/%s: cannot write it: %s\n", E.out_dir, BOUNDED_STATES_FILE,
                strerror(errno));
    if (!bounded_needs_deeper(&bounded))
        finish(st, "bounded search complete");
    if (stop_signal || !budget_left(now_seconds()))
        finish(st, stop_signal ? strsignal(stop_signal) : "budget spent");
    fprintf(stderr, "metis: depth %ld: %llu states, each left by %llu transitions; depth %ld "
            "follows\n", p->done, (unsigned long long)p->states,
            (unsigned long long)p->per_state, p->done + 1);
    next_search(st, "search complete");
}

/* pan exits when SPIN has explored every state it could reach: with budget left, the front
 * end starts the next search; a first search this short is worth a warning. */
static void finish_at_exit(void)
{
    if (E.finished)
        return;
    enum metis_exit st = verdict();
    E.search.completed = 1;
    if (bounded_on)
        bounded_depth_done(st);
    if (E.search.index == 1 && E.ops < 100)
        search_warn(&E, stderr);
    if (stop_signal || !search_should_restart(&E, now_seconds())) {
        if (E.cfg.run.ops && E.ops < E.cfg.run.ops && E.search.index == 1)
            fprintf(stderr, "metis: SPIN explored every state it could reach after %llu "
                    "operations: raise the operation weights ([ops]) or [pool] prepopulate for a "
                    "wider search\n", (unsigned long long)E.ops);
        finish(st, "search complete");
    }
    if (!E.cfg.run.search_ops)     /* short searches are the config's choice: no line each */
        fprintf(stderr, "metis: search %d explored every state it could reach after %llu "
                "operations; search %d follows with seed %llu\n", E.search.index,
                (unsigned long long)E.ops, E.search.index + 1,
                (unsigned long long)search_seed(E.search.base_seed, E.search.index + 1));
    next_search(st, "search complete");
}

/* Without [run] search_ops, a search on a target whose states come back logically or by a
 * replay (a {dir}-backed daemon without snapshots: history_target) ends after this many
 * operations: a
 * class's trace is what the target ran since its last fresh mount, and a first run's single
 * search of two minutes left histories of 10,000 to 70,000 steps that no shrink could replay
 * once in its share (archivemount, encfs, disorderfs). Searches of 1,000 also found the
 * mutations sooner than searches of 3,000 (README, "Searches of a length"). */
#define HISTORY_SEARCH_OPS 1000
/* ... but only once the search has run this many times as long as its set-up: a fresh set-up
 * costs at most a tenth of the time (a cryfs mount takes 16 to 37 s). */
#define HISTORY_SETUP_TIMES 10.0

/* A target whose states come back logically or by replay, over {dir} directories that Metis
 * makes empty for each set-up: a daemon over a directory of the config's own (bindfs over a
 * fixed path) would start the next search on what the last one left there. */
static int history_target(void)
{
    for (int i = 0; i < E.g.nfs; i++)
        if (E.g.be[i] && E.g.be[i]->history_restores && E.cfg.fs[i].dir_backed)
            return 1;
    return 0;
}

/* Whether this search ends at HISTORY_SEARCH_OPS: decided once, after set-up, since the length
 * is asked after every operation. */
static int history_length_on;

/* This search's length in operations: [run] search_ops, else HISTORY_SEARCH_OPS on a history
 * target once its set-up is paid for, else none (0). */
static uint64_t search_length(double now)
{
    if (E.cfg.run.search_ops)
        return E.cfg.run.search_ops;
    if (!history_length_on || now - E.search.t_began < HISTORY_SETUP_TIMES * E.search.setup_s)
        return 0;
    return HISTORY_SEARCH_OPS;
}

/* A search of its length (search_length) ends and the next one, with the next derived seed
 * (and so its own [vary] variants), starts from fresh file systems. */
static void end_search_at_its_length(double now)
{
    uint64_t length = search_length(now);
    if (!length || E.ops < length || stop_signal || !search_should_restart(&E, now))
        return;
    if (!E.cfg.run.search_ops && E.search.prior.history_length == 0)
        fprintf(stderr, "metis: search %d ends after %llu operations: a target without "
                "snapshots has a class's trace in what it ran since its last fresh mount, so "
                "searches of %d operations keep traces short to shrink ([run] search_ops sets "
                "another length); search %d follows with seed %llu\n", E.search.index,
                (unsigned long long)E.ops, HISTORY_SEARCH_OPS, E.search.index + 1,
                (unsigned long long)search_seed(E.search.base_seed, E.search.index + 1));
    E.search.history_length = !E.cfg.run.search_ops;
    next_search(verdict(), "search operation limit");
}

/* Every state on SPIN's stack keeps its saved images, so a deep search over large images can
 * outgrow the machine; a run the OOM killer ends leaves no summary, one that ends here does. */
static uint64_t memory_limit(void)
{
    if (E.cfg.run.max_memory)
        return E.cfg.run.max_memory;
    return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 2;
}

static uint64_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, pages = 0;
    int got = f && fscanf(f, "%llu %llu", &size, &pages) == 2;
    if (f)
        fclose(f);
    return got ? pages * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static void stop_if_out_of_memory(double now)
{
    static double checked;
    if (now - checked < 1.0)
        return;
    checked = now;
    uint64_t have = resident_bytes(), limit = memory_limit();
    if (have <= limit)
        return;
    fprintf(stderr, "metis: resident memory %llu MiB passed max_memory (%llu MiB) at operation "
            "%llu, depth %ld: the run ends here; a lower [run] max_depth keeps fewer saved "
            "states\n", (unsigned long long)(have >> 20), (unsigned long long)(limit >> 20),
            (unsigned long long)E.ops, E.max_depth_seen);
    finish(verdict(), "memory limit");
}

static void stop_if_done(double now)
{
    if (stop_signal)
        finish(METIS_EXIT_STOPPED, strsignal(stop_signal));
    if (E.cfg.run.ops && E.ops >= E.cfg.run.ops)
        finish(verdict(), "operation limit");
    if (E.cfg.run.seconds > 0 && now - E.t_start >= E.cfg.run.seconds)
        finish(verdict(), "time limit");
    stop_if_out_of_memory(now);
    end_search_at_its_length(now);
}

/* A fault step's check of each fs: what was armed, what the device saw, what it showed. */
static void log_faults(void)
{
    char armed[200], found[64];
    for (int i = 0; i < E.g.nfs; i++) {
        const struct fault_result *r = &E.g.out[i].fault;
        if (!r->checked)
            continue;
        fault_arm_command(&r->spec, armed, sizeof armed);
        fault_found_list(r->kinds, found, sizeof found);
        log_line("faulted %llu %s armed=%s reads=%llu writes=%llu failed=%llu lost=%llu "
                 "ret=%ld errno=%s sync=%s state=%s found=%s%s%s", (unsigned long long)E.ops,
                 E.cfg.fs[i].name, strchr(armed, ' ') + 1, (unsigned long long)r->seen.reads, (unsigned long long)r->seen.writes,
                 (unsigned long long)r->seen.failed, (unsigned long long)r->seen.lost, r->res.ret,
                 errno_name(r->res.err), errno_name(r->sync_err), r->state, found,
                 r->detail[0] ? " detail=" : "", r->detail);
        fault_plan_learn(&faults, E.args.op, r->seen.reads, r->seen.writes);
    }
}

/* "CHECKED/ALL distinct=RECOVERED": the crash states of a recorded stream checked, of those
 * it makes, and how many of the checked were recovered (the others byte-identical to one). */
static const char *states_text(const struct crash_result *c, char *out)
{
    snprintf(out, 64, "%u/%u distinct=%u", c->states_checked, c->states, c->states_distinct);
    return out;
}

static void log_step(const struct op_args *a, const struct fault_spec *fault, uint64_t from,
                     uint64_t to, long depth)
{
    char text[2 * METIS_PATH_MAX + 512], hex[2 * TREE_MAX_DIGEST + 1], states[64];
    op_format(a, text, sizeof text);
    log_line("op %llu depth=%ld from=%llu %s", (unsigned long long)E.ops, depth,
             (unsigned long long)from, text);
    if (fault->on)
        log_line("fault %llu kind=%s at=%llu", (unsigned long long)E.ops,
                 fault_kind_name(fault->kind), (unsigned long long)fault->at);
    for (int i = 0; i < E.g.nfs; i++) {
        hex_encode(E.g.out[i].digest, (size_t)E.g.out[i].dlen, hex);
        log_line("res %llu %s ret=%ld errno=%s state=%s", (unsigned long long)E.ops,
                 E.cfg.fs[i].name, E.g.out[i].res.ret, errno_name(E.g.out[i].res.err), hex);
    }
    for (int i = 0; i < E.g.nfs; i++) {
        const struct crash_result *c = &E.g.out[i].crash;
        if (c->checked)
            log_line("crash %llu %s sync=%s recovered=%s%s%s%s%s", (unsigned long long)E.ops,
                     E.cfg.fs[i].name, c->synced, crash_kind_name(c->kinds),
                     c->states ? " states=" : "", c->states ? states_text(c, states) : "",
                     c->detail[0] ? " detail=" : "", c->detail);
    }
    log_faults();
    log_line("save %llu sid=%llu", (unsigned long long)E.ops, (unsigned long long)to);
}

/* The reference's tree of the state just made, kept beside its search-path entry: draws at
 * that state (now, or after SPIN comes back to it) choose their paths from it. */
static void track_view(void)
{
    struct tree_view *v = view_make(&E.g.tree);
    view_stack_truncate(&E.views, E.depth ? E.depth - 1 : 0);
    if (!v || view_stack_push(&E.views, v) < 0)
        infra_failure("out of memory for the search path's trees");
}

/* What SPIN matches fs i's state on: its digest, or with [run] symmetry = names the digest
 * of its tree up to renaming pool names of one kind. The comparison between the file systems
 * is the step's, over the real trees; only the key that merges states is canonical. */
static void track_key(int i)
{
    unsigned char *key = metis_abs + (size_t)i * E.g.dlen;
    if (!bounded_on || !bounded.p->symmetric) {
        memcpy(key, E.g.out[i].digest, (size_t)E.g.dlen);
        return;
    }
    if (E.g.out[i].canon_len != E.g.dlen)
        infra_failure("symmetry = names: no canonical key for a file system's tree");
    memcpy(key, E.g.out[i].canon, (size_t)E.g.dlen);
}

/* A leaf keeps the digests SPIN tracks for the state the step started from: SPIN then finds
 * the new state already stored and backtracks, so nothing below it is explored. */
static void track_state(uint64_t sid, int leaf)
{
    for (int i = 0; i < E.g.nfs && !leaf; i++)
        track_key(i);
    if (!leaf)
        metis_round = revisits_round(&revisits, metis_abs, (size_t)E.g.nfs * (size_t)E.g.dlen);
    metis_sid = sid;
    E.live_sid = sid;
    last_leaf = leaf;
}

static int count_differing(void)
{
    int n = 0;
    for (int i = 0; i < E.g.nfs; i++)
        n += E.g.out[i].differs != 0;
    return n;
}

/* A kept fs whose remount check failed now holds what its device had, not the state the step
 * made: nothing below it is that state. */
static int remount_differed(void)
{
    for (int i = 0; i < E.g.nfs; i++)
        if (E.g.out[i].differs & DIFF_REMOUNT)
            return 1;
    return 0;
}

/* Reports a discrepancy of the last step; returns 1 when the step is a leaf: the trees differ
 * in more than the attributes of entries both have (a difference in attributes alone becomes
 * the path's known delta, and the search goes on below it, comparing everything else). */
static int report_if_differs(const struct op_args *a)
{
    if (!fsgroup_compare(&E.g, a == NULL))
        return 0;
    int leaf = a ? known_delta_judge(&E) : 1;
    if (leaf < 0 || cache_recheck(&E, a, &leaf) < 0)
        step_failed(a, E.cur_sid, E.ops);
    leaf |= remount_differed();
    if (!count_differing())
        return 0;
    if (fsgroup_save_live(&E.g) < 0)     /* the report exports the path's saved states */
        step_failed(a, E.cur_sid, E.ops);
    engine_report_discrepancy(&E, a);
    /* A hit of a known class is no reason to stop: the search goes on for new ones. */
    if (!E.cfg.run.keep_going && (E.step_unknown || !a))
        finish(METIS_EXIT_DISCREPANCY, "discrepancy");
    if (!a) {
        fprintf(stderr, "metis: the initial states differ, so would every state below them: "
                "stopping (make the file systems agree first: exclude, ignore, sizes)\n");
        finish(METIS_EXIT_DISCREPANCY, "initial states differ");
    }
    return leaf;
}

/* The state a step made goes on the search path, with the reference's tree of it. */
static void push_path(uint64_t to)
{
    if (engine_path_push(&E, to, E.ops) < 0)
        infra_failure(E.g.err);
    track_view();
}

/* One operation on every fs: what a branch of the model stands for. Returns 1 for a leaf. */
static int single_step(const struct fault_spec *fault, uint64_t from, uint64_t to, long depth)
{
    E.g.keep_listings = known_delta_below(&E);
    int stepped = fsgroup_step(&E.g, &E.args, fault, from, to);
    engine_log_history(&E, E.ops);
    if (stepped < 0)
        step_failed(&E.args, E.cur_sid, E.ops - 1);
    prof_mark(PROF_STEP);
    for (int i = 0; i < E.g.nfs; i++)
        reach_count(&E.reach, i, E.cfg.fs[i].name, &E.args, &E.g.out[i].res, E.g.out[i].skipped);
    input_count_result(&E.in, E.g.out[0].res.err);
    search_note(&E.search, E.cur_sid, E.g.out[0].res.err);
    prof_mark(PROF_COUNT_);
    log_step(&E.args, fault, E.cur_sid, to, depth);
    prof_mark(PROF_LOG);
    push_path(to);
    prof_mark(PROF_PATH);
    return report_if_differs(&E.args);
}

/* Several operations at once (together_run.h). A step no serial order explains is a leaf and
 * a discrepancy; one whose file systems took different orders is a leaf alone. */
static int together_step(uint64_t from, uint64_t to, long depth)
{
    static struct concurrent_verdict v;
    if (together_run(&E, &together_calls, from, to, depth, &v) < 0)
        step_failed(&E.args, E.cur_sid, E.ops - 1);
    prof_mark(PROF_STEP);
    push_path(to);
    if (!v.failed)
        return v.diverged;
    if (fsgroup_save_live(&E.g) < 0)     /* the report exports the path's saved states */
        step_failed(&E.args, E.cur_sid, E.ops);
    together_report(&E, &together_calls, &v);
    if (!E.cfg.run.keep_going && E.step_unknown)
        finish(METIS_EXIT_DISCREPANCY, "discrepancy");
    return 1;
}

/* No known delta where the search is: a concurrent step's trees must equal a serial order's
 * on the reference, which a known difference in attributes would never let them. */
static int trees_alike(void)
{
    for (int i = 1; i < E.g.nfs; i++)
        if (E.depth && known_delta_at(&E, E.depth - 1, i))
            return 0;
    return 1;
}

/* A step's arguments: op's draw, or transition t's (t >= 0, search = bounded). */
static void step_args(int op, long t)
{
    if (t >= 0)
        transition_args(&bounded.tt, (size_t)t, &E.in, &E.args);
    else
        op_draw((enum op_id)op, &E.in, &E.args);
    /* METIS_STATE_LOG: a drawn write's data as a bounded search's, so that the states a walk
     * meets can be the bounded run's (the draw is made as always, its data replaced after). */
    if (t < 0 && state_log && (op_desc_of(E.args.op)->fields & OPF_SEED))
        E.args.data_seed = transitions_data_seed(&E.args);
}

/* The state a bounded search's step made is one it met (a leaf's is not: its trees differ). */
static void note_bounded_state(long t, long depth)
{
    /* Any search's states, in step order, raw: how soon a walk meets a bounded run's states
     * (tests/bench/checks/bounded_coverage.sh). */
    if (state_log && !last_leaf)
        fwrite(metis_abs, 1, (size_t)E.g.nfs * (size_t)E.g.dlen, state_log);
    if (t >= 0 && !last_leaf && bounded_note(&bounded, metis_abs, depth) < 0)
        infra_failure("out of memory for the states met");
}

static void step(int op, long t, double stored, double matched, long depth)
{
    double now = now_seconds();
    if (prof.on) {
        prof.mark = now;
        prof.t[PROF_SPIN] += prof.last ? now - prof.last : 0;
        prof.steps++;
    }
    E.stored = stored;
    E.matched = matched;
    if (depth > E.max_depth_seen)
        E.max_depth_seen = depth;
    stop_if_done(now);
    if (dive_cut(&dive, depth) ||
        (t >= 0 && bounded_cut(&bounded, t, depth, metis_abs, metis_sid)))
        return;
    /* The live state differs from the one SPIN tracks: it backtracked. */
    uint64_t from = metis_sid != E.live_sid ? metis_sid : STEP_NO_STATE;
    if (from != STEP_NO_STATE) {
        if (engine_path_unwind_to(&E, metis_sid) < 0)
            step_failed(NULL, metis_sid, E.ops);
        view_stack_truncate(&E.views, E.depth);
        E.restores++;
        log_line("restore sid=%llu", (unsigned long long)metis_sid);
    }
    prof_mark(PROF_UNWIND);
    E.cur_sid = metis_sid;
    E.in.view = view_stack_top(&E.views);
    step_args(op, t);
    int together = trees_alike() && together_draw(&E.in, &E.args, &together_calls);
    uint64_t to = E.next_sid++;
    E.ops++;
    E.g.live = E.cur_sid;
    struct fault_spec fault = { 0 };   /* a concurrent step is no fault step */
    if (!together)
        fault_plan_draw(&faults, E.args.op, &fault);
    prof_mark(PROF_DRAW);
    int leaf = together ? together_step(from, to, depth) : single_step(&fault, from, to, depth);
    track_state(to, leaf);
    note_bounded_state(t, depth);
    test_step_busy();
    prof_mark(PROF_COMPARE);
    progress_tick(&E, now);
    log_tick(now);
    prof_mark(PROF_TICK);
    prof.last = prof.mark;
}

void metis_step(int op, double stored, double matched, long depth)
{
    step(op, -1, stored, matched, depth);
}

void metis_step_bounded(int t, double stored, double matched, long depth)
{
    if ((size_t)t >= bounded.tt.n)   /* a grouped table's last group has fewer members */
        return;
    step(-1, t, stored, matched, depth);
}

/* search = bounded: the table the model's branches index, made as the front end made it. */
static void start_bounded(void)
{
    bounded_on = search_kind_parse(E.cfg.run.search) == SEARCH_BOUNDED;
    if (bounded_on && bounded_init(&bounded, &E) < 0) {
        fprintf(stderr, "metis: %s\n", E.err);
        exit(METIS_EXIT_BAD_INPUT);
    }
    if (bounded_on && bounded.p->symmetric)
        E.g.canon = &bounded.kinds;   /* from the initial state's read-back on */
}

void metis_start(void)
{
    double t_setup = now_seconds();   /* the search's set-up: loading, carry, mounts */
    install_signals();
    prof.on = getenv("METIS_STEP_PROFILE") && atoi(getenv("METIS_STEP_PROFILE")) > 0;
    if (getenv("METIS_TEST_STEP_BUSY_US"))
        test_step_busy_s = atof(getenv("METIS_TEST_STEP_BUSY_US")) / 1e6;
    /* Modes are drawn whole: the invoking shell's umask must not filter them. */
    umask(0);
    if (engine_init(&E) < 0) {
        fprintf(stderr, "metis: %s\n", E.err);
        exit(METIS_EXIT_BAD_INPUT);
    }
    start_bounded();
    if (getenv("METIS_STATE_LOG"))
        state_log = fopen(getenv("METIS_STATE_LOG"), "ab");
    dive_init(&dive, E.cfg.run.seed, E.cfg.run.dive);
    revisits_init(&revisits, E.cfg.run.revisits);
    fault_plan_init(&faults, &E.cfg);
    run_lock = runlock_hold(E.run_id, E.err, sizeof E.err);
    if (run_lock < 0) {
        fprintf(stderr, "metis: infrastructure failure: %s\n", E.err);
        exit(METIS_EXIT_INFRA);
    }
    E.g.lazy_save = 1;           /* states SPIN matches at once are never saved (step.h) */
    atexit(finish_at_exit);
    /* A target whose daemon died or hung while set up or making the initial state survives
     * too; a mount that could not be made, or anything else, is Metis's own failure. */
    if (engine_start(&E) < 0)
        step_failed(NULL, 0, 0);
    E.search.setup_s = now_seconds() - t_setup;
    track_view();
    track_state(0, 0);
    if (bounded_on && bounded_note_initial(&bounded, metis_abs) < 0)
        infra_failure("out of memory for the states met");
    E.t_start = now_seconds();
    E.search.t_began = E.t_start;
    history_length_on = !E.cfg.run.search_ops &&
                        search_kind_parse(E.cfg.run.search) == SEARCH_DFS && history_target();
    search_begin(&E);
    E.last_progress = E.t_start;
    report_sampler_open(&E.sampler, E.out_dir);   /* without it the run goes on, unsampled */
    report_if_differs(NULL);
}

/* search = random: walks from the initial state, each of a drawn length, with operations drawn
 * by the model's weights and nothing matched; a step after which the trees differ ends its
 * walk as it ends a branch of the SPIN search. Setting metis_sid to the initial state's id is
 * what a backtrack of SPIN does, so metis_step restores it as it would for SPIN. */
void metis_walk(void)
{
    static struct walk w;
    walk_init(&w, &E.cfg);
    for (;;) {
        if (w.left == 0 || last_leaf) {
            metis_sid = 0;
            last_leaf = 0;
            w.left = walk_length(&w);
            w.walks++;
        }
        metis_step(walk_next_op(&w), 0, 0, (long)E.depth);
        w.left--;
    }
}
