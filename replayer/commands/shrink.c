/* The shrink command: a backward slice and the last steps alone first, then ddmin over the steps (operations and a history's restore calls) and single removals, replaying from cached prefix states. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/classify/classes.h"
#include "tree/delta.h"
#include "cli.h"
#include "replay/import.h"
#include "lib/system/helpers.h"
#include "replay/replay.h"
#include "replay/session.h"

/* The discrepancy a candidate must end in: the class of the trace's last one (classes.h). */
struct target {
    int fs;                     /* config index of the fs that disagrees */
    int together;               /* a concurrent step no serial order explains (any calls) */
    enum op_id op;
    unsigned kinds;             /* DIFF_* of that fs */
    enum tree_diff attr;         /* with DIFF_STATE: learnt from the first full replay */
    int attr_known;
    enum tree_diff fault_attr;   /* with a fault check's lost or partial state: the same */
    int fault_attr_known;
};

/* The states of the last candidate replayed: sid[k] is the state after its first k ops, so a
 * candidate sharing a prefix with it restores sid[prefix] instead of replaying from scratch. */
struct shrinker {
    struct session s;
    struct trace *t;            /* its concurrent steps may lose calls (drop_calls) */
    int tries;                  /* a concurrent step is tried this many times at most: it
                                   reproduces when one try goes wrong */
    struct metis_config cfg;
    int map[METIS_MAX_FS];
    struct target want;
    size_t *ops;
    uint64_t *sid;
    unsigned char *hit;         /* hit[k]: op k of the cached candidate ended in the target */
    struct tree_delta *delta;   /* delta[k], k >= 1: the target fs's known delta in state
                                   sid[k] (the engine's, known_delta.h), so that a step is
                                   judged as it was in the run */
    struct tree_delta saved_delta;  /* ... in the saved state sid[0] starts from, if any */
    size_t n;
    uint64_t next_sid;
    size_t tests, steps;
    double deadline;            /* 0: no time limit */
    struct trace_outcome init[METIS_MAX_FS];
    const struct runlog *rl;    /* the run's exported states (none for a trace file) */
    size_t first;               /* ops[0..first) made the saved state sid[0] (0: initial state) */
    uint64_t base_seq;          /* the operation of the run that made it */
    uint64_t base_sid;          /* and its sid in the run (its exported files) */
    const struct runlog_export *base;   /* its export, loaded again in a new session */
    double t0;                  /* when the shrink began */
    double step_s;              /* time spent in steps (not loading states) */
    double start_s;             /* the session's start: mounts, set-up, the initial state */
    double restore_s;           /* the steps of a test's first step that restored a state */
    size_t restores;            /* how many did (a fresh mount and a replay, on a history) */
    size_t target_failed;       /* candidates in which the target failed (target_failed) */
    size_t target_hangs;        /* ... of them, by a step or unmount that outlasted op_timeout */
    size_t suffix_tried;        /* the longest suffix tried alone (try_suffixes), 0: none */
    int at_start;               /* the live state is sid[0] as the session started it */
    unsigned logical;           /* fs whose candidates restore logically (logical_candidates) */
};

/* State ids of imported states: far above the ones the shrinker saves itself (as repro). */
#define IMPORT_SID_BASE (1ull << 40)

/* TEST_TARGET: the target failed or hung in too many candidates; like TEST_TIMEUP, the
 * shortest trace found so far stands. */
enum { TEST_INFRA = -1, TEST_STOP = -2, TEST_TIMEUP = -3, TEST_TARGET = -4 };

/* What shrink_started returns when its candidates restored logically and their result cannot
 * stand: the shrink is done again on fresh mounts. */
#define SHRINK_AGAIN (-100)

/* A target that fails in a candidate's replay gives a session afresh this many times at most,
 * and of those this many may be hangs, each of which costs the fs's op_timeout: archivemount
 * hangs at its unmount once a FIFO is made (its save opens the FIFO's copy), which ended 12 of
 * a first run's shrinks before they had cut their traces at all. */
#define TARGET_FAILURES_MOST 10
#define TARGET_HANGS_MOST 2

/* A shrink's session: an unmount that throws a candidate's state away never shows the class,
 * so a daemon that lives on after it (archivemount's save of a FIFO never ends) is killed after
 * a short grace, not waited for op_timeout and taken for the next candidate's failure. */
static int shrink_session_start(struct shrinker *sh)
{
    if (session_start(&sh->s, &sh->cfg) < 0)
        return -1;
    sh->at_start = 1;
    for (int i = 0; i < sh->s.g.nfs; i++)
        if (sh->s.g.be[i])
            sh->s.g.be[i]->lingering_known = 1;
    return 0;
}

/* The cached candidate's states died with its session: only their deltas are left to free. */
static void forget_cache(struct shrinker *sh)
{
    for (size_t k = 0; k < sh->n; k++)
        tree_delta_free(&sh->delta[k + 1]);
    sh->n = 0;
}

/* A step failed. When the fs that failed is the target, not the reference (a daemon whose
 * read-back fails: mhddfs's "Too many levels of symbolic links" or EIO after a few thousand
 * steps, which ended 24 of 60 shrinks of a first run), the candidate did not end in the
 * class: the session is started afresh from the initial state and the shrink goes on (0).
 * After too many such failures or hangs the session is started afresh all the same and the
 * shrink stops there (TEST_TARGET). TEST_INFRA when the failure stays an infrastructure
 * failure (the reference's, a shrink from a saved state, or no session can be started). */
static int target_failed(struct shrinker *sh)
{
    int fs = sh->s.g.failed_fs, hang = sh->s.g.timed_out != 0;
    if (fs <= 0 || fs != sh->want.fs || sh->sid[0] != 0 || sh->first)
        return TEST_INFRA;
    int enough = sh->target_failed + 1 > TARGET_FAILURES_MOST ||
                 (hang && sh->target_hangs + 1 > TARGET_HANGS_MOST);
    fprintf(stderr, "metis-replay: shrink: the target %s in a candidate (%s): not the class; "
            "the session starts afresh%s\n", hang ? "hung" : "failed", sh->s.err,
            enough ? ", and the shrink stops at the shortest trace so far" : "");
    session_stop(&sh->s);
    forget_cache(sh);
    sh->target_failed++;
    sh->target_hangs += (size_t)hang;
    if (shrink_session_start(sh) < 0)
        return TEST_INFRA;
    return enough ? TEST_TARGET : 0;
}

/* METIS_TEST_SHRINK_HANGS=N: the target hangs in the step of every Nth candidate, as
 * archivemount did, for a test of what a hang in a candidate costs. 1 when this one does. */
static int test_hook_hang(struct shrinker *sh)
{
    const char *v = getenv("METIS_TEST_SHRINK_HANGS");
    long every = v ? atol(v) : 0;
    if (every <= 0 || sh->tests % (size_t)every != 0)
        return 0;
    sh->s.g.failed_fs = sh->want.fs;
    sh->s.g.timed_out = 1;
    snprintf(sh->s.err, sizeof sh->s.err, "%s: a step timed out (METIS_TEST_SHRINK_HANGS)",
             sh->cfg.fs[sh->want.fs].name);
    return 1;
}

static void drop_cache_after(struct shrinker *sh, size_t keep)
{
    for (size_t k = keep; k < sh->n; k++) {
        session_discard(&sh->s, sh->sid[k + 1]);
        tree_delta_free(&sh->delta[k + 1]);
    }
    sh->n = keep;
}

/* The target fs's tree against the reference's now, held against known as the engine holds a
 * step's trees against the state it came from: now gets the state's delta; returns the most
 * telling difference known does not hold (TREE_DIFF_NONE: none, or the trees are alike). */
static enum tree_diff judge_state(struct shrinker *sh, const struct tree_delta *known,
                                  struct tree_delta *now)
{
    struct state_diff fresh = { .attr = TREE_DIFF_NONE };
    tree_delta_free(now);
    if (!(sh->s.differs[sh->want.fs] & DIFF_STATE))
        return TREE_DIFF_NONE;
    char *ref = classes_read_listing(&sh->s.g, 0);
    char *other = ref ? classes_read_listing(&sh->s.g, sh->want.fs) : NULL;
    if (other && tree_delta_compare(ref, other, known, now, &fresh) < 0)
        fresh.attr = TREE_DIFF_NONE;
    free(ref);
    free(other);
    return fresh.attr;
}

/* The delta of the state candidate operation j starts from: the saved state's, or the last
 * operation's (the initial state has none: its trees are alike, or the run stopped there; a
 * restore call reads nothing back, so the operation before it stands). */
static const struct tree_delta *known_before(const struct shrinker *sh, size_t j)
{
    while (j > 0 && sh->t->ops[sh->ops[j - 1]].is_call)
        j--;
    if (j > 0)
        return &sh->delta[j];
    return sh->sid[0] ? &sh->saved_delta : NULL;
}

/* The most telling difference a remount check found is the class's attribute. */
static int remount_attr_kept(struct shrinker *sh, struct target *w)
{
    enum tree_diff at = sh->s.g.out[w->fs].remount.d.attr;
    if (!w->attr_known) {
        w->attr = at;
        w->attr_known = 1;
    }
    return at == w->attr;
}

/* Did the step just replayed (op, judged to add attr) end in the target discrepancy?
 * A difference the state before held already is none, as in the run. */
static int on_target(struct shrinker *sh, const struct trace_op *op, enum tree_diff at)
{
    struct target *w = &sh->want;
    const struct op_args *a = &op->args;
    if (w->together)
        return op->tries && (sh->s.differs[w->fs] & DIFF_SERIAL);
    if (at == TREE_DIFF_NONE)
        sh->s.differs[w->fs] &= ~DIFF_STATE;
    /* A remount check's finding is the checkpoint's, whichever operation it came after. */
    if ((a->op != w->op && !(w->kinds & DIFF_REMOUNT)) || sh->s.differs[w->fs] != w->kinds)
        return 0;
    if (w->kinds & DIFF_REMOUNT)
        return remount_attr_kept(sh, w);
    if (w->kinds & (DIFF_FAULT_LOST | DIFF_FAULT_PARTIAL)) {
        enum tree_diff fa = sh->s.g.out[w->fs].fault.diff.attr;
        if (!w->fault_attr_known) {
            w->fault_attr = fa;
            w->fault_attr_known = 1;
        }
        if (fa != w->fault_attr)
            return 0;
    }
    if (!(w->kinds & DIFF_STATE))
        return 1;
    if (!w->attr_known) {
        w->attr = at;
        w->attr_known = 1;
    }
    return at == w->attr;
}

/* Operation op, candidate step j, compared as the engine compared it (replay_step did): does
 * it end in the wanted discrepancy? */
static int judged_on_target(struct shrinker *sh, const struct trace_op *op, size_t j)
{
    return on_target(sh, op, judge_state(sh, known_before(sh, j), &sh->delta[j + 1]));
}

/* The state a candidate's first step starts from: none to restore while the session is where
 * it started, else sid[0]. A cryfs session starts in 16 to 37 s, and restoring the initial
 * state it just made would mount the target afresh once more. */
static uint64_t first_from(struct shrinker *sh)
{
    uint64_t from = sh->at_start ? SESSION_NO_STATE : sh->sid[0];
    sh->at_start = 0;
    return from;
}

/* Length of the shortest prefix of cand[0..n) ending in the wanted discrepancy; 0 if none. */
static long test(struct shrinker *sh, const size_t *cand, size_t n)
{
    size_t common = 0;
    sh->tests++;
    while (common < n && common < sh->n && sh->ops[common] == cand[common]) {
        if (sh->hit[common])
            return (long)common + 1;
        common++;
    }
    drop_cache_after(sh, common);
    uint64_t from = common ? sh->sid[common] : first_from(sh);
    for (size_t j = common; j < n; j++) {
        if (session_interrupted())
            return TEST_STOP;
        if (sh->deadline > 0 && now_seconds() > sh->deadline)
            return TEST_TIMEUP;
        uint64_t to = sh->next_sid++;
        const struct trace_op *op = &sh->t->ops[cand[j]];
        double t = now_seconds();
        sh->s.g.checkpoint_next = j + 1 == n;   /* a kept fs's remount check ends a candidate */
        if (replay_step_in(&sh->s, sh->t, cand, n, j, sh->tries, from, to) < 0 ||
            (j == common && test_hook_hang(sh)))
            return target_failed(sh);
        sh->step_s += now_seconds() - t;
        if (from != SESSION_NO_STATE) {
            sh->restore_s += now_seconds() - t;
            sh->restores++;
        }
        sh->steps++;
        from = SESSION_NO_STATE;
        sh->ops[j] = cand[j];
        sh->sid[j + 1] = to;
        sh->hit[j] = !op->is_call && judged_on_target(sh, op, j);
        sh->n = j + 1;
        if (sh->hit[j])
            return (long)j + 1;
    }
    return 0;
}

/* cand without [lo, hi) into out; returns its length. */
static size_t without(const size_t *cand, size_t n, size_t lo, size_t hi, size_t *out)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (k < lo || k >= hi)
            out[m++] = cand[k];
    return m;
}

/* Tries one candidate; on success it becomes the current sequence. 1, 0 or a TEST_ code. */
static int adopt(struct shrinker *sh, size_t *cur, size_t *n, const size_t *cand, size_t m)
{
    long r = test(sh, cand, m);
    if (r <= 0)
        return (int)r;
    memmove(cur, cand, (size_t)r * sizeof *cur);
    *n = (size_t)r;
    return 1;
}

/* Zeller's ddmin: chunks alone, then complements, doubling the granularity when neither helps. */
static int ddmin(struct shrinker *sh, size_t *cur, size_t *n, size_t *scratch)
{
    size_t gran = 2;
    while (*n >= 2) {
        size_t chunk = (*n + gran - 1) / gran;
        int reduced = 0;
        for (size_t lo = 0; lo < *n && !reduced; lo += chunk) {
            size_t hi = lo + chunk < *n ? lo + chunk : *n;
            memcpy(scratch, cur + lo, (hi - lo) * sizeof *cur);
            int r = adopt(sh, cur, n, scratch, hi - lo);
            if (r < 0)
                return r;
            if (r)
                reduced = 1, gran = 2;
        }
        for (size_t lo = 0; lo < *n && !reduced && gran > 2; lo += chunk) {
            size_t hi = lo + chunk < *n ? lo + chunk : *n;
            size_t m = without(cur, *n, lo, hi, scratch);
            int r = adopt(sh, cur, n, scratch, m);
            if (r < 0)
                return r;
            if (r)
                reduced = 1, gran = gran - 1 > 2 ? gran - 1 : 2;
        }
        if (!reduced) {
            if (gran >= *n)
                break;
            gran = 2 * gran < *n ? 2 * gran : *n;
        }
    }
    return 0;
}

/* 1 when path a is b or a directory above it (component-wise); empty paths never are. */
static int above_or_same(const char *a, const char *b)
{
    size_t n = strlen(a);
    return n && !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/' || (n == 1 && a[0] == '/'));
}

/* The paths a slice follows (try_slice): at most SLICE_PATHS, names into the trace. */
#define SLICE_PATHS 64
struct slice_paths {
    const char *p[SLICE_PATHS];
    int n;
};

/* The paths step op names: an operation's, or a restore call's (a symlink call's second is
 * its target, no path); NULL where it names none. */
static void step_paths(const struct trace_op *op, const char *mine[2])
{
    mine[0] = op->is_call ? op->call.path : op->args.path;
    mine[1] = op->is_call ? (op->call.kind == RC_LINK ? op->call.path2 : NULL) : op->args.path2;
}

static void follow(struct slice_paths *w, const struct trace_op *op)
{
    const char *mine[2];
    step_paths(op, mine);
    for (int i = 0; i < 2 && w->n < SLICE_PATHS; i++)
        if (mine[i] && mine[i][0] == '/')
            w->p[w->n++] = mine[i];
}

/* Whether step op names a followed path, or one above or below it. */
static int related(const struct trace_op *op, const struct slice_paths *w)
{
    const char *mine[2];
    step_paths(op, mine);
    for (int i = 0; i < 2; i++)
        for (int j = 0; mine[i] && j < w->n; j++)
            if (above_or_same(mine[i], w->p[j]) || above_or_same(w->p[j], mine[i]))
                return 1;
    return 0;
}

/* A backward slice: from the last operation back, every step that names a path it or a later
 * one of the slice names (or one above or below it), whose paths are then followed too: a
 * guess at what the last one depends on, replayed before anything longer. A history's restore
 * calls are steps like operations: in a long history most files were last made by a restore
 * (a create and a write), not by an operation. 1 when it reproduces (cur, n: it), 0 when not,
 * or a TEST_ code. */
static int try_slice(struct shrinker *sh, size_t *cur, size_t *n, size_t *scratch)
{
    const struct trace_op *last = &sh->t->ops[cur[*n - 1]];
    struct slice_paths w = { .n = 0 };
    size_t top = *n;
    if (((sh->want.kinds & DIFF_STATE) && !sh->want.attr_known) || last->is_call)
        return 0;
    follow(&w, last);
    scratch[--top] = cur[*n - 1];
    for (size_t k = *n - 1; k-- > 0;) {
        const struct trace_op *op = &sh->t->ops[cur[k]];
        if (!related(op, &w))
            continue;
        follow(&w, op);
        scratch[--top] = cur[k];
    }
    size_t m = *n - top;
    memmove(scratch, scratch + top, m * sizeof *scratch);
    return m < *n ? adopt(sh, cur, n, scratch, m) : 0;
}

/* The last operations alone first, 1, 2, 4, ... of them, each from the state the candidates
 * start from: most classes need only the few steps before their discrepancy, and a suffix that
 * shows it costs about twice its own length in steps, where the whole trace (a long history on
 * a slow daemon) may not even be replayed once in the time a class has. 1 when one reproduces
 * (cur, n: its shortest prefix ending in the target), 0 when none shorter than half of it
 * does, or a TEST_ code. */
static int try_suffixes(struct shrinker *sh, size_t *cur, size_t *n, size_t *scratch)
{
    /* A state class is signed by its attribute, which a suffix's first hit must not set. */
    if ((sh->want.kinds & DIFF_STATE) && !sh->want.attr_known)
        return 0;
    for (size_t k = 1; 2 * k <= *n; k *= 2) {
        memcpy(scratch, cur + *n - k, k * sizeof *cur);
        sh->suffix_tried = k;
        int r = adopt(sh, cur, n, scratch, k);
        if (r != 0)
            return r;
    }
    return 0;
}

/* Until no single operation can go: the result is 1-minimal. */
static int remove_singles(struct shrinker *sh, size_t *cur, size_t *n, size_t *scratch)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = *n; k-- > 0 && *n > 1;) {
            size_t m = without(cur, *n, k, k + 1, scratch);
            int r = adopt(sh, cur, n, scratch, m);
            if (r < 0)
                return r;
            changed |= r;
        }
    }
    return 0;
}

/* ---- the minimal trace, with the outcomes of one more replay ---- */

static int read_config_lines(struct trace *out, const char *path)
{
    FILE *f = fopen(path, "re");
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    if (!f)
        return -1;
    while ((n = getline(&buf, &cap, f)) >= 0) {
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        trace_add_cfg_line(out, buf);
    }
    free(buf);
    fclose(f);
    return 0;
}

static void header_from_session(struct shrinker *sh, const char *override, struct trace *out)
{
    trace_init(out);
    out->seed = sh->t->seed;
    memcpy(out->hash, sh->t->hash, sizeof out->hash);
    if (override) {
        snprintf(out->config_path, sizeof out->config_path, "%s", override);
        read_config_lines(out, override);
    } else {
        memcpy(out->config_path, sh->t->config_path, sizeof out->config_path);
        for (int i = 0; i < sh->t->ncfg; i++)
            trace_add_cfg_line(out, sh->t->cfg[i]);
    }
    out->nfs = sh->s.g.nfs;
    for (int i = 0; i < sh->s.g.nfs; i++) {
        const struct fs_config *c = &sh->s.cfg.fs[i];
        struct trace_fs *f = &out->fs[i];
        snprintf(f->name, sizeof f->name, "%s", c->name);
        snprintf(f->type, sizeof f->type, "%s", fs_type_name(c->type));
        snprintf(f->fstype, sizeof f->fstype, "%s", c->fstype[0] ? c->fstype : "-");
        f->size = c->size;
        out->init[i] = sh->init[i];
    }
}

/* What the step replay_step just made left in s (its differs[] set as the step says). */
static void record_outcomes(struct session *s, struct trace_op *op)
{
    for (int i = 0; i < s->g.nfs; i++) {
        op->res[i] = s->out[i];
        op->res[i].have = 1;
        op->disc[i].have = s->differs[i] != 0;
        op->disc[i].differs = s->differs[i];
    }
}

/* The session fs that made a call of the input trace (its fs index in the written trace). */
static int call_fs_of(const struct shrinker *sh, const struct trace_op *src)
{
    for (int i = 0; i < sh->s.g.nfs; i++)
        if (sh->map[i] == src->call_fs)
            return i;
    return 0;
}

/* The search path's operations that made the saved state, with what the run recorded. */
static int record_prefix(struct shrinker *sh, struct trace *out)
{
    for (size_t k = 0; k < sh->first; k++) {
        const struct trace_op *src = &sh->t->ops[k];
        if (src->is_call) {
            if (!trace_add_call(out, src->seq, call_fs_of(sh, src), &src->call, src->call_res))
                return -1;
            continue;
        }
        struct trace_op *op = trace_add_copy(out, src);
        if (!op)
            return -1;
        for (int i = 0; i < sh->s.g.nfs; i++)
            if (sh->map[i] >= 0) {
                op->res[i] = src->res[sh->map[i]];
                op->disc[i] = src->disc[sh->map[i]];
            }
    }
    out->start = sh->first;
    for (int i = 0; sh->first && i < sh->s.g.nfs; i++) {
        const char *file = runlog_export_file(sh->rl, sh->base_sid, sh->cfg.fs[i].name);
        snprintf(out->start_state[i], sizeof out->start_state[i], "%s", file ? file : "");
    }
    return 0;
}

/* The shrunk sequence replayed once more, its outcomes recorded: 1 when it ended in the
 * target (a concurrent step may go right this time), 0 when not, -1 on failure. */
static int record_once(struct shrinker *sh, const size_t *cur, size_t n, struct trace *out)
{
    int hit = 0;
    for (size_t k = 0; k < n; k++) {
        const struct trace_op *src = &sh->t->ops[cur[k]];
        sh->s.g.checkpoint_next = k + 1 == n;
        if (replay_step_in(&sh->s, sh->t, cur, n, k, sh->tries,
                           k == 0 ? first_from(sh) : SESSION_NO_STATE, SESSION_NO_STATE) < 0)
            return -1;
        if (src->is_call) {
            int fs = call_fs_of(sh, src);
            if (!trace_add_call(out, src->seq, fs, &src->call, sh->s.g.out[fs].res))
                return -1;
            continue;
        }
        struct trace_op *op = trace_add_copy(out, src);
        if (!op)
            return -1;
        record_outcomes(&sh->s, op);
        hit = on_target(sh, src, TREE_DIFF_NONE) || !sh->want.together;
    }
    return hit;
}

/* How often the shrunk trace is replayed to record a concurrent step going wrong. */
#define RECORD_ATTEMPTS 10

static int record(struct shrinker *sh, const size_t *cur, size_t n, const char *override,
                  struct trace *out)
{
    for (int attempt = 1;; attempt++) {
        header_from_session(sh, override, out);
        if (record_prefix(sh, out) < 0)
            return -1;
        int hit = record_once(sh, cur, n, out);
        if (hit != 0 || attempt == RECORD_ATTEMPTS)
            return hit < 0 ? -1 : 0;
        trace_free(out);
        drop_cache_after(sh, 0);
    }
}

/* ---- the command ---- */

static int verify_full(struct shrinker *sh, size_t *cur, size_t *n, int tries)
{
    for (int k = 1; k <= tries; k++) {
        drop_cache_after(sh, 0);
        long r = test(sh, cur, *n);
        if (r < 0)
            return (int)r;
        if (r > 0) {
            *n = (size_t)r;
            return 1;
        }
    }
    return 0;
}

/* Where the shrink's time went, for the triage to learn what a session start costs on this
 * target (triage.c reads "session start"): the rest is loading the run's log and teardown. */
static void say_costs(const struct shrinker *sh)
{
    fprintf(stderr, "metis-replay: shrink: session start %.2f s; %zu steps %.2f s, of which %zu "
            "first steps that restored a state %.2f s; %zu candidates the target failed in\n",
            sh->start_s, sh->steps, sh->step_s, sh->restores, sh->restore_s, sh->target_failed);
}

static int finish(struct shrinker *sh, int rc)
{
    say_costs(sh);
    if (rc == TEST_INFRA)
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", sh->s.err);
    if (rc == TEST_TARGET)
        fprintf(stderr, "metis-replay: shrink: the target failed or hung in %zu candidates "
                "before the discrepancy reproduced\n", sh->target_failed);
    if (rc == TEST_TIMEUP && sh->suffix_tried)
        fprintf(stderr, "metis-replay: shrink: the time limit came before the discrepancy "
                "reproduced (its last %zu operations alone did not show it, and the whole trace "
                "of %zu was not replayed once)\n", sh->suffix_tried, sh->t->nops);
    else if (rc == TEST_TIMEUP)
        fprintf(stderr, "metis-replay: shrink: the time limit came before the whole trace was "
                "replayed once\n");
    session_stop(&sh->s);
    return rc == TEST_STOP ? EXIT_INTERRUPTED : EXIT_INFRA;
}

static int write_result(struct shrinker *sh, size_t *cur, size_t n, const struct cli_opts *o,
                        size_t from, double t0, int stopped)
{
    struct trace out;
    char err[1400];
    if (record(sh, cur, n, o->config, &out) < 0) {
        trace_free(&out);
        return finish(sh, TEST_INFRA);
    }
    int rc = trace_write(&out, stdout);
    fflush(stdout);             /* before stderr's lines, when both go to one log */
    if (rc == 0 && o->out)
        rc = trace_write_file(&out, o->out, err, sizeof err);
    say_costs(sh);
    if (sh->first)
        fprintf(stderr, "metis-replay: shrink: starts from the saved state after operation %"
                PRIu64 " (the trace's first %zu operations recreate it)\n", sh->base_seq,
                sh->first);
    else
        fprintf(stderr, "metis-replay: shrink: starts from the initial state\n");
    fprintf(stderr, "metis-replay: shrink: %zu -> %zu operations%s in %.3f s (%zu tests, %zu "
            "steps)%s%s%s\n", from, n, sh->t->ncalls ? " and restore calls" : "",
            now_seconds() - t0, sh->tests, sh->steps,
            stopped == TEST_TIMEUP ? ", stopped by the time limit (shortest so far, maybe not "
            "minimal)" : stopped == TEST_TARGET ? ", stopped after the target failed or hung in "
            "candidates (shortest so far, maybe not minimal)" : "",
            o->out ? ", written to " : "", o->out ? o->out : "");
    if (rc < 0)
        fprintf(stderr, "metis-replay: %s\n", o->out ? err : "writing the trace failed");
    trace_free(&out);
    session_stop(&sh->s);
    return rc < 0 ? EXIT_INFRA : EXIT_REPRODUCED;
}

/* ---- where the shrunk trace starts: the newest saved state whose suffix reproduces ---- */

/* Every fs can load its exported state; a crash check's syncs are numbered by step from the
 * initial state (emitc_crash.c), so such traces keep starting there. */
static int all_importable(const struct shrinker *sh)
{
    const char *crash = sh->cfg.run.crash;
    int ok = !crash[0] || !strcmp(crash, "off");
    for (int i = 0; i < sh->cfg.nfs; i++)
        ok &= import_supported(&sh->cfg.fs[i]);
    return ok;
}

/* The trace index right after operation seq, or -1 if seq is not on the trace. */
static long index_after(const struct trace *t, uint64_t seq)
{
    for (size_t k = 0; k < t->nops; k++)
        if (t->ops[k].seq == seq && !t->ops[k].is_call)
            return (long)k + 1;
    return -1;
}

/* Makes exported state x the one candidates start from: 0, or 1 if it cannot be (not exported
 * for every fs, or its import failed and the session was made afresh), or TEST_INFRA (-1,
 * which is why "cannot" is not -1) when no session could be made. */
static int load_saved(struct shrinker *sh, const struct runlog_export *x, size_t first)
{
    const char *files[METIS_MAX_FS] = { 0 };
    for (int i = 0; i < sh->cfg.nfs; i++)
        if (!(files[i] = runlog_export_file(sh->rl, x->sid, sh->cfg.fs[i].name)))
            return 1;           /* not exported for every fs (a kept FUSE mount has no image) */
    drop_cache_after(sh, 0);
    if (session_import(&sh->s, files, IMPORT_SID_BASE + x->sid) < 0) {
        fprintf(stderr, "metis-replay: shrink: cannot load the state after operation %" PRIu64
                ": %s\n", x->seq, sh->s.err);
        session_stop(&sh->s);
        sh->sid[0] = 0;
        return shrink_session_start(sh) < 0 ? TEST_INFRA : 1;
    }
    sh->sid[0] = IMPORT_SID_BASE + x->sid;
    sh->at_start = 0;
    sh->base = x;
    sh->first = first;
    sh->base_seq = x->seq;
    sh->base_sid = x->sid;
    session_compare(&sh->s, 1);
    judge_state(sh, NULL, &sh->saved_delta);   /* a saved state below a known delta */
    return 0;
}

/* Tries the run's exported states newest first (one try each): 1 when the rest of the path
 * from one of them ends in the target (cur, n: that suffix), 0 when none does (the
 * candidates then start from the initial state), or a TEST_ code. */
static int start_from_saved(struct shrinker *sh, size_t *cur, size_t *n)
{
    const struct runlog *rl = sh->rl;
    uint64_t last = sh->t->ops[sh->t->nops - 1].seq, prev = UINT64_MAX;
    for (size_t e = rl && all_importable(sh) ? rl->nexports : 0; e-- > 0;) {
        const struct runlog_export *x = &rl->exports[e];
        long first = index_after(sh->t, x->seq);
        if (x->seq >= last || first <= 0 || x->sid == prev)
            continue;
        prev = x->sid;
        int r = load_saved(sh, x, (size_t)first);
        if (r == TEST_INFRA)
            return r;
        if (r > 0)
            continue;
        *n = sh->t->nops - (size_t)first;
        for (size_t k = 0; k < *n; k++)
            cur[k] = (size_t)first + k;
        if ((r = verify_full(sh, cur, n, 1)) == 1)
            fprintf(stderr, "metis-replay: shrink: reproduced from the saved state after "
                    "operation %" PRIu64 " + %zu operations in %.3f s\n", x->seq, *n,
                    now_seconds() - sh->t0);
        if (r != 0)
            return r;
    }
    drop_cache_after(sh, 0);
    sh->sid[0] = 0;
    sh->first = 0;
    return 0;
}

/* Steps a reduction of m operations takes, roughly: ddmin and the single removals replay
 * about m (1 + log2 m) operations a round, and a few rounds adopt something. */
static double reduction_steps(size_t m)
{
    double lg = 0;
    for (size_t k = m; k > 1; k >>= 1)
        lg += 1;
    return (double)m * (1 + lg) * 4;
}

/* With the suffix shrunk from a saved state: the path before it too, from the initial state,
 * when its reduction (reduction_steps at the pace the steps went so far) fits in the time
 * left. Adopted only if that finishes, so the result needs no saved state; otherwise the
 * suffix from the saved state stands. */
static int shrink_prefix(struct shrinker *sh, size_t *cur, size_t *n, size_t *scratch)
{
    size_t first = sh->first, m = first + *n;
    double per_step = sh->steps ? sh->step_s / (double)sh->steps : 0;
    double left = sh->deadline > 0 ? sh->deadline - now_seconds() : 1e30;
    double need = per_step * reduction_steps(m);
    if (first && need > left)
        fprintf(stderr, "metis-replay: shrink: the path before the saved state was not shrunk "
                "(reducing its %zu operations would take about %.1f s of the %.1f s left)\n",
                m, need, left);
    if (!first || need > left)
        return 0;
    size_t *cand = malloc((m + 1) * sizeof *cand);
    if (!cand)
        return 0;
    for (size_t k = 0; k < first; k++)
        cand[k] = k;
    memcpy(cand + first, cur, *n * sizeof *cur);
    uint64_t base = sh->sid[0];
    drop_cache_after(sh, 0);
    sh->sid[0] = 0;
    int r = verify_full(sh, cand, &m, 1);
    if (r == 1 && (r = ddmin(sh, cand, &m, scratch)) >= 0 &&
        (r = remove_singles(sh, cand, &m, scratch)) >= 0) {
        memcpy(cur, cand, m * sizeof *cur);
        *n = m;
        sh->first = 0;
    } else {
        drop_cache_after(sh, 0);
        sh->sid[0] = base;
        fprintf(stderr, "metis-replay: shrink: the path before the saved state was not shrunk "
                "(%s)\n", r == TEST_TIMEUP ? "the time limit came first" :
                r == 0 ? "it did not reproduce from the initial state" : "stopped");
    }
    free(cand);
    return r == TEST_TIMEUP || r == 0 ? 0 : r < 0 ? r : 0;
}

/* Call c out of concurrent step op (its calls after it move up); the order is reset to the
 * calls as drawn, since the step is replayed at once. */
static void remove_call(struct trace_op *op, int c)
{
    memmove(&op->calls[c], &op->calls[c + 1], (size_t)(op->ncalls - c - 1) * sizeof *op->calls);
    op->ncalls--;
    op->args = op->calls[0];
}

/* "1,2,3": the calls one after another as drawn. */
static void whole_order(struct trace_op *op)
{
    size_t used = 0;
    for (int j = 0; j < op->ncalls && used < sizeof op->order; j++)
        used += (size_t)snprintf(op->order + used, sizeof op->order - used, "%s%d", j ? "," : "",
                                 j + 1);
}

/* A concurrent step's calls, order and kind, to put back when a candidate without one of its
 * calls lost the target. */
struct step_copy {
    struct op_args calls[TOGETHER_MAX];
    int ncalls, tries;
    char order[sizeof ((struct trace_op *)0)->order];
};

static void step_keep(struct step_copy *c, const struct trace_op *op)
{
    memcpy(c->calls, op->calls, (size_t)op->ncalls * sizeof *c->calls);
    c->ncalls = op->ncalls;
    c->tries = op->tries;
    memcpy(c->order, op->order, sizeof c->order);
}

static void step_put_back(struct trace_op *op, const struct step_copy *c)
{
    memcpy(op->calls, c->calls, (size_t)c->ncalls * sizeof *c->calls);
    op->ncalls = c->ncalls;
    op->tries = c->tries;
    op->args = c->calls[0];
    memcpy(op->order, c->order, sizeof op->order);
}

/* Call c out of concurrent step op; an earlier step left with one call becomes the plain
 * operation it is (a trace holds no concurrent step of one call). */
static void drop_call(struct trace_op *op, int c)
{
    remove_call(op, c);
    whole_order(op);
    if (op->ncalls == 1) {
        op->ncalls = 0;   /* calls[] stays allocated for trace_free and a put back */
        op->tries = 0;
        op->order[0] = '\0';
    }
}

/* Concurrent step j of cur keeps only the calls it needs: each call goes when the trace still
 * ends in the target without it. The last step of a race keeps 2 calls at least; an earlier
 * step only made the state the race starts from, so its calls go down to none but one. The
 * number of calls dropped, or a TEST_ code. */
static long drop_calls_at(struct shrinker *sh, const size_t *cur, size_t n, size_t j)
{
    struct trace_op *op = &sh->t->ops[cur[j]];
    int least = j + 1 == n ? 2 : 1;
    long dropped = 0;
    struct step_copy kept;
    for (int c = op->ncalls - 1; c >= 0 && op->tries && op->ncalls > least; c--) {
        step_keep(&kept, op);
        drop_call(op, c);
        drop_cache_after(sh, j);
        long r = test(sh, cur, n);
        if (r == (long)n) {
            dropped++;
            continue;
        }
        /* also when the shrink stops here: the trace written is one that reproduced */
        step_put_back(op, &kept);
        drop_cache_after(sh, j);
        if (r < 0)
            return r;
    }
    return dropped;
}

/* Every concurrent step keeps only the calls it needs, the last first (the last only when it
 * is the race the class is about). The calls dropped from earlier steps, or a TEST_ code. */
static long drop_calls(struct shrinker *sh, const size_t *cur, size_t n)
{
    long earlier = 0;
    for (size_t j = n; j-- > 0;) {
        const struct trace_op *op = &sh->t->ops[cur[j]];
        if (op->is_call || !op->tries || (j + 1 == n && !sh->want.together))
            continue;
        long r = drop_calls_at(sh, cur, n, j);
        if (r < 0)
            return r;
        earlier += j + 1 < n ? r : 0;
    }
    return earlier;
}

/* ---- candidates restored logically, the result checked on fresh mounts ---- */

/* A target without snapshots replays on a fresh mount in a replay, so that it runs nothing the
 * trace does not hold. A shrink's candidates restore its states logically instead (restore
 * calls, a replay where they miss): archivemount's candidates spent 9.7 of 11.0 s of their
 * steps remounting it, and a cryfs mount takes 16 to 37 s. The calls such a restore adds are
 * in no trace, so the shrunk trace is checked on fresh mounts before it is written
 * (fresh_check). The fs of the config whose restores this changes, as a mask. */
static unsigned logical_candidates(struct shrinker *sh, const struct cli_opts *o)
{
    unsigned mask = 0;
    for (int i = 0; !o->fresh_mounts && i < sh->cfg.nfs; i++)
        if (sh->cfg.fs[i].replay_logical) {
            sh->cfg.fs[i].replay_logical = 0;
            mask |= 1u << i;
        }
    return mask;
}

/* The session started afresh with every fs restoring as a replay does, the cache emptied. */
static int to_fresh_mounts(struct shrinker *sh)
{
    session_stop(&sh->s);
    for (int i = 0; i < sh->cfg.nfs; i++)
        sh->cfg.fs[i].replay_logical |= (sh->logical >> i) & 1;
    sh->logical = 0;
    forget_cache(sh);
    return shrink_session_start(sh);
}

/* cur[0..n) replayed on fresh mounts, without the time limit (the shrink kept time for it,
 * logical_deadline): 1 when it ends in the class (n: where), 0 when it does not in two
 * tries, or a TEST_ code. */
static int fresh_check(struct shrinker *sh, size_t *cur, size_t *n)
{
    double deadline = sh->deadline;
    size_t m = *n;
    if (to_fresh_mounts(sh) < 0)
        return TEST_INFRA;
    int loaded = sh->first ? load_saved(sh, sh->base, sh->first) : 0;
    if (loaded != 0)
        return loaded == TEST_INFRA ? TEST_INFRA : 0;
    sh->deadline = 0;
    int r = verify_full(sh, cur, n, 2);
    sh->deadline = deadline;
    if (r == 1)
        fprintf(stderr, "metis-replay: shrink: the shrunk trace shows the discrepancy on fresh "
                "mounts too (its candidates restored states logically)\n");
    else if (r == 0)
        fprintf(stderr, "metis-replay: shrink: the shrunk trace of %zu operations does not show "
                "the discrepancy on fresh mounts (the logical restores between its candidates "
                "did): shrinking again, every candidate on fresh mounts\n", m);
    return r;
}

/* Time for fresh_check out of the shrink's: a session start and a replay of the shrunk trace
 * from its initial state, each at most as long as the first session start. */
static void logical_deadline(struct shrinker *sh)
{
    if (sh->logical && sh->deadline > 0)
        sh->deadline -= 2 * sh->start_s + 1;
}

static int shrink_started(struct shrinker *sh, const struct cli_opts *o, size_t *cur,
                          size_t *scratch, double t0)
{
    size_t total = sh->t->nops, n = total;
    int r = start_from_saved(sh, cur, &n);
    if (r == 0) {
        n = total;
        for (size_t k = 0; k < total; k++)
            cur[k] = k;
        r = try_slice(sh, cur, &n, scratch);
        if (r == 0)
            r = try_suffixes(sh, cur, &n, scratch);
    }
    if (r == 0) {
        n = total;
        for (size_t k = 0; k < total; k++)
            cur[k] = k;
        r = verify_full(sh, cur, &n, o->tries);
    }
    if (r == 0 && sh->logical)
        return SHRINK_AGAIN;
    if (r == 0) {
        printf("shrink: nondeterministic: the discrepancy did not reproduce in %d tries\n",
               o->tries);
        say_costs(sh);
        session_stop(&sh->s);
        return EXIT_NONDETERMINISTIC;
    }
    if (r < 0)
        return finish(sh, r);
    /* cur always reproduces: a time limit keeps the shortest trace found so far. */
    if ((r = ddmin(sh, cur, &n, scratch)) >= 0)
        r = remove_singles(sh, cur, &n, scratch);
    if (r >= 0)
        r = shrink_prefix(sh, cur, &n, scratch);
    /* Calls gone from earlier concurrent steps may leave whole steps that nothing needs. */
    long dropped = r >= 0 ? drop_calls(sh, cur, n) : 0;
    if (dropped > 0)
        r = remove_singles(sh, cur, &n, scratch);
    else if (dropped < 0)
        r = (int)dropped;
    int kept = r == TEST_TIMEUP || r == TEST_TARGET;
    if (r < 0 && !kept)
        return sh->logical && r == TEST_INFRA ? SHRINK_AGAIN : finish(sh, r);
    int checked = sh->logical ? fresh_check(sh, cur, &n) : 1;
    if (checked == 0)
        return SHRINK_AGAIN;
    if (checked < 0)
        return finish(sh, checked);
    return write_result(sh, cur, n, o, total, t0, r < 0 ? r : 0);
}

/* The shrink from the whole trace once more, every candidate on fresh mounts, in the time left:
 * what it found with logical restores did not show the class there. */
static int shrink_again(struct shrinker *sh, const struct cli_opts *o, size_t *cur,
                        size_t *scratch, double t0)
{
    if (sh->deadline > 0)
        sh->deadline += 2 * sh->start_s + 1;    /* what logical_deadline kept aside */
    if (sh->logical && to_fresh_mounts(sh) < 0)
        return finish(sh, TEST_INFRA);
    return shrink_started(sh, o, cur, scratch, t0);
}

static int shrink_loaded(struct shrinker *sh, const struct cli_opts *o)
{
    size_t total = sh->t->nops;
    size_t *cur = calloc(total + 1, sizeof *cur), *scratch = calloc(total + 1, sizeof *scratch);
    sh->ops = calloc(total + 1, sizeof *sh->ops);
    sh->sid = calloc(total + 2, sizeof *sh->sid);
    sh->hit = calloc(total + 1, sizeof *sh->hit);
    sh->delta = calloc(total + 2, sizeof *sh->delta);
    int rc = EXIT_INFRA;
    double t0 = sh->t0 = now_seconds();
    sh->deadline = o->seconds > 0 ? t0 + o->seconds : 0;
    sh->logical = logical_candidates(sh, o);
    if (!cur || !scratch || !sh->ops || !sh->sid || !sh->hit || !sh->delta) {
        fprintf(stderr, "metis-replay: out of memory\n");
    } else if (shrink_session_start(sh) < 0) {
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", sh->s.err);
        session_stop(&sh->s);
    } else {
        sh->start_s = now_seconds() - t0;
        memcpy(sh->init, sh->s.out, sizeof sh->init);
        sh->next_sid = 1;
        logical_deadline(sh);
        rc = shrink_started(sh, o, cur, scratch, t0);
        if (rc == SHRINK_AGAIN)
            rc = shrink_again(sh, o, cur, scratch, t0);
    }
    free(cur);
    free(scratch);
    free(sh->ops);
    free(sh->sid);
    free(sh->hit);
    free(sh->delta);
    tree_delta_free(&sh->saved_delta);
    return rc;
}

/* The attribute a state class is signed by, as the run's detail file names it ("class N: OP
 * on FS: state differs (mode of /d0: ..."), so that no shorter candidate can set it. */
static void attr_from_detail(struct shrinker *sh, const char *detail)
{
    char line[2048], on[200], word[32];
    FILE *f = fopen(detail, "r");
    snprintf(on, sizeof on, " on %s: ", sh->cfg.fs[sh->want.fs].name);
    while (f && !sh->want.attr_known && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, on), *open = p ? strstr(p, "state differs (") : NULL;
        int k = open && sscanf(open + 15, "%31[a-z-] of ", word) == 1 ? tree_diff_by_name(word)
                                                                         : -1;
        if (!strncmp(line, "class ", 6) && k > 0) {
            sh->want.attr = (enum tree_diff)k;
            sh->want.attr_known = 1;
        }
    }
    if (f)
        fclose(f);
}

/* The class of the trace's last discrepancy on the fs --fs names (or the first that differs).
 * 0 after printing why there is nothing to shrink. */
static int set_target(struct shrinker *sh, const struct cli_opts *o)
{
    unsigned want[METIS_MAX_FS];
    int fs = cli_fs(o, sh->t, &sh->cfg, sh->map);
    if (fs < 0)
        return 0;
    replay_expected(sh->t, sh->map, sh->cfg.nfs, want);
    /* The reference has no class of its own but its crash, fault or remount check's. */
    int ref_ok = fs != 0 || (want[0] & DIFF_OWN_PROMISE);
    long last = trace_last_op(sh->t);
    if (!ref_ok || !want[fs] || last < 0) {
        fprintf(stderr, "metis-replay: %s records no discrepancy of fs %s after an operation: "
                "nothing to shrink\n", o->input, sh->cfg.fs[fs].name);
        return 0;
    }
    const struct trace_op *last_op = &sh->t->ops[last];
    sh->want = (struct target){ fs, (want[fs] & DIFF_SERIAL) != 0, last_op->args.op, want[fs],
                                TREE_DIFF_NONE, 0, TREE_DIFF_NONE, 0 };
    sh->tries = o->tries > last_op->tries ? o->tries : last_op->tries;
    if (sh->want.kinds & DIFF_STATE)
        attr_from_detail(sh, o->input);
    return 1;
}

int cmd_shrink(int argc, char **argv)
{
    struct cli_opts o;
    struct runlog rl;
    static struct shrinker sh;
    int parsed = cli_parse(argc, argv, "shrink", &o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (cli_load(o.input, o.fs, &rl) < 0)
        return EXIT_BAD_INPUT;
    if (cli_check(&rl.trace, o.config, &sh.cfg, sh.map) < 0) {
        runlog_free(&rl);
        return EXIT_BAD_INPUT;
    }
    sh.t = &rl.trace;
    sh.rl = &rl;
    int rc;
    if (!set_target(&sh, &o)) {
        rc = EXIT_BAD_INPUT;
    } else {
        session_install_cleanup();
        rc = shrink_loaded(&sh, &o);
    }
    runlog_free(&rl);
    return rc;
}
