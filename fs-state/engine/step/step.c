/* The step core: what the engine and the replayer both do to run, restore, read back and compare one operation. */
#include "engine/step/step.h"
#include "backend/logical/calls/rcalls_text.h"
#include "lib/text/buf.h"
#include "lib/text/errnos.h"
#include "engine/step/fsset.h"
#include "engine/input/input.h"
#include "engine/ops/prepopulate.h"
#include "engine/ops/together.h"
#include "lib/system/fusectl.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uthash.h>

/* A state's parent and the operation that made it: what a backend without snapshots replays. */
struct step_history {
    uint64_t sid, parent;
    unsigned on;                 /* a restore call's: bit i, fs i makes it (0: every fs) */
    char *op;                    /* op_format's text: a few dozen bytes against op_args' 8 KiB;
                                    "call " and a restore call's text (fsgroup_call);
                                    NULL: refused as unsupported, so it changed nothing anywhere */
    UT_hash_handle hh;
};

#define CALL_PREFIX "call "

static int fsset_workers;



static int gerr(struct fsgroup *g, const char *fmt, const char *detail)
{
    snprintf(g->err, sizeof g->err, fmt, detail);
    return -1;
}

/* The inline run's watchdog: the one fs is a daemon's mount, so killing the daemon and
 * aborting its connection returns the call that hangs on it. */
static void unblock_fs0(void *ctx)
{
    struct fsgroup *g = ctx;
    backend_abort(g->be[0]);
}

int fsgroup_run(struct fsgroup *g, int (*job)(int i, void *ctx), void *ctx, const char *step)
{
    int late = -1;
    double limit[METIS_MAX_FS];
    /* A step's limit on each fs is its own op_timeout; set-up's is one for all. */
    for (int i = 0; i < METIS_MAX_FS; i++)
        limit[i] = g->setting_up || i >= g->nfs || g->limit[i] <= 0 ? g->timeout : g->limit[i];
    int rc = g->inline_run ? fsset_run_inline(job, ctx, limit[0], &late, unblock_fs0, g)
                           : fsset_run(job, ctx, limit, &late);
    g->timed_out = rc < 0;
    g->failed_fs = rc < 0 ? late : rc - 1;
    if (rc == 0)
        return 0;
    if (rc < 0)
        snprintf(g->err, sizeof g->err, "%s: %s timed out after %g s",
                 late >= 0 && late < g->nfs ? g->cfg->fs[late].name : "?", step,
                 late >= 0 && late < METIS_MAX_FS ? limit[late] : g->timeout);
    else
        snprintf(g->err, sizeof g->err, "%s", g->be[rc - 1]->err[0] ? g->be[rc - 1]->err : step);
    return -1;
}

/* ---- history, for backends that restore by replay ---- */

static void history_forget(struct fsgroup *g, uint64_t sid)
{
    struct step_history *h;
    HASH_FIND(hh, g->hist, &sid, sizeof sid, h);
    if (h) {
        HASH_DEL(g->hist, h);
        free(h->op);
        free(h);
    }
}

/* text: the operations that made sid from parent, one per line (several: a concurrent step,
 * in the serial order the reference kept). */
/* 1 when a restore call meant for the fs of mask on (0: every fs) is made on fs i. */
static int call_made_on(unsigned on, int i)
{
    return !on || ((on >> i) & 1);
}

static int history_add(struct fsgroup *g, uint64_t sid, uint64_t parent, const char *text,
                       unsigned on)
{
    struct step_history *h;
    history_forget(g, sid);
    if (!(h = calloc(1, sizeof *h)) || !(h->op = strdup(text))) {
        free(h);
        return gerr(g, "%s", "out of memory for the search path's history");
    }
    h->sid = sid;
    h->parent = parent;
    h->on = on;
    HASH_ADD(hh, g->hist, sid, sizeof h->sid, h);
    return 0;
}

static int history_add_op(struct fsgroup *g, uint64_t sid, uint64_t parent,
                          const struct op_args *a)
{
    char text[METIS_OP_LINE_MAX];
    op_format(a, text, sizeof text);
    return history_add(g, sid, parent, text, 0);
}

static int history_add_call(struct fsgroup *g, uint64_t sid, uint64_t parent,
                            const struct rcall *c, unsigned on)
{
    struct buf b = { 0 };
    int rc = buf_printf(&b, CALL_PREFIX) == 0 && rcall_format(c, &b) == 0
                 ? history_add(g, sid, parent, b.p, on)
                 : gerr(g, "%s", "out of memory for the search path's history");
    buf_free(&b);
    return rc;
}

/* The step that made sid was refused as unsupported: the file systems that skipped it must not
 * run it when they replay, and the refusal changed nothing, so no one replays it. (SPIN never
 * goes on from such a state, which equals its parent; this keeps a replay right regardless.) */
static void history_refused(struct fsgroup *g, uint64_t sid)
{
    struct step_history *h;
    HASH_FIND(hh, g->hist, &sid, sizeof sid, h);
    if (h) {
        free(h->op);
        h->op = NULL;
    }
}

/* The steps from state from (BACKEND_REPLAY_INITIAL: the initial state) to sid, last
 * first; their count or -1 if unknown. */
static long history_chain(struct fsgroup *g, uint64_t from, uint64_t sid,
                          const struct step_history ***ops)
{
    size_t n = 0, cap = 0;
    const struct step_history **v = NULL;
    while (sid != 0 && sid != from) {
        struct step_history *h;
        HASH_FIND(hh, g->hist, &sid, sizeof sid, h);
        if (!h || n > 10000000)
            return free(v), -1;
        if (array_reserve(&v, &cap, n + 1, sizeof *v))
            return free(v), -1;
        v[n++] = h;
        sid = h->parent;
    }
    if (from != BACKEND_REPLAY_INITIAL && sid != from)
        return free(v), -1;     /* from is not on the path to sid */
    *ops = v;
    return (long)n;
}

static int fs_index(const struct fsgroup *g, const struct backend *b)
{
    int i = 0;
    while (i < g->nfs - 1 && g->be[i] != b)
        i++;
    return i;
}

/* A restore call on the way to a state: run as a replay of a history traced it (fsgroup_call). */
static int replay_call(struct backend *b, const char *text)
{
    char *copy = strdup(text), err[300];
    unsigned char *data = NULL;
    struct rcall c;
    int rc = copy ? rcall_parse(copy, &c, &data, err, sizeof err) : -1;
    if (rc == 0)
        rcall_exec(b->rootfd, &c);
    else
        snprintf(b->err, sizeof b->err, "%s: replaying a restore call: %s", b->cfg->name,
                 copy ? err : "out of memory");
    free(data);
    free(copy);
    return rc;
}

/* Runs the operations of one history entry (one per line) on b. */
static int replay_lines(struct backend *b, const char *text)
{
    char line[METIS_OP_LINE_MAX], err[256];
    struct op_args a;
    struct op_result r;
    while (*text) {
        size_t n = strcspn(text, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, text);
        text += n + (text[n] == '\n');
        if (op_parse(line, &a, err, sizeof err) < 0) {
            snprintf(b->err, sizeof b->err, "%s: replaying '%.600s': %s", b->cfg->name, line, err);
            return -1;
        }
        op_exec(b->rootfd, &a, &r);
    }
    return 0;
}

/* One history entry: an operation, a restore call, or a concurrent step's calls in the order
 * kept. */
static int replay_entry(struct backend *b, const char *text)
{
    char err[256];
    if (strncmp(text, CALL_PREFIX, strlen(CALL_PREFIX)) == 0)
        return replay_call(b, text + strlen(CALL_PREFIX));
    if (!together_is_history(text))
        return replay_lines(b, text);
    if (together_replay(b->rootfd, text, err, sizeof err) == 0)
        return 0;
    snprintf(b->err, sizeof b->err, "%s: replaying a concurrent step: %s", b->cfg->name, err);
    return -1;
}

/* A backend without snapshots holds state `from` (BACKEND_REPLAY_INITIAL: it was remounted
 * fresh, and the initial state's making, fillers and prepopulation, comes first): rebuild
 * state sid by the operations that led from there to it. */
static int replay_to_state(void *ctx, struct backend *b, uint64_t from, uint64_t sid)
{
    struct fsgroup *g = ctx;
    const struct step_history **ops = NULL;
    long n = history_chain(g, from, sid, &ops);
    if (n < 0) {
        snprintf(b->err, sizeof b->err, "%s: restore: state %llu has no recorded path",
                 b->cfg->name, (unsigned long long)sid);
        return -1;
    }
    int fresh = from == BACKEND_REPLAY_INITIAL;
    int rc = fresh ? equalize_replay(b->rootfd, &g->fillers[fs_index(g, b)]) : 0;
    if (rc == 0 && fresh && !b->populated)
        prepopulate_run(b->rootfd, g->plan, g->nplan);
    int me = fs_index(g, b);
    for (long k = n - 1; rc == 0 && k >= 0; k--)
        rc = ops[k]->op && call_made_on(ops[k]->on, me) ? replay_entry(b, ops[k]->op) : 0;
    free(ops);
    return rc;
}

/* The initial state's entries in a directory a backend shows at its first mount (an overlay's
 * lower layer; later a FUSE target's backing directory): the prepopulation, made there. */
static int populate_dir(void *ctx, int dirfd)
{
    const struct fsgroup *g = ctx;
    prepopulate_run(dirfd, g->plan, g->nplan);
    return 0;
}

/* ---- opening and setting up ---- */

static int init_abstraction(struct fsgroup *g)
{
    char msg[256];
    g->dlen = tree_digest_len(g->cfg->run.hash);
    if (g->dlen <= 0)
        return gerr(g, "unknown hash '%s'", g->cfg->run.hash);
    for (int i = 0; i < g->nfs; i++) {
        const struct fs_config *fs = &g->cfg->fs[i];
        struct tree_opts *o = &g->abs[i];
        o->hash = g->cfg->run.hash;
        o->mtime = g->cfg->run.compare_mtime;
        snprintf(g->exclude[i], sizeof g->exclude[i], "%s%s%s", fs->exclude,
                 fs->exclude[0] ? "," : "", FILLER_DIR);
        o->exclude = g->exclude[i];
        if (tree_parse_ignore(fs->ignore, &o->ignore, msg, sizeof msg) < 0)
            return gerr(g, "%s", msg);
        o->ignore |= fs->lacks_ignore;      /* the run's lacks: alike on every fs */
    }
    return 0;
}

/* The initial state is the prepopulation plan of the config's pool (the pool does not depend
 * on the seed, so the engine and the replayer make the same one). */
static int init_plan(struct fsgroup *g)
{
    struct input in;
    if (input_init(&in, g->cfg, g->cfg->run.seed) < 0)
        return gerr(g, "%s", "cannot build the name pool of the config");
    int rc = prepopulate_plan(g->cfg, &in.pool, &g->plan, &g->nplan);
    input_free(&in);
    return rc < 0 ? gerr(g, "%s", "out of memory for the prepopulation plan") : 0;
}

/* Free space no search of the config can exhaust: twice the pool's data plus 16 KiB of
 * metadata a name (a directory's blocks, an external xattr block, an extent tree), twice its
 * names in inodes. A kept fs's restore need not bring back free counts above these exactly. */
static void set_ample(struct backend *b, const struct metis_config *cfg)
{
    uint64_t data = config_pool_data(cfg), names = config_pool_names(cfg);
    const uint64_t meta = 16 * 1024;
    b->ample_bytes = data > UINT64_MAX / 4 || names > UINT64_MAX / 4 / meta
                         ? 0 : 2 * data + names * meta;
    b->ample_inodes = 2 * names;
}

static int open_backends(struct fsgroup *g, const char *run_id, const char *workdir)
{
    int failed = 0;
    for (int i = 0; i < g->nfs; i++) {
        const struct fs_config *fs = &g->cfg->fs[i];
        if (!(g->be[i] = backend_open(fs, run_id, workdir)))
            return gerr(g, "cannot create the backend of fs %s", fs->name);
        if (!(g->crash[i] = crash_open(g->cfg, i, g->be[i], &g->abs[i], &failed)) && failed)
            return gerr(g, "out of memory for the crash check of fs %s", fs->name);
        if (!(g->fault[i] = fault_open(g->cfg, i, g->be[i], &g->abs[i], &failed)) && failed)
            return gerr(g, "out of memory for the fault check of fs %s", fs->name);
        g->be[i]->replay_fn = replay_to_state;
        g->be[i]->replay_ctx = g;
        g->be[i]->populate_fn = populate_dir;
        set_ample(g->be[i], g->cfg);
        g->limit[i] = fs->op_timeout;
        /* Logically restored file systems replay when a restore misses. */
        int no_snapshots = (fs->type == FS_FUSE &&
                            (fs->size == 0 || fs->dir_backed || !fs->remount)) ||
                           (fs->type == FS_KERNEL &&
                            (fs_format_devless(fs->fstype) || !fs->remount));
        g->needs_history |= no_snapshots;
        g->no_snapshots |= (unsigned)no_snapshots << i;
        if (fs->op_timeout > g->timeout)
            g->timeout = fs->op_timeout;
    }
    if (g->timeout <= 0)
        g->timeout = 30;
    return 0;
}

int fsgroup_open(struct fsgroup *g, const struct metis_config *cfg, const char *run_id,
                 const char *workdir)
{
    memset(g, 0, sizeof *g);
    g->cfg = cfg;
    g->nfs = cfg->nfs;
    g->live = STEP_NO_STATE;
    g->unsaved = STEP_NO_STATE;
    if (init_abstraction(g) < 0 || init_plan(g) < 0)
        return -1;
    op_set_insert_cap(config_file_extent(cfg));
    /* RefFS alone: its steps run on this thread, which start_daemon (backend/reffs.c) pins
     * to one CPU with the daemon. */
    g->inline_run = g->nfs == 1 && cfg->fs[0].type == FS_REFFS;
    if (g->inline_run)
        return open_backends(g, run_id, workdir);
    if (!fsset_workers && fsset_start(g->nfs) < 0)
        return gerr(g, "%s", "cannot start the file-system worker threads");
    if (g->nfs > fsset_workers && fsset_workers)
        return gerr(g, "%s", "more file systems than worker threads");
    if (!fsset_workers)
        fsset_workers = g->nfs;
    return open_backends(g, run_id, workdir);
}

static int setup_one(int i, void *ctx)
{
    struct fsgroup *g = ctx;
    return i < g->nfs ? g->be[i]->ops->setup(g->be[i]) : 0;
}

/* A search whose [vary] variant fills the devices starts with little free space or few free
 * inodes, the same on every fs (vary.c; the config allows it for one kind of fs only). */
static int fill_varied(struct fsgroup *g)
{
    const struct vary_config *v = &g->cfg->vary;
    if (!v->fill_on && !v->fill_inodes_on)
        return 0;
    return equalize_fill(g->be, g->nfs, v->fill_on ? v->bytes_left : UINT64_MAX,
                         v->fill_inodes_on ? v->inodes_left : UINT64_MAX, g->free_after,
                         g->fillers);
}

static int prepopulate_one(int i, void *ctx)
{
    struct fsgroup *g = ctx;
    struct backend *b = i < g->nfs ? g->be[i] : NULL;
    if (!b || b->populated)
        return 0;
    if (b->ops->begin(b) < 0)
        return -1;
    prepopulate_run(b->rootfd, g->plan, g->nplan);
    return b->ops->end(b);
}

/* A backend whose layer held the initial state's entries before its first mount (overlay's
 * populate_lower) has them on its device when free space is equalized: the others get them
 * then too, through their mounts, so that all start with equal free space. */
static int prepopulate_early(struct fsgroup *g)
{
    int any = 0;
    for (int i = 0; i < g->nfs; i++)
        any |= g->be[i]->populated;
    if (!any || g->nplan == 0)
        return 0;
    g->plan_made_early = 1;
    return fsgroup_run(g, prepopulate_one, g, "prepopulation");
}

/* The fs whose step of the set-up failed names the failure: a target's daemon may have died
 * meanwhile, which is a finding (fsgroup_target_failure), not Metis's own failure. */
static int setup_failed(struct fsgroup *g, const char *what)
{
    for (int i = 0; i < g->nfs; i++)
        if (g->be[i]->err[0]) {
            g->failed_fs = i;
            return gerr(g, "%s", g->be[i]->err);
        }
    return gerr(g, "%s failed", what);
}

int fsgroup_setup(struct fsgroup *g, double setup_timeout)
{
    double step_timeout = g->timeout;
    g->timeout = setup_timeout;
    g->setting_up = 1;
    int rc = fsgroup_run(g, setup_one, g, "setup");
    g->setting_up = 0;
    g->timeout = step_timeout;
    if (rc < 0)
        return -1;
    g->failed_fs = -1;
    for (int i = 0; i < g->nfs; i++)
        if ((g->crash[i] && crash_setup(g->crash[i]) < 0) ||
            (g->fault[i] && fault_setup(g->fault[i]) < 0))
            return gerr(g, "%s", g->be[i]->err);
    if (equalize_grow_reference(g->be, g->nfs, g->cfg->run.equalize_limit) < 0)
        return setup_failed(g, "growing the reference");
    if (prepopulate_early(g) < 0)
        return -1;
    /* Free space equal on every fs, so ENOSPC falls at the same operation on each; the roots
     * alike, since a passthrough target's root is a backing directory made by someone else. */
    if (equalize_backends(g->be, g->nfs, g->free_after, g->fillers,
                          g->cfg->run.equalize_limit) == 0 && fill_varied(g) == 0 &&
        equalize_root(g->be, g->nfs, g->fillers) == 0) {
        setup_notes_make(g->cfg, g->fillers, g->abs, g->nfs, &g->setup);
        return 0;
    }
    return setup_failed(g, "equalizing free space and roots");
}

/* ---- steps ---- */

struct step_job {
    struct fsgroup *g;
    const struct op_args *args;  /* NULL: make the initial state (or run call) */
    const struct rcall *call;    /* not NULL: a restore call instead (fsgroup_call) */
    unsigned call_on;            /* ... made on fs i when bit i is set (0: on every fs) */
    const struct fault_spec *fault;  /* NULL or not on: no fault step */
    uint64_t from, to;
    unsigned only;               /* bit i: run on fs i (0: on all) */
    const struct op_result *skip;/* not NULL: leave the operation out and record this refusal */
    uint64_t save_first;         /* lazy_save: the live state, saved before the step goes on
                                    from it (STEP_NO_STATE: nothing to save) */
    int again;                   /* a second pass on fs that ran already: saves and discards
                                    before the step are done */
    step_exec_fn *exec;          /* not NULL: the step's calls, made instead of args (a
                                    concurrent step's, or a serial order of them) */
    void *ctx;                   /* ... and what they need */
    unsigned char fault_before[METIS_MAX_FS][TREE_MAX_DIGEST];  /* a fault step: each fs's
                                    digest of the state the step starts from ... */
    int fault_blen[METIS_MAX_FS];  /* ... and its length (-1: unknown) */
};

/* fs i's read-back into out[i] (digest, and canon when the group asks for it). */
static int read_back(struct fsgroup *g, int i, FILE *listing)
{
    struct fs_outcome *o = &g->out[i];
    tree_digest_canon(g->canon);
    o->dlen = backend_read_back(g->be[i], &g->abs[i], o->digest, listing,
                                i == 0 ? &g->tree : NULL);
    o->canon_len = g->canon && o->dlen >= 0 ? tree_digest_canon_last(o->canon) : -1;
    tree_digest_canon(NULL);
    return o->dlen;
}

int fsgroup_read_state(struct fsgroup *g, int i)
{
    struct backend *b = g->be[i];
    struct fs_outcome *o = &g->out[i];
    /* The reference's entries come with its digest, for state-aware path draws. */
    b->own_failure = 0;
    FILE *listing = crash_live_listing(g->crash[i]), *kept = NULL;
    size_t kept_len;
    if (!listing)
        listing = fault_clean_listing(g->fault[i]);
    free(o->listing);
    o->listing = NULL;
    if (!listing && g->keep_listings)
        listing = kept = open_memstream(&o->listing, &kept_len);
    read_back(g, i, listing);
    if (kept && (fclose(kept) != 0 || o->dlen < 0)) {
        free(o->listing);
        o->listing = NULL;
    }
    o->unreadable = o->dlen < 0 && !b->own_failure;
    if (o->dlen >= 0)
        return 0;
    b->ops->end(b);
    return -1;
}

/* Right after the operation, while mounted: the crash check's sync and copy. */
static int crash_capture_step(struct step_job *j, int i)
{
    struct backend *b = j->g->be[i];
    struct fs_outcome *o = &j->g->out[i];
    double t = now_seconds();
    memset(&o->crash, 0, sizeof o->crash);
    if (!j->g->crash[i] || !j->args)
        return 0;
    if (crash_capture(j->g->crash[i], b->rootfd, j->args, &o->crash) < 0) {
        b->ops->end(b);
        return -1;
    }
    o->t_crash += now_seconds() - t;
    return 0;
}

/* Once the fs is unmounted: the copy recovered and judged. */
static int crash_verify_step(struct step_job *j, int i)
{
    struct fs_outcome *o = &j->g->out[i];
    double t = now_seconds();
    int rc = crash_verify(j->g->crash[i], o->digest, o->dlen, &o->crash);
    o->t_crash += now_seconds() - t;
    return rc;
}

/* Where a fault step keeps the state it starts from, and the one its clean run made, when the
 * caller saves none (a replay). */
#define FAULT_FROM_STATE (UINT64_MAX - 16)
#define FAULT_BACK_STATE (UINT64_MAX - 17)

/* Before the clean step of a fault step: the saved state it starts from (kept under
 * FAULT_FROM_STATE when the caller saves none) and its digest; STEP_NO_STATE when the step is
 * no fault step on fs i. */
static int fault_origin(struct step_job *j, int i, uint64_t *origin)
{
    struct fsgroup *g = j->g;
    struct backend *b = g->be[i];
    struct fs_outcome *o = &g->out[i];
    *origin = STEP_NO_STATE;
    memset(&o->fault, 0, sizeof o->fault);
    if (!g->fault[i] || !j->fault || !j->fault->on || !j->args || j->skip || j->again)
        return 0;
    *origin = j->from != STEP_NO_STATE ? j->from : g->live;
    j->fault_blen[i] = o->dlen;
    if (j->from != STEP_NO_STATE)
        j->fault_blen[i] = fault_state_digest(g->fault[i], j->from, j->fault_before[i]);
    else
        memcpy(j->fault_before[i], o->digest, sizeof o->digest);
    if (*origin == STEP_NO_STATE && b->ops->save(b, *origin = FAULT_FROM_STATE) < 0)
        return -1;
    return fault_expect(g->fault[i]);
}

/* After the clean step: the fault check (which leaves the fs in the clean step's state), and
 * that state noted for later checks. */
static int fault_after_step(struct step_job *j, int i, uint64_t origin)
{
    struct fsgroup *g = j->g;
    struct backend *b = g->be[i];
    struct fs_outcome *o = &g->out[i];
    if (!g->fault[i])
        return 0;
    if (origin != STEP_NO_STATE) {
        double t = now_seconds();
        uint64_t back = j->to != STEP_NO_STATE ? j->to : FAULT_BACK_STATE;
        struct fault_step s = { origin, back, j->args, j->fault, o->res, j->fault_before[i],
                                o->digest, j->fault_blen[i], o->dlen };
        if ((back == FAULT_BACK_STATE && b->ops->save(b, back) < 0) ||
            fault_check_step(g->fault[i], &s, &o->fault) < 0)
            return -1;
        if (back == FAULT_BACK_STATE)
            b->ops->discard(b, back);
        if (origin == FAULT_FROM_STATE)
            b->ops->discard(b, origin);
        o->t_fault += now_seconds() - t;
        o->fault_steps++;
    }
    return j->to != STEP_NO_STATE ? fault_note_state(g->fault[i], j->to, o->digest, o->dlen) : 0;
}

/* Saves lazily: RefFS, whose save is an ioctl nothing else depends on. A kernel fs's save
 * also tells its image store what the device holds, which makes the next restore cheap. */
static int lazy_fs(const struct fsgroup *g, int i)
{
    return g->lazy_save && g->cfg->fs[i].type == FS_REFFS;
}

/* What lazy_save put off until a step needs it: the discards SPIN's backtracks asked for, and
 * the save of the live state the step is about to change. */
static int lazy_work(struct fsgroup *g, int i, uint64_t save_first)
{
    struct backend *b = g->be[i];
    int lazy = lazy_fs(g, i);
    for (size_t k = 0; k < g->ndiscards; k++)
        if (!(lazy && g->discards[k].never_saved_lazily))
            b->ops->discard(b, g->discards[k].sid);
    return lazy && save_first != STEP_NO_STATE ? b->ops->save(b, save_first) : 0;
}

/* A step's calls could not be made at all (no thread for them): Metis's own failure. */
static int exec_failed(struct backend *b)
{
    int saved = errno;
    b->ops->end(b);
    snprintf(b->err, sizeof b->err, "fs %s: the step's calls could not be made: %s",
             b->cfg->name, strerror(saved));
    return -1;
}

/* [run] remount_test_lose, a test hook: the data of a write of at least that many bytes never
 * reaches the device of a kernel fs kept mounted (backend.h's lose_write). An append landed at
 * the end of the file as it is now. */
static void lose_write(const struct fsgroup *g, struct backend *b, const struct op_args *a,
                       const struct op_result *r)
{
    uint64_t least = g->cfg->run.remount_test_lose;
    struct stat st;
    if (!least || !b->ops->lose_write || a->op != OP_write_file || r->ret <= 0 ||
        (uint64_t)r->ret < least)
        return;
    uint64_t off = a->offset;
    if ((a->flags & O_APPEND) && fstatat(b->rootfd, a->path + 1, &st, 0) == 0)
        off = (uint64_t)st.st_size - (uint64_t)r->ret;
    b->ops->lose_write(b, a->path, off, (uint64_t)r->ret);
}

static void call_exec(int rootfd, const struct rcall *c, struct op_result *r)
{
    r->ret = rcall_exec(rootfd, c);
    r->err = r->ret < 0 ? errno : 0;
}

static int step_one(int i, void *ctx)
{
    struct step_job *j = ctx;
    if (i >= j->g->nfs || (j->only && !((j->only >> i) & 1)))
        return 0;
    struct backend *b = j->g->be[i];
    struct fs_outcome *o = &j->g->out[i];
    double t = now_seconds();
    o->unreadable = 0;
    if (!j->again && lazy_work(j->g, i, j->save_first) < 0)
        return -1;
    uint64_t origin;
    if (fault_origin(j, i, &origin) < 0)
        return -1;
    double t_restore = now_seconds();
    o->t_finish += t_restore - t;
    t = t_restore;
    if ((j->from != STEP_NO_STATE && b->ops->restore(b, j->from) < 0) ||
        (j->args && crash_start(j->g->crash[i]) < 0) || b->ops->begin(b) < 0)
        return -1;
    double t_op = now_seconds();
    o->res = (struct op_result){ 0, 0 };
    o->skipped = j->skip != NULL;
    if (j->skip)
        o->res = *j->skip;
    else if (j->exec && j->exec(i, b->rootfd, j->ctx) < 0)
        return exec_failed(b);
    else if (j->exec)
        ;
    else if (j->call && call_made_on(j->call_on, i))
        call_exec(b->rootfd, j->call, &o->res);
    else if (j->args)
        op_exec(b->rootfd, j->args, &o->res);
    else if (!b->populated && !j->g->plan_made_early)   /* else they are there already */
        prepopulate_run(b->rootfd, j->g->plan, j->g->nplan);
    if (j->args && !j->skip)
        lose_write(j->g, b, j->args, &o->res);
    /* Only a FUSE mount whose daemon is gone answers these: a finding of its own
     * (fsgroup_target_failure), not an errno to compare. */
    if (backend_errno_of_dead_daemon(o->res.err) && backend_daemon_gone(b)) {
        b->ops->end(b);
        snprintf(b->err, sizeof b->err, "fs %s: the daemon is gone: the mount answers %s",
                 b->cfg->name, errno_name(o->res.err));
        return -1;
    }
    double t_abs = now_seconds();
    if (crash_capture_step(j, i) < 0)
        return -1;
    double t_read = now_seconds();
    b->read_step = 1;
    b->checkpoint_now = j->g->checkpoint_next;
    int read = j->call ? 0 : fsgroup_read_state(j->g, i);
    b->read_step = b->checkpoint_now = 0;
    o->remount = b->remount;
    if (read < 0)
        return -1;
    double t_end = now_seconds();
    if (b->ops->end(b) < 0 ||
        (j->to != STEP_NO_STATE && !lazy_fs(j->g, i) && b->ops->save(b, j->to) < 0))
        return -1;
    o->t_prepare += t_op - t;
    o->t_op += t_abs - t_op;
    o->t_abstract += t_end - t_read;
    o->t_finish += now_seconds() - t_end;
    if (j->call)
        return 0;
    if (fault_after_step(j, i, origin) < 0)
        return -1;
    return crash_verify_step(j, i);
}

int fsgroup_initial(struct fsgroup *g)
{
    int lazy = g->lazy_save;
    struct step_job j = { .g = g, .from = STEP_NO_STATE, .to = 0, .save_first = STEP_NO_STATE };
    g->lazy_save = 0;            /* the initial state is always saved */
    int rc = fsgroup_run(g, step_one, &j, "initial state");
    g->lazy_save = lazy;
    if (rc < 0)
        return -1;
    for (int i = 0; i < g->nfs; i++)
        g->out[i].t_prepare = g->out[i].t_op = g->out[i].t_abstract = g->out[i].t_finish =
            g->out[i].t_crash = g->out[i].t_fault = 0;
    g->live = 0;
    return 0;
}

/* The file systems that list a's operation or variant as unsupported (bit i for fs i). */
static unsigned gatekeepers(const struct fsgroup *g, const struct op_args *a)
{
    unsigned mask = 0;
    int v = op_variant_of(a);
    for (int i = 0; i < g->nfs; i++)
        if (fs_unsupported(&g->cfg->fs[i], a->op, v))
            mask |= 1u << i;
    return mask;
}

/* Gatekeepers that ran the operation before a later one refused it: back to the state before
 * the step, where they skip it as every other fs does, so that the refusal is compared with
 * unchanged states. Without a saved parent (a replay that saves nothing) they stay as run. */
static int unrun_gatekeepers(struct fsgroup *g, struct step_job *j, unsigned ran, uint64_t parent)
{
    if (parent == STEP_NO_STATE)
        return 0;
    uint64_t from = j->from;
    j->from = parent;
    j->only = ran;
    j->again = 1;
    int rc = fsgroup_run(g, step_one, j, op_name(j->args->op));
    j->from = from;
    j->again = 0;
    return rc;
}

/* Gatekeepers one at a time, in config order, until one refuses (EOPNOTSUPP); the rest, and
 * every other fs, then skip the operation, so that a gatekeeper which does support it never
 * runs it beside one that refused. Without a refusal the others run it together. */
static int gated_step(struct fsgroup *g, struct step_job *j, unsigned gate, uint64_t parent)
{
    unsigned all = g->nfs >= 32 ? ~0u : (1u << g->nfs) - 1, done = 0, ran = 0;
    struct op_result refused;
    for (int i = 0; i < g->nfs && !j->skip; i++) {
        if (!((gate >> i) & 1))
            continue;
        j->only = 1u << i;
        if (fsgroup_run(g, step_one, j, op_name(j->args->op)) < 0)
            return -1;
        done |= 1u << i;
        if (g->out[i].res.err == EOPNOTSUPP) {
            refused = g->out[i].res;
            j->skip = &refused;
        } else {
            ran |= 1u << i;
        }
    }
    if (j->skip && ran && unrun_gatekeepers(g, j, ran, parent) < 0)
        return -1;
    j->only = all & ~done;
    g->unsupported_step = j->skip != NULL;
    return j->only ? fsgroup_run(g, step_one, j, op_name(j->args->op)) : 0;
}

/* After a step to state to: the discards it did, the save lazy_save put off, the live state. */
static void stepped_to(struct fsgroup *g, uint64_t to)
{
    g->ndiscards = 0;
    if (g->lazy_save)
        g->unsaved = to;
    g->live = to;
}

static void drop_listings(struct fsgroup *g)
{
    for (int i = 0; i < g->nfs; i++) {
        free(g->out[i].listing);
        g->out[i].listing = NULL;
    }
}

int fsgroup_step(struct fsgroup *g, const struct op_args *a, const struct fault_spec *fault,
                 uint64_t from, uint64_t to)
{
    /* A restore elsewhere abandons an unsaved live state: SPIN never comes back to it. */
    struct step_job j = { .g = g, .args = a, .fault = fault, .from = from, .to = to,
                          .save_first = from == STEP_NO_STATE ? g->unsaved : STEP_NO_STATE };
    uint64_t parent = from != STEP_NO_STATE ? from : g->live;
    unsigned gate = gatekeepers(g, a);
    drop_listings(g);            /* a fs the step leaves out keeps none of an older step's */
    if (to != STEP_NO_STATE && g->needs_history && history_add_op(g, to, parent, a) < 0)
        return -1;
    g->unsupported_step = 0;
    g->unsaved = STEP_NO_STATE;
    if (gate ? gated_step(g, &j, gate, parent) < 0
             : fsgroup_run(g, step_one, &j, op_name(a->op)) < 0)
        return -1;
    g->checkpoint_next = 0;
    if (g->unsupported_step && to != STEP_NO_STATE && g->needs_history)
        history_refused(g, to);
    stepped_to(g, to);
    return 0;
}

int fsgroup_call(struct fsgroup *g, const struct rcall *c, unsigned on, uint64_t from,
                 uint64_t to)
{
    struct step_job j = { .g = g, .call = c, .call_on = on, .from = from, .to = to,
                          .save_first = from == STEP_NO_STATE ? g->unsaved : STEP_NO_STATE };
    uint64_t parent = from != STEP_NO_STATE ? from : g->live;
    if (to != STEP_NO_STATE && g->needs_history && history_add_call(g, to, parent, c, on) < 0)
        return -1;
    g->unsupported_step = 0;
    g->unsaved = STEP_NO_STATE;
    if (fsgroup_run(g, step_one, &j, "a restore call") < 0)
        return -1;
    stepped_to(g, to);
    return 0;
}

int fsgroup_pass(struct fsgroup *g, const struct step_pass *p)
{
    /* As fsgroup_step: without a restore, a live state not saved yet is saved before the
     * pass changes it, once per fs (its first pass of the step). */
    uint64_t save_first = p->from == STEP_NO_STATE && !p->again ? g->unsaved : STEP_NO_STATE;
    struct step_job j = { .g = g, .from = p->from, .to = p->to, .only = p->only,
                          .save_first = save_first, .again = p->again, .exec = p->exec,
                          .ctx = p->ctx };
    g->unsupported_step = 0;
    return fsgroup_run(g, step_one, &j, p->what);
}

struct save_job {
    struct fsgroup *g;
    uint64_t sid;
    unsigned only;
};

static int save_one(int i, void *ctx)
{
    struct save_job *j = ctx;
    struct fsgroup *g = j->g;
    if (i >= g->nfs || !((j->only >> i) & 1) || lazy_fs(g, i))
        return 0;
    return g->be[i]->ops->save(g->be[i], j->sid);
}

int fsgroup_save_as(struct fsgroup *g, uint64_t sid, unsigned only)
{
    struct save_job j = { g, sid, only };
    return sid == STEP_NO_STATE ? 0 : fsgroup_run(g, save_one, &j, "save");
}

struct aside_job {
    struct fsgroup *g;
    uint64_t sid;
    unsigned only;
    int forget;                  /* discard sid instead of saving it */
};

static int aside_one(int i, void *ctx)
{
    struct aside_job *j = ctx;
    struct backend *b = i < j->g->nfs && ((j->only >> i) & 1) ? j->g->be[i] : NULL;
    if (b && j->forget)
        b->ops->discard(b, j->sid);
    return b && !j->forget ? b->ops->save(b, j->sid) : 0;
}

int fsgroup_keep_aside(struct fsgroup *g, uint64_t sid, unsigned only)
{
    struct aside_job j = { g, sid, only, 0 };
    return fsgroup_run(g, aside_one, &j, "save");
}

int fsgroup_forget_aside(struct fsgroup *g, uint64_t sid, unsigned only)
{
    struct aside_job j = { g, sid, only, 1 };
    return fsgroup_run(g, aside_one, &j, "discard");
}

int fsgroup_passes_done(struct fsgroup *g, uint64_t parent, uint64_t to, const char *history)
{
    if (to != STEP_NO_STATE && g->needs_history && history_add(g, to, parent, history, 0) < 0)
        return -1;
    g->ndiscards = 0;
    if (g->lazy_save)
        g->unsaved = to;
    g->live = to;
    return 0;
}

int fsgroup_compare(struct fsgroup *g, int initial)
{
    const struct fs_outcome *ref = &g->out[0];
    int n = 0;
    initial |= g->unsupported_step;   /* a refusal and skips: no result to compare */
    for (int i = 1; i < g->nfs; i++) {
        struct fs_outcome *o = &g->out[i];
        o->differs = 0;
        o->have_fresh = 0;
        if (!initial && o->res.ret != ref->res.ret)
            o->differs |= DIFF_RET;
        if (!initial && o->res.err != ref->res.err &&
            !fs_errno_equivalent(&g->cfg->fs[i], o->res.err, ref->res.err))
            o->differs |= DIFF_ERRNO;
        if (o->dlen != ref->dlen || memcmp(o->digest, ref->digest, (size_t)ref->dlen) != 0)
            o->differs |= DIFF_STATE;
        n += o->differs != 0;
    }
    g->out[0].differs = 0;
    /* A crash, fault or remount check holds each fs to its own promise: the reference can fail
     * it too. */
    for (int i = 0; i < g->nfs; i++) {
        struct fs_outcome *o = &g->out[i];
        unsigned own = DIFF_OF_CRASH(o->crash.kinds) | DIFF_OF_FAULT(o->fault.kinds) |
                       (o->remount.differs ? DIFF_REMOUNT : 0);
        n += own && !o->differs;
        o->differs |= own;
    }
    return n;
}

/* ---- the kernel's attribute cache ---- */

int fsgroup_caches_attrs(const struct fsgroup *g, int i)
{
    enum fs_type t = g->cfg->fs[i].type;
    return (t == FS_FUSE || t == FS_REFFS) && !g->be[i]->reads_daemon_tree;
}

unsigned fsgroup_cache_suspects(const struct fsgroup *g)
{
    unsigned which = 0;
    for (int i = 1; i < g->nfs; i++)
        if ((g->out[i].differs & DIFF_STATE) && fsgroup_caches_attrs(g, i))
            which |= 1u << i;
    if (which && fsgroup_caches_attrs(g, 0))
        which |= 1u;
    return which;
}

struct fresh_job {
    struct fsgroup *g;
    unsigned which;
};

/* A tree the fresh read-back changed was saved as the kernel's cache showed it: a logical
 * restore would later aim at that stale tree, so the live state is saved again. */
static int reread_fresh_one(int i, void *ctx)
{
    struct fresh_job *j = ctx;
    struct fsgroup *g = j->g;
    struct backend *b = g->be[i];
    struct fs_outcome *o = &g->out[i];
    unsigned char before[TREE_MAX_DIGEST];
    int blen = o->dlen;
    size_t len;
    if (!(j->which >> i & 1))
        return 0;
    memcpy(before, o->digest, sizeof before);
    if (b->ops->begin(b) < 0)
        return -1;
    free(o->listing);
    o->listing = NULL;
    FILE *listing = open_memstream(&o->listing, &len);   /* the engine judges it next */
    tree_walk_fresh_attrs(1);
    read_back(g, i, listing);
    tree_walk_fresh_attrs(0);
    if (listing && (fclose(listing) != 0 || o->dlen < 0)) {
        free(o->listing);
        o->listing = NULL;
    }
    o->unreadable = o->dlen < 0 && !b->own_failure;
    if (o->dlen < 0 || b->ops->end(b) < 0)
        return -1;
    int changed = blen != o->dlen || memcmp(before, o->digest, (size_t)o->dlen) != 0;
    if (changed && g->live != STEP_NO_STATE && !lazy_fs(g, i))
        return b->ops->save(b, g->live);
    return 0;
}

int fsgroup_reread_fresh(struct fsgroup *g, unsigned which)
{
    struct fresh_job j = { g, which };
    return fsgroup_run(g, reread_fresh_one, &j, "reading back past the attribute cache");
}

/* ---- a target that failed a step ---- */

/* The file systems whose failures are findings: a daemon Metis runs, serving a target. A kernel
 * fs, or any reference, failing is Metis's own failure. */
static int is_target_daemon(const struct fsgroup *g, int i)
{
    return i > 0 && i < g->nfs &&
           (g->cfg->fs[i].type == FS_FUSE || g->cfg->fs[i].type == FS_REFFS);
}

struct probe_job {
    struct fsgroup *g;
    int fs, gone;
};

static int probe_one(int i, void *ctx)
{
    struct probe_job *p = ctx;
    if (i == p->fs)
        p->gone = backend_daemon_gone(p->g->be[i]);
    return 0;
}

/* Asked from a worker, within the time limit: a mount that hangs there is a hang. */
static enum target_failure probe_daemon(struct fsgroup *g, int i)
{
    char err[sizeof g->err];
    struct probe_job p = { g, i, 0 };
    snprintf(err, sizeof err, "%s", g->err);
    if (g->be[i]->daemon_died)
        return TF_DAEMON_DIED;
    if (fsgroup_run(g, probe_one, &p, "the daemon probe after a failed step") < 0) {
        g->failed_fs = i;
        return TF_HANG;
    }
    snprintf(g->err, sizeof g->err, "%s", err);
    g->failed_fs = i;
    return p.gone ? TF_DAEMON_DIED : TF_NONE;
}

/* A failure no fs was named for (a check of the engine's, set-up's equalization): a target
 * daemon that died or hangs meanwhile is still its cause, not Metis. */
static enum target_failure unnamed_failure(struct fsgroup *g, int *fs)
{
    for (int i = 1; i < g->nfs; i++) {
        enum target_failure k = is_target_daemon(g, i) ? probe_daemon(g, i) : TF_NONE;
        if (k != TF_NONE) {
            *fs = i;
            return k;
        }
    }
    g->failed_fs = -1;
    return TF_NONE;
}

enum target_failure fsgroup_target_failure(struct fsgroup *g, int *fs)
{
    int i = *fs = g->failed_fs;
    if (i < 0 && !g->timed_out)
        return unnamed_failure(g, fs);
    if (!is_target_daemon(g, i))
        return TF_NONE;
    if (g->timed_out)
        return TF_HANG;
    enum target_failure k = probe_daemon(g, i);
    if (k != TF_NONE)
        return k;
    if (g->be[i]->restore_unreachable)
        return TF_RESTORE_UNREACHABLE;
    if (g->be[i]->unmount_failed)
        return TF_UNMOUNT_FAILED;
    return g->out[i].unreadable || g->be[i]->tree_unreadable ? TF_UNREADABLE : TF_NONE;
}

const char *target_failure_name(enum target_failure k)
{
    static const char *const names[] = { "none", "daemon-died", "hang", "restore-unreachable",
                                         "unreadable", "unmount-failed" };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

int fsgroup_recover(struct fsgroup *g, int i, enum target_failure k)
{
    const double grace = 10;
    if (k != TF_DAEMON_DIED && k != TF_HANG)
        return 0;
    backend_abort(g->be[i]);
    if (fsset_wait(grace) == 0)
        return 0;
    snprintf(g->err, sizeof g->err, "fs %s: still busy %.0f s after its daemon was killed and its "
             "FUSE connection aborted%s", g->cfg->fs[i].name, grace,
             fusectl_mounted() ? "" : " (fusectl is not mounted on " FUSECTL_DIR ")");
    return -1;
}

struct discard_job {
    struct fsgroup *g;
    uint64_t sid;
};

static int discard_one(int i, void *ctx)
{
    struct discard_job *j = ctx;
    if (i < j->g->nfs)
        j->g->be[i]->ops->discard(j->g->be[i], j->sid);
    return 0;
}

int fsgroup_discard(struct fsgroup *g, uint64_t sid)
{
    struct discard_job j = { g, sid };
    history_forget(g, sid);
    for (int i = 0; i < g->nfs; i++)
        if (g->fault[i])
            fault_forget_state(g->fault[i], sid);
    if (!g->lazy_save)
        return fsgroup_run(g, discard_one, &j, "discard");
    int unsaved = sid == g->unsaved, eager = 0;
    if (unsaved)
        g->unsaved = STEP_NO_STATE;
    for (int i = 0; i < g->nfs; i++)
        eager |= !lazy_fs(g, i);
    if (unsaved && !eager)
        return 0;
    if (array_reserve(&g->discards, &g->discards_cap, g->ndiscards + 1, sizeof *g->discards))
        return gerr(g, "%s", "out of memory for the states to discard");
    g->discards[g->ndiscards++] = (struct step_discard){ sid, unsaved };
    return 0;
}

static int save_live_one(int i, void *ctx)
{
    struct fsgroup *g = ctx;
    return i < g->nfs && lazy_fs(g, i) ? g->be[i]->ops->save(g->be[i], g->unsaved) : 0;
}

int fsgroup_save_live(struct fsgroup *g)
{
    if (g->unsaved == STEP_NO_STATE)
        return 0;
    int rc = fsgroup_run(g, save_live_one, g, "save");
    g->unsaved = STEP_NO_STATE;
    return rc;
}

void fsgroup_crash_report(struct fsgroup *g, int i, FILE *f, const char *dir, uint64_t seq)
{
    if (g->crash[i] && g->out[i].crash.checked)
        crash_report(g->crash[i], &g->out[i].crash, f, dir, seq);
}

void fsgroup_fault_report(struct fsgroup *g, int i, FILE *f)
{
    if (g->fault[i] && g->out[i].fault.checked)
        fault_report(g->fault[i], &g->out[i].fault, f);
}

void fsgroup_crash_close(struct fsgroup *g)
{
    for (int i = 0; i < g->nfs; i++) {
        crash_close(g->crash[i]);
        g->crash[i] = NULL;
    }
}

void fsgroup_close(struct fsgroup *g)
{
    fsgroup_crash_close(g);
    for (int i = 0; i < g->nfs; i++) {
        fault_close(g->fault[i]);
        g->fault[i] = NULL;
    }
    for (int i = 0; i < g->nfs; i++)
        if (g->be[i]) {
            backend_close(g->be[i]);
            g->be[i] = NULL;
        }
    struct step_history *h, *tmp;
    HASH_ITER(hh, g->hist, h, tmp) {
        HASH_DEL(g->hist, h);
        free(h->op);
        free(h);
    }
    drop_listings(g);
    free(g->discards);
    g->discards = NULL;
    g->ndiscards = g->discards_cap = 0;
    free(g->plan);
    g->plan = NULL;
    g->nplan = 0;
    tree_index_free(&g->tree);
}
