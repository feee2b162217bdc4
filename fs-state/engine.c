/* Engine set-up and tear-down, the differential check, and the record of each discrepancy. */
#include "engine.h"
#include "log.h"
#include "equalize.h"
#include "fsset.h"
#include "report.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die_config(const char *msg)
{
    fprintf(stderr, "metis: %s\n", msg);
    exit(2);
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* The front end passes command-line overrides to pan through the environment. */
static void apply_overrides(struct metis_config *cfg)
{
    const char *v;
    if ((v = getenv("METIS_SEED")))
        cfg->run.seed = strtoull(v, NULL, 0);
    if ((v = getenv("METIS_OPS")))
        cfg->run.ops = strtoull(v, NULL, 0);
    if ((v = getenv("METIS_SECONDS")))
        cfg->run.seconds = strtod(v, NULL);
    if ((v = getenv("METIS_KEEP_GOING")))
        cfg->run.keep_going = atoi(v);
}

static void init_abstraction(struct engine *e)
{
    char err[256];
    e->dlen = abstract_digest_len(e->cfg.run.hash);
    if (e->dlen <= 0)
        die_config("unknown hash");
    for (int i = 0; i < e->nfs; i++) {
        if (fs_abstract_opts(&e->cfg, i, &e->abs[i], e->exclude[i], sizeof e->exclude[i], err,
                             sizeof err) < 0)
            die_config(err);
    }
}

static void log_header(struct engine *e)
{
    log_line("metis-log 1");
    log_line("run id=%s config=%s seed=%llu hash=%s", e->run_id, e->cfg.path,
             (unsigned long long)e->cfg.run.seed, e->cfg.run.hash);
    static const char *types[] = {"kernel", "reffs", "fuse"};
    for (int i = 0; i < e->nfs; i++) {
        const struct fs_config *f = &e->cfg.fs[i];
        log_line("fs %d name=%s type=%s fstype=%s size=%llu", i, f->name, types[f->type],
                 f->fstype[0] ? f->fstype : "-", (unsigned long long)f->size);
    }
}

static void engine_atexit(void)
{
    struct engine *e = engine_get();
    if (e->finished)
        return;
    if (e->cfg.run.ops && e->ops < e->cfg.run.ops)
        fprintf(stderr, "metis: SPIN explored every state it could reach after %llu operations: "
                "raise the operation weights ([ops]) or [pool] prepopulate for a wider search\n",
                (unsigned long long)e->ops);
    engine_finish(e->discrepancies ? STATUS_DISCREPANCY : STATUS_OK, "search complete");
}

void engine_init(struct engine *e)
{
    char err[1200], path[1200];
    const char *cfg_path = getenv("METIS_CONFIG");
    if (!cfg_path)
        die_config("METIS_CONFIG is not set (pan is started by bin/metis run)");
    if (config_load(cfg_path, &e->cfg, err, sizeof err) < 0)
        die_config(err);
    apply_overrides(&e->cfg);
    e->nfs = e->cfg.nfs;
    snprintf(e->out_dir, sizeof e->out_dir, "%s", env_or("METIS_OUT", "."));
    snprintf(e->run_id, sizeof e->run_id, "%s", env_or("METIS_RUN_ID", "manual"));
    init_abstraction(e);
    if (input_init(&e->in, &e->cfg, e->cfg.run.seed) < 0)
        die_config("cannot build the name pool");
    snprintf(path, sizeof path, "%s/log.txt", e->out_dir);
    if (log_open(path) < 0)
        die_config("cannot open the log");
    log_header(e);
    snprintf(path, sizeof path, "%s/work", e->out_dir);
    mkdir(path, 0755);
    e->timeout = 0;
    for (int i = 0; i < e->nfs; i++) {
        e->be[i] = backend_open(&e->cfg.fs[i], e->run_id, path);
        if (!e->be[i])
            die_config("cannot create a backend");
        if (e->cfg.fs[i].op_timeout > e->timeout)
            e->timeout = e->cfg.fs[i].op_timeout;
    }
    if (e->timeout <= 0)
        e->timeout = 30;
    atexit(engine_atexit);
}

void engine_finish(enum run_status st, const char *reason)
{
    struct engine *e = engine_get();
    if (e->finished)
        _exit(st);
    e->finished = 1;
    log_line("end status=%d reason=%s ops=%llu", (int)st, reason, (unsigned long long)e->ops);
    log_flush();
    report_write(e, st, reason);
    for (int i = 0; i < e->nfs; i++)
        if (e->be[i])
            e->be[i]->ops->teardown(e->be[i]);
    fsset_stop();
    log_close();
    _exit(st);
}

int engine_compare(const struct op_args *a)
{
    struct engine *e = engine_get();
    const struct fs_outcome *ref = &e->out[0];
    int n = 0;
    for (int i = 1; i < e->nfs; i++) {
        struct fs_outcome *o = &e->out[i];
        o->differs = 0;
        if (a && o->res.ret != ref->res.ret)
            o->differs |= DIFF_RET;
        if (a && o->res.err != ref->res.err &&
            !fs_errno_equivalent(&e->cfg.fs[i], o->res.err, ref->res.err))
            o->differs |= DIFF_ERRNO;
        if (o->dlen != ref->dlen || memcmp(o->digest, ref->digest, (size_t)ref->dlen))
            o->differs |= DIFF_STATE;
        n += o->differs != 0;
    }
    return n;
}

/* Listing of one file system's tree as it is now (mounted for the purpose). */
static void write_listing(FILE *f, int i)
{
    struct engine *e = engine_get();
    struct backend *b = e->be[i];
    unsigned char digest[ABSTRACT_MAX_DIGEST];
    fprintf(f, "\n## tree of %s after the operation\n", b->cfg->name);
    if (b->ops->begin(b) < 0) {
        fprintf(f, "(cannot mount: %s)\n", b->err);
        return;
    }
    if (backend_read_back(b, &e->abs[i], digest, f) < 0)
        fprintf(f, "(cannot read the tree back: %s)\n", b->err);
    b->ops->end(b);
}

/* Saves the concrete states of the last ring states of the search path for the replayer. */
static void export_ring(FILE *f, const char *dir)
{
    struct engine *e = engine_get();
    char out[1200];
    size_t first = e->depth > (size_t)e->cfg.run.ring + 1 ? e->depth - e->cfg.run.ring - 1 : 0;
    mkdir(dir, 0755);
    for (size_t k = first; k < e->depth; k++) {
        uint64_t sid = e->path[k].sid;
        for (int i = 0; i < e->nfs; i++) {
            struct backend *b = e->be[i];
            if (b->ops->export_state(b, sid, dir, out, sizeof out) < 0)
                snprintf(out, sizeof out, "(not saved: %s)", b->err);
            fprintf(f, "state sid=%llu seq=%llu fs=%s file=%s\n", (unsigned long long)sid,
                    (unsigned long long)e->path[k].seq, b->cfg->name, out);
            log_line("export sid=%llu seq=%llu fs=%s file=%s", (unsigned long long)sid,
                     (unsigned long long)e->path[k].seq, b->cfg->name, out);
        }
    }
}

static void describe_outcomes(FILE *f, const struct op_args *a)
{
    struct engine *e = engine_get();
    char text[2 * METIS_PATH_MAX + 512], hex[2 * ABSTRACT_MAX_DIGEST + 1];
    if (a) {
        op_format(a, text, sizeof text);
        fprintf(f, "operation %llu: %s\n", (unsigned long long)e->ops, text);
    } else {
        fprintf(f, "initial state (before any operation)\n");
    }
    for (int i = 0; i < e->nfs; i++) {
        const struct fs_outcome *o = &e->out[i];
        hex_encode(o->digest, (size_t)o->dlen, hex);
        fprintf(f, "%-12s ret=%ld errno=%s state=%s%s%s%s\n", e->cfg.fs[i].name, o->res.ret,
                errno_name(o->res.err), hex, o->differs & DIFF_RET ? " [ret differs]" : "",
                o->differs & DIFF_ERRNO ? " [errno differs]" : "",
                o->differs & DIFF_STATE ? " [state differs]" : "");
        if (o->differs)
            log_line("discrepancy %llu fs=%s ret=%s errno=%s state=%s", (unsigned long long)e->ops,
                     e->cfg.fs[i].name, o->differs & DIFF_RET ? "differs" : "same",
                     o->differs & DIFF_ERRNO ? "differs" : "same",
                     o->differs & DIFF_STATE ? "differs" : "same");
    }
}

void engine_report_discrepancy(const struct op_args *a)
{
    struct engine *e = engine_get();
    char path[1200], dir[1200];
    e->discrepancies++;
    snprintf(path, sizeof path, "%s/discrepancy-%llu.txt", e->out_dir,
             (unsigned long long)e->discrepancies);
    FILE *f = fopen(path, "w");
    if (!f)
        f = stderr;
    describe_outcomes(f, a);
    snprintf(dir, sizeof dir, "%s/states", e->out_dir);
    export_ring(f, dir);
    for (int i = 0; i < e->nfs; i++)
        write_listing(f, i);
    if (f != stderr)
        fclose(f);
    log_flush();
    fprintf(stderr, "metis: discrepancy at operation %llu (details in %s)\n",
            (unsigned long long)e->ops, path);
    if (!e->cfg.run.keep_going)
        engine_finish(STATUS_DISCREPANCY, "discrepancy");
}
