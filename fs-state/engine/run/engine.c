/* Engine set-up and tear-down, the search path, and the record of each discrepancy. */
#include "engine/run/engine.h"
#include "engine/run/known_delta.h"
#include "engine/run/searches.h"
#include "engine/outputs/setup_report.h"
#include "lib/text/numbers.h"
#include "lib/text/buf.h"
#include "engine/classify/causes.h"
#include "engine/classify/hardlink_alias.h"
#include "engine/step/fsset.h"
#include "engine/records/log.h"
#include "engine/ops/opflags.h"
#include "engine/outputs/run_outputs.h"
#include "lib/system/helpers.h"
#include "engine/input/vary.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

static int fail(struct engine *e, const char *msg)
{
    snprintf(e->err, sizeof e->err, "%s", msg);
    return -1;
}

/* A swarm VT's search shape (front/cli/options/search_shape.c): only what the shape changes is set. */
static void apply_shape_overrides(struct metis_config *cfg)
{
    const char *v;
    uint64_t n;
    if ((v = getenv("METIS_SEARCH_KIND")) && search_kind_parse(v) >= 0)
        snprintf(cfg->run.search, sizeof cfg->run.search, "%s", v);
    if ((v = getenv("METIS_DIVE")) && parse_u64_any_base(v, &n) == 0)
        cfg->run.dive = (long)n;
    if ((v = getenv("METIS_MAX_DEPTH")) && parse_u64_any_base(v, &n) == 0 && n > 0)
        cfg->run.max_depth = (long)n;
    if ((v = getenv("METIS_SEARCH_OPS")))
        parse_u64_any_base(v, &cfg->run.search_ops);
}

/* The front end passes command-line overrides to pan through the environment (numbers it
 * wrote itself: one that does not parse leaves the config's value). */
static void apply_overrides(struct metis_config *cfg)
{
    const char *v;
    if ((v = getenv("METIS_SEED")))
        parse_u64_any_base(v, &cfg->run.seed);
    if ((v = getenv("METIS_OPS")))
        parse_u64_any_base(v, &cfg->run.ops);
    if ((v = getenv("METIS_SECONDS")))
        cfg->run.seconds = strtod(v, NULL);
    if ((v = getenv("METIS_KEEP_GOING")))
        cfg->run.keep_going = atoi(v);
    if ((v = getenv("METIS_TOGETHER")))
        cfg->run.together = strtod(v, NULL);
    apply_shape_overrides(cfg);
}

static void log_header(struct engine *e)
{
    log_line("metis-log 1");
    log_line("run id=%s config=%s seed=%llu hash=%s", e->run_id, e->cfg.path,
             (unsigned long long)e->cfg.run.seed, e->cfg.run.hash);
    for (int i = 0; i < e->cfg.nfs; i++) {
        const struct fs_config *f = &e->cfg.fs[i];
        log_line("fs %d name=%s type=%s fstype=%s size=%llu", i, f->name, fs_type_name(f->type),
                 f->fstype[0] ? f->fstype : "-", (unsigned long long)f->size);
    }
    if (e->search.index > 1)
        log_line("search index=%d base_seed=%llu", e->search.index,
                 (unsigned long long)e->search.base_seed);
    const struct vary_config *v = &e->cfg.vary;
    if (v->long_names_on || v->fill_on || v->fill_inodes_on)
        log_line("vary long_names=%d fill=%d fill_inodes=%d", v->long_names_on, v->fill_on,
                 v->fill_inodes_on);
}

/* A fs that may keep a history of its own (a fuse fs without an image: restored without
 * snapshots unless its daemon answers them), whose replays need the reference's restores. */
static int may_keep_history(const struct fs_config *c)
{
    return c->type == FS_FUSE && (c->size == 0 || c->dir_backed);
}

int engine_init(struct engine *e)
{
    char err[1200], path[1200];
    const char *cfg_path = getenv("METIS_CONFIG");
    if (!cfg_path)
        return fail(e, "METIS_CONFIG is not set (pan is started by bin/metis run)");
    if (config_load(cfg_path, &e->cfg, err, sizeof err) < 0)
        return fail(e, err);
    apply_overrides(&e->cfg);
    snprintf(e->out_dir, sizeof e->out_dir, "%s", env_or("METIS_OUT", "."));
    if (search_resume(e) < 0)
        return -1;
    equalize_quiet(e->search.index > 1);
    vary_apply(&e->cfg);
    /* Short searches are the config's routine, or a history target's (driver.c): their
     * variants are in each search's log. */
    if ((e->cfg.vary.long_names_on || e->cfg.vary.fill_on || e->cfg.vary.fill_inodes_on ||
         e->cfg.vary.mtime_on) && !e->cfg.run.search_ops && !e->search.prior.history_length)
        fprintf(stderr, "metis: search %d (seed %llu) varies: %s\n", e->search.index,
                (unsigned long long)e->cfg.run.seed, vary_describe(&e->cfg, err, sizeof err));
    snprintf(e->run_id, sizeof e->run_id, "%s", env_or("METIS_RUN_ID", "manual"));
    /* The front end checked the file already; a hit of a class in it does not stop the run. */
    e->have_known = getenv("METIS_KNOWN") && *getenv("METIS_KNOWN");
    if (e->have_known && known_load(getenv("METIS_KNOWN"), &e->known, err, sizeof err) < 0)
        return fail(e, err);
    if (tree_digest_len(e->cfg.run.hash) <= 0)
        return fail(e, "unknown hash");
    if (input_init(&e->in, &e->cfg, e->cfg.run.seed) < 0)
        return fail(e, "cannot build the name pool");
    snprintf(path, sizeof path, "%s/log.txt", e->out_dir);
    if (log_open(path) < 0)
        return fail(e, "cannot open the log");
    log_header(e);
    snprintf(path, sizeof path, "%s/work", e->out_dir);
    mkdir(path, 0755);
    if (fsgroup_open(&e->g, &e->cfg, e->run_id, path) < 0)
        return fail(e, e->g.err);
    search_apply_learnt(e);
    int histories = 0;
    for (int i = 0; i < e->g.nfs; i++)
        histories |= may_keep_history(&e->cfg.fs[i]);
    /* A reference's own restores are logged only where a target's history may need them. */
    for (int i = 0; i < e->g.nfs; i++)
        e->g.be[i]->record_history =
            histories || !fs_logs_own_calls(e->cfg.fs[i].type, e->cfg.fs[i].fstype);
    return 0;
}

/* A fresh mount on the state this step made (a checkpoint of kept directories): the export
 * a replay of what the fs ran since can start from (export_ring). */
static void note_fresh_state(struct engine *e, const char *line, size_t n, uint64_t seq)
{
    unsigned long long sid;
    if (n > 10 && strncmp(line, "fresh sid=", 10) == 0 && sscanf(line + 10, "%llu", &sid) == 1 &&
        sid + 1 == e->next_sid) {
        if (e->fresh_pinned && fsgroup_discard(&e->g, e->fresh_sid) == 0)
            e->fresh_pinned = 0;
        e->fresh_sid = sid;
        e->fresh_seq = seq;
    }
}

/* Each line "WORD REST" of a backend's history becomes the record "WORD SEQ FS REST". */
static void log_history_of(struct engine *e, struct backend *b, uint64_t seq)
{
    for (char *line = b->history.p, *end = line + b->history.len; line && line < end;) {
        char *nl = memchr(line, '\n', (size_t)(end - line)), *sp;
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        note_fresh_state(e, line, n, seq);
        sp = memchr(line, ' ', n);
        if (sp)
            log_line("%.*s %llu %s %.*s", (int)(sp - line), line, (unsigned long long)seq,
                     b->cfg->name, (int)(n - (size_t)(sp - line) - 1), sp + 1);
        line += n + 1;
    }
    b->history.len = 0;
}

void engine_log_history(struct engine *e, uint64_t seq)
{
    for (int i = 0; i < e->g.nfs; i++)
        if (e->g.be[i] && e->g.be[i]->history.len)
            log_history_of(e, e->g.be[i], seq);
}

static void log_free_space(struct engine *e)
{
    const struct free_counts *fc = e->g.free_after;
    for (int i = 0; i < e->cfg.nfs; i++) {
        log_line("free %s inodes=%llu bytes=%llu", e->cfg.fs[i].name,
                 (unsigned long long)fc[i].inodes, (unsigned long long)fc[i].bytes);
        /* Said once per run: every search sets up the same file systems. */
        if (fc[i].inodes != fc[0].inodes && fc[i].inodes != UINT64_MAX &&
            fc[0].inodes != UINT64_MAX && e->search.index == 1)
            fprintf(stderr, "metis: warning: free inodes differ (%s %llu, %s %llu): inode "
                    "exhaustion would give ENOSPC at different points; size them alike "
                    "(configs/README.md)\n", e->cfg.fs[0].name, (unsigned long long)fc[0].inodes,
                    e->cfg.fs[i].name, (unsigned long long)fc[i].inodes);
    }
}

int engine_start(struct engine *e)
{
    char hex[2 * TREE_MAX_DIGEST + 1];
    int rc = fsgroup_setup(&e->g, e->g.timeout);
    engine_log_history(e, 0);
    if (rc < 0)
        return -1;
    log_free_space(e);
    setup_report(e);
    rc = fsgroup_initial(&e->g);
    engine_log_history(e, 0);
    if (rc < 0 || engine_path_push(e, 0, 0) < 0)
        return -1;
    e->next_sid = 1;
    for (int i = 0; i < e->cfg.nfs; i++) {
        hex_encode(e->g.out[i].digest, (size_t)e->g.out[i].dlen, hex);
        log_line("init %s sid=0 state=%s", e->cfg.fs[i].name, hex);
    }
    return 0;
}

void engine_close(struct engine *e, enum metis_exit st, const char *reason)
{
    if (e->finished)
        return;
    e->finished = 1;
    log_line("end status=%d reason=%s ops=%llu", (int)st, reason, (unsigned long long)e->ops);
    log_flush();
    search_fold(e);
    report_write(e, st, reason);
    if (search_save(e) < 0)
        fprintf(stderr, "metis: cannot write %s/work/%s\n", e->out_dir, SEARCH_CARRY_FILE);
    fsgroup_crash_close(&e->g);
    for (int i = 0; i < e->g.nfs; i++)
        if (e->g.be[i])
            e->g.be[i]->ops->teardown(e->g.be[i]);
    fsset_stop();
    log_close();
}

/* ---- search path: the states from the initial one to where SPIN is now ---- */

int engine_path_push(struct engine *e, uint64_t sid, uint64_t seq)
{
    if (array_reserve(&e->path, &e->path_cap, e->depth + 1, sizeof *e->path)) {
        snprintf(e->g.err, sizeof e->g.err, "out of memory for the search path");
        return -1;
    }
    e->path[e->depth].sid = sid;
    e->path[e->depth].seq = seq;
    e->path[e->depth].delta = NULL;
    e->depth++;
    return 0;
}

/* SPIN went back to state sid: every state above it on the path is gone for good. */
int engine_path_unwind_to(struct engine *e, uint64_t sid)
{
    while (e->depth > 0 && e->path[e->depth - 1].sid != sid) {
        known_delta_drop(&e->path[--e->depth], e->g.nfs);
        uint64_t gone = e->path[e->depth].sid;
        /* The newest fresh mount's state stays: a class found later replays from it. */
        if (gone && gone == e->fresh_sid && !e->fresh_pinned)
            e->fresh_pinned = 1;
        else if (fsgroup_discard(&e->g, gone) < 0)
            return -1;
    }
    if (e->depth > 0)
        return 0;
    snprintf(e->g.err, sizeof e->g.err, "SPIN returned to a state that is not on the search path");
    return -1;
}

/* ---- discrepancies ---- */

/* Listing of one file system's tree as it is now (mounted for the purpose). */
void engine_write_listing(struct engine *e, FILE *f, int i)
{
    struct backend *b = e->g.be[i];
    unsigned char digest[TREE_MAX_DIGEST];
    fprintf(f, "\n## tree of %s after the operation\n", b->cfg->name);
    if (b->ops->begin(b) < 0) {
        fprintf(f, "(cannot mount: %s)\n", b->err);
        return;
    }
    if (backend_read_back(b, &e->g.abs[i], digest, f, NULL) < 0)
        fprintf(f, "(cannot read the tree back: %s)\n", b->err);
    b->ops->end(b);
}

/* A checkpoint's remount check that failed: the tree the mount showed and the one its device
 * held (the tree "after the operation" above is the latter: the fs serves it now). */
static void write_remount_report(struct engine *e, FILE *f, int i)
{
    const struct backend_remount *r = &e->g.out[i].remount;
    fprintf(f, "\n## remount check of %s: the tree after a remount is not the live one\n",
            e->cfg.fs[i].name);
    fprintf(f, "first difference: %s of %s: live %s, after the remount %s\n",
            tree_diff_name(r->d.attr), r->d.entry, r->d.ref, r->d.other);
    fprintf(f, "\n### live tree (before the unmount)\n%s", r->live ? r->live : "(none)\n");
    fprintf(f, "\n### tree after the remount\n%s", r->after ? r->after : "(none)\n");
}

static int exportable_by_all(struct engine *e, uint64_t sid)
{
    for (int i = 0; i < e->g.nfs; i++) {
        struct backend *b = e->g.be[i];
        if (b->ops->can_export && !b->ops->can_export(b, sid))
            return 0;
    }
    return 1;
}

static void export_state(struct engine *e, FILE *f, const char *dir, uint64_t sid, uint64_t seq)
{
    char out[1200];
    for (int i = 0; i < e->g.nfs; i++) {
        struct backend *b = e->g.be[i];
        if (b->ops->export_state(b, sid, dir, out, sizeof out) < 0)
            snprintf(out, sizeof out, "(not saved: %s)", b->err);
        fprintf(f, "state sid=%llu seq=%llu fs=%s file=%s\n", (unsigned long long)sid,
                (unsigned long long)seq, b->cfg->name, out);
        log_line("export sid=%llu seq=%llu fs=%s file=%s", (unsigned long long)sid,
                 (unsigned long long)seq, b->cfg->name, out);
    }
}

static void export_path_state(struct engine *e, FILE *f, const char *dir, size_t k)
{
    export_state(e, f, dir, e->path[k].sid, e->path[k].seq);
}

/* The newest checkpoint a fs was mounted on afresh, when it is off the path's exported ring:
 * a {dir}-backed fs's trace is its history since that mount, which may have left the path
 * (logical restores), so only that state lets the replayer start near the end. */
static void export_fresh(struct engine *e, FILE *f, const char *dir, size_t first)
{
    for (size_t k = first; k < e->depth; k++)
        if (e->path[k].sid == e->fresh_sid)
            return;
    if (e->fresh_sid && exportable_by_all(e, e->fresh_sid))
        export_state(e, f, dir, e->fresh_sid, e->fresh_seq);
}

/* Saves the concrete states of the last ring states of the search path for the replayer.
 * When none of them before the last can be loaded on every fs (a kept FUSE mount has images of its
 * checkpoints only), the newest older state that can is saved too, so the replayer need not
 * start from the initial state. */
void engine_export_ring(struct engine *e, FILE *f, const char *dir)
{
    size_t first = e->depth > (size_t)e->cfg.run.ring + 1 ? e->depth - e->cfg.run.ring - 1 : 0;
    int loadable = 0;
    mkdir(dir, 0755);
    for (size_t k = first; k + 1 < e->depth; k++)     /* the last is the discrepancy's own */
        loadable |= exportable_by_all(e, e->path[k].sid);
    for (size_t k = first; !loadable && k-- > 0;)
        if (exportable_by_all(e, e->path[k].sid)) {
            export_path_state(e, f, dir, k);
            break;
        }
    for (size_t k = first; k < e->depth; k++)
        export_path_state(e, f, dir, k);
    export_fresh(e, f, dir, first);
}

static void describe_outcomes(struct engine *e, FILE *f, const struct op_args *a)
{
    char text[2 * METIS_PATH_MAX + 512], hex[2 * TREE_MAX_DIGEST + 1];
    if (a) {
        op_format(a, text, sizeof text);
        fprintf(f, "operation %llu: %s", (unsigned long long)e->ops, text);
        op_print_flag_names(f, a);
        fputc('\n', f);
    } else {
        fprintf(f, "initial state (before any operation)\n");
    }
    for (int i = 0; i < e->g.nfs; i++) {
        const struct fs_outcome *o = &e->g.out[i];
        hex_encode(o->digest, (size_t)o->dlen, hex);
        unsigned crash = CRASH_OF_DIFF(o->differs), fault = FAULT_OF_DIFF(o->differs);
        fprintf(f, "%-12s ret=%ld errno=%s state=%s%s%s%s%s%s%s%s%s%s%s\n", e->cfg.fs[i].name,
                o->res.ret, errno_name(o->res.err), hex, o->differs & DIFF_RET ? " [ret differs]" : "",
                o->differs & DIFF_ERRNO ? " [errno differs]" : "",
                o->differs & DIFF_STATE ? " [state differs]" : "", crash ? " [crash: " : "",
                crash ? crash_kind_name(crash) : "", crash ? "]" : "", fault ? " [fault: " : "",
                fault ? fault_found_name(fault) : "", fault ? "]" : "",
                o->differs & DIFF_REMOUNT ? " [remount differs]" : "");
    }
}

static void log_outcomes(struct engine *e)
{
    for (int i = 0; i < e->g.nfs; i++) {
        unsigned d = e->g.out[i].differs, crash = CRASH_OF_DIFF(d), fault = FAULT_OF_DIFF(d);
        char found[64];
        fault_found_list(fault, found, sizeof found);
        if (d)
            log_line("discrepancy %llu fs=%s ret=%s errno=%s state=%s%s%s%s%s%s",
                     (unsigned long long)e->ops, e->cfg.fs[i].name,
                     d & DIFF_RET ? "differs" : "same", d & DIFF_ERRNO ? "differs" : "same",
                     d & DIFF_STATE ? "differs" : "same", crash ? " crash=" : "",
                     crash ? crash_kind_name(crash) : "", fault ? " fault=" : "",
                     fault ? found : "", d & DIFF_REMOUNT ? " remount=differs" : "");
    }
}

/* Seconds since the run's first search began, as summary.json's "seconds" counts them (the
 * set-up left out): a class's first_s, by which a swarm tells which VT found it first. */
static double run_seconds(const struct engine *e)
{
    double start = e->search.index > 1 ? e->search.prior.t_first : e->t_start;
    return start > 0 ? now_seconds() - start : 0;
}

/* A new class of a FUSE fs that two inodes for one file would explain: the reference's tree
 * says whether its operation met a hard-linked file (read for new classes only). */
static void check_alias(struct engine *e, int i, const struct op_args *a, struct dclass *c)
{
    if (e->cfg.fs[i].type != FS_FUSE || !alias_may_apply(c, a) ||
        classes_find(&e->classes, c->signature) >= 0)
        return;
    char *ref = classes_read_listing(&e->g, 0);
    if (ref)
        alias_assign(c, a, ref);
    free(ref);
}

/* The class's group: its cause, or the known delta of fs i along the path (the one the step
 * came from, and the one the state it made has). */
static void assign_cause(struct engine *e, int i, const struct op_args *a, struct dclass *c)
{
    char below[400];
    struct cause_path p = { NULL, NULL, NULL };
    check_alias(e, i, a, c);
    if (a && e->depth >= 1) {
        p.made = known_delta_at(e, e->depth - 1, i);
        p.below = e->depth >= 2 ? known_delta_at(e, e->depth - 2, i) : NULL;
        p.below_text = known_delta_describe(e, i, below, sizeof below);
    }
    causes_assign(c, e->cfg.fs[i].name, &p);
}

/* Signs every fs that differs and counts the hits; idx[] gets the step's classes. Returns how
 * many of them are new. */
static int classify_step(struct engine *e, const struct op_args *a, int *idx, int *n)
{
    int fresh_classes = 0;
    *n = 0;
    e->step_unknown = 0;
    /* From fs 0: a crash check holds the reference to its own promise too. */
    for (int i = 0; i < e->g.nfs; i++) {
        struct dclass c;
        int fresh;
        if (!e->g.out[i].differs)
            continue;
        classes_classify(&e->g, i, a, &c);
        assign_cause(e, i, a, &c);
        int k = classes_add(&e->classes, &c, e->ops, run_seconds(e), &fresh);
        if (k < 0) {
            e->step_unknown++;     /* not counted, so not known either */
            continue;
        }
        const struct dclass *cl = &e->classes.v[k];
        log_line("class %llu fs=%s id=%d new=%d hits=%llu signature=%s",
                 (unsigned long long)e->ops, e->cfg.fs[i].name, cl->id, fresh,
                 (unsigned long long)cl->hits, cl->signature);
        idx[(*n)++] = fresh ? k : -1 - k;
        fresh_classes += fresh;
        e->step_unknown += !engine_class_known(e, k);
    }
    return fresh_classes;
}

/* A class found below a difference in attributes alone says so: the trees differed before the
 * step, and its signature names only what the step added. */
static void describe_known_delta(struct engine *e, FILE *f, int i)
{
    char d[400];
    if (known_delta_describe(e, i, d, sizeof d))
        fprintf(f, "below a known delta: before this step fs %s already differed from the "
                "reference in %s; the class names what this step added\n", e->cfg.fs[i].name, d);
}

/* The classes of the step in its detail file; new ones are named on stderr. */
static void describe_classes(struct engine *e, FILE *f, const int *idx, int n, const char *path)
{
    char line[2000];
    for (int j = 0; j < n; j++) {
        int fresh = idx[j] >= 0;
        struct dclass *c = &e->classes.v[fresh ? idx[j] : -1 - idx[j]];
        if (fresh)
            snprintf(c->detail, sizeof c->detail, "%s", strrchr(path, '/') + 1);
        classes_describe(c, &e->cfg, line, sizeof line);
        fprintf(f, "%s%s\n", line, fresh ? " [new]" : "");
        if (c->hint[0])
            fprintf(f, "hint: %s\n", c->hint);
        describe_known_delta(e, f, c->fs);
        if (fresh)
            fprintf(stderr, "metis: discrepancy at operation %llu (details in %s): %s%s\n",
                    (unsigned long long)e->ops, path, line,
                    engine_class_known(e, idx[j]) ? " [known]" : "");
    }
}

/* A hit of a known class is counted and logged; the first example of a new class gets the
 * detail file (both trees, the exported states), so thousands of hits cost no more disk than
 * their classes. */
void engine_report_discrepancy(struct engine *e, const struct op_args *a)
{
    char path[1200], dir[1200];
    int idx[METIS_MAX_FS], n;
    e->discrepancies++;
    log_outcomes(e);
    if (classify_step(e, a, idx, &n) == 0) {
        log_flush();
        return;
    }
    snprintf(path, sizeof path, "%s/discrepancy-%u.txt", e->out_dir, ++e->classes.details);
    FILE *f = fopen(path, "w");
    if (!f)
        f = stderr;
    describe_outcomes(e, f, a);
    describe_classes(e, f, idx, n, path);
    snprintf(dir, sizeof dir, "%s/states", e->out_dir);
    engine_export_ring(e, f, dir);
    for (int i = 0; i < e->g.nfs; i++)
        engine_write_listing(e, f, i);
    for (int i = 0; a && i < e->g.nfs; i++)
        if (CRASH_OF_DIFF(e->g.out[i].differs))
            fsgroup_crash_report(&e->g, i, f, dir, e->ops);
    for (int i = 0; i < e->g.nfs; i++)
        if (e->g.out[i].differs & DIFF_REMOUNT)
            write_remount_report(e, f, i);
    for (int i = 0; a && i < e->g.nfs; i++)
        if (FAULT_OF_DIFF(e->g.out[i].differs))
            fsgroup_fault_report(&e->g, i, f);
    if (f != stderr)
        fclose(f);
    log_flush();
}

/* ---- a target that failed ---- */

static void describe_target_failure(struct engine *e, FILE *f, int i, enum target_failure k,
                                    const struct op_args *a, uint64_t state, const char *cls)
{
    char text[2 * METIS_PATH_MAX + 512];
    if (a) {
        op_format(a, text, sizeof text);
        fprintf(f, "operation %llu: %s", (unsigned long long)e->ops, text);
        op_print_flag_names(f, a);
        fputc('\n', f);
    } else {
        fprintf(f, "initial state (before any operation)\n");
    }
    fprintf(f, "%s\n", cls);
    fprintf(f, "target failure: fs %s: %s while %s state %llu\n", e->cfg.fs[i].name,
            target_failure_name(k), k == TF_RESTORE_UNREACHABLE ? "restoring" : k == TF_UNREADABLE ? "reading the tree after stepping from" : "stepping from",
            (unsigned long long)state);
    fprintf(f, "what failed: %s\n", e->g.err);
    fprintf(f, "the run goes on: every fs is set up afresh and a new search starts from the "
            "initial state (unless the budget is spent or the target keeps failing)\n");
}

void engine_report_target_failure(struct engine *e, int i, enum target_failure k,
                                  const struct op_args *a, uint64_t state)
{
    static const unsigned bits[] = { 0, DIFF_DAEMON_DIED, DIFF_HANG, DIFF_RESTORE_UNREACHABLE,
                                     DIFF_UNREADABLE, DIFF_UNMOUNT_FAILED };
    char path[1200], line[2000];
    struct dclass c;
    int fresh;
    e->discrepancies++;
    classes_target_failure(&e->g, i, bits[k], a, &c);
    causes_assign(&c, e->cfg.fs[i].name, NULL);
    int idx = classes_add(&e->classes, &c, e->ops, run_seconds(e), &fresh);
    log_line("target %llu fs=%s failure=%s state=%llu op=%s message=%s",
             (unsigned long long)e->ops, e->cfg.fs[i].name, target_failure_name(k),
             (unsigned long long)state, a ? op_name(a->op) : "initial", e->g.err);
    if (idx < 0)
        return log_flush();
    struct dclass *cl = &e->classes.v[idx];
    log_line("class %llu fs=%s id=%d new=%d hits=%llu signature=%s", (unsigned long long)e->ops,
             e->cfg.fs[i].name, cl->id, fresh, (unsigned long long)cl->hits, cl->signature);
    if (fresh) {
        snprintf(path, sizeof path, "%s/discrepancy-%u.txt", e->out_dir, ++e->classes.details);
        snprintf(cl->detail, sizeof cl->detail, "%s", strrchr(path, '/') + 1);
    }
    classes_describe(cl, &e->cfg, line, sizeof line);
    fprintf(stderr, "metis: target failure at operation %llu%s%s%s: %s\n",
            (unsigned long long)e->ops, fresh ? " (details in " : "", fresh ? path : "",
            fresh ? ")" : "", line);
    FILE *f = fresh ? fopen(path, "w") : NULL;
    if (f) {
        describe_target_failure(e, f, i, k, a, state, line);
        fclose(f);
    }
    log_flush();
}
