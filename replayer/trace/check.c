/* Trace checks against its config: embedded-config loading with trace line numbers, fs matching, pool membership. */
#include "check.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/config/fault_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/vocab/features.h"
#include "engine/input/input.h"
#include "engine/input/vary.h"

/* "TMP:L: msg" from the config loader becomes "TRACE:(line of cfg record L): msg". */
static void map_error(const struct trace *t, const char *tmp, const char *in, char *err,
                      size_t errlen)
{
    size_t n = strlen(tmp);
    int line = 0, used = 0;
    if (strncmp(in, tmp, n) == 0 && in[n] == ':' &&
        sscanf(in + n + 1, "%d:%n", &line, &used) == 1 && used > 0) {
        int at = line > 0 && line <= t->ncfg ? t->cfg_first_line + line - 1 : t->cfg_first_line;
        snprintf(err, errlen, "%s:%d: embedded config: %s", t->file, at, in + n + 1 + used + 1);
    } else if (strncmp(in, tmp, n) == 0) {
        snprintf(err, errlen, "%s:%d: embedded config%s", t->file, t->cfg_first_line, in + n);
    } else {
        snprintf(err, errlen, "%s", in);
    }
}

/* A trace may come from anywhere: its embedded config must not run commands of its own
 * (a fuse mount_cmd, or shell syntax in the mkfs options the backend passes to sh). */
static int embedded_safe(const struct trace *t, const struct metis_config *cfg, char *err,
                         size_t errlen)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,=._:/+-";
    for (int i = 0; i < cfg->nfs; i++) {
        const struct fs_config *fs = &cfg->fs[i];
        const char *why = fs->type == FS_FUSE ? "is type=fuse (its mount_cmd runs commands)"
                        : strspn(fs->mkfs_opts, ok) != strlen(fs->mkfs_opts)
                            ? "has shell syntax in mkfs_opts" : NULL;
        if (why) {
            int at = t->cfg_first_line + fs->line - 1;
            snprintf(err, errlen, "%s:%d: embedded config: [fs %s] %s: pass the config with "
                     "--config to trust it", t->file, at, fs->name, why);
            return -1;
        }
    }
    return 0;
}

static int load_embedded(const struct trace *t, struct metis_config *cfg, char *err,
                         size_t errlen)
{
    char tmp[] = "/tmp/metis-replay-cfg-XXXXXX", msg[1400];
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "%s: cannot write the embedded config to /tmp: %s", t->file,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        unlink(tmp);
        return -1;
    }
    for (int i = 0; i < t->ncfg; i++)
        fprintf(f, "%s\n", t->cfg[i]);
    int rc = fclose(f) == 0 ? config_load(tmp, cfg, msg, sizeof msg) : -1;
    if (rc < 0)
        map_error(t, tmp, msg, err, errlen);
    else if ((rc = embedded_safe(t, cfg, err, errlen)) == 0 &&
             (rc = config_validate(cfg, msg, sizeof msg)) < 0)
        map_error(t, tmp, msg, err, errlen);
    unlink(tmp);
    snprintf(cfg->path, sizeof cfg->path, "%s", t->config_path[0] ? t->config_path : t->file);
    return rc;
}

static int load_file(const char *path, struct metis_config *cfg, char *err, size_t errlen)
{
    if (config_load(path, cfg, err, errlen) < 0 || config_validate(cfg, err, errlen) < 0)
        return -1;
    return 0;
}

/* Without an override the trace and its config must name the same file systems. */
static int match_fs(const struct trace *t, const struct metis_config *cfg, int strict,
                    int map[METIS_MAX_FS], char *err, size_t errlen)
{
    for (int i = 0; i < METIS_MAX_FS; i++)
        map[i] = i < cfg->nfs ? trace_fs_index(t, cfg->fs[i].name) : -1;
    if (!strict)
        return 0;
    for (int i = 0; i < t->nfs; i++) {
        const struct trace_fs *f = &t->fs[i];
        if (i >= cfg->nfs || strcmp(cfg->fs[i].name, f->name) != 0 ||
            strcmp(fs_type_name(cfg->fs[i].type), f->type) != 0) {
            snprintf(err, errlen, "%s:%d: fs %d (%s, %s) is not fs %d of config %s", t->file,
                     t->fs_line + i, i, f->name, f->type, i, cfg->path);
            return -1;
        }
    }
    if (cfg->nfs != t->nfs) {
        snprintf(err, errlen, "%s:%d: the trace has %d file systems, config %s %d", t->file,
                 t->fs_line, t->nfs, cfg->path, cfg->nfs);
        return -1;
    }
    return 0;
}

/* An image-backed FUSE fs the run kept mounted (remount = 0) is remounted around every step
 * in a replay: the states it exported are images of its checkpoints, which only a remounted
 * fs loads (import.c). A kernel fs stays kept, since what its checkpoints find needs a mount
 * that lives across steps, but checks only at a trace's last operation (replay.c, shrink.c):
 * a replay's steps need not be where the run's checkpoints were. */
static void replay_kept_remounted(struct metis_config *cfg)
{
    for (int i = 0; i < cfg->nfs; i++) {
        struct fs_config *c = &cfg->fs[i];
        if (c->type == FS_FUSE && c->size && !c->dir_backed && !c->remount) {
            c->remount = 1;
            c->remount_every = 0;
        }
        if (c->type == FS_KERNEL && !c->remount)
            c->remount_every = 0;
    }
}

/* A FUSE fs without an image that would restore logically replays on a fresh mount instead:
 * a logical restore makes calls of its own, which a replay of a trace must not add to what
 * the trace holds (a history's calls are its own steps). */
static void replay_logical_by_replay(struct metis_config *cfg)
{
    for (int i = 0; i < cfg->nfs; i++) {
        struct fs_config *c = &cfg->fs[i];
        if (c->type == FS_FUSE && (!c->size || c->dir_backed))
            c->replay_logical = 1;
    }
}

int trace_check_config(const struct trace *t, const char *override, struct metis_config *cfg,
                      int map[METIS_MAX_FS], char *err, size_t errlen)
{
    int rc;
    if (override)
        rc = load_file(override, cfg, err, errlen);
    else if (t->ncfg)
        rc = load_embedded(t, cfg, err, errlen);
    else if (t->config_path[0])
        rc = load_file(t->config_path, cfg, err, errlen);
    else
        return snprintf(err, errlen, "%s: no config (neither embedded nor named): use --config",
                        t->file), -1;
    if (rc < 0)
        return -1;
    cfg->run.seed = t->seed;
    vary_apply(cfg);            /* the search's variant, as the engine drew it from the seed */
    snprintf(cfg->run.hash, sizeof cfg->run.hash, "%s", t->hash);
    replay_kept_remounted(cfg);
    replay_logical_by_replay(cfg);
    return match_fs(t, cfg, override == NULL, map, err, errlen);
}

/* ---- pool membership ---- */

struct pool_set {
    const char **paths;
    size_t n;
    struct input in;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int pool_build(struct pool_set *ps, const struct metis_config *cfg)
{
    memset(ps, 0, sizeof *ps);
    if (input_init(&ps->in, cfg, cfg->run.seed) < 0)
        return -1;
    const struct name_pool *p = &ps->in.pool;
    ps->paths = malloc(((size_t)p->ndirs + (size_t)p->nfiles + 1) * sizeof *ps->paths);
    if (!ps->paths)
        return -1;
    for (int i = 0; i < p->ndirs; i++)
        ps->paths[ps->n++] = p->dirs[i];
    for (int i = 0; i < p->nfiles; i++)
        ps->paths[ps->n++] = p->files[i];
    qsort(ps->paths, ps->n, sizeof *ps->paths, cmp_str);
    return 0;
}

static int pool_has(const struct pool_set *ps, const char *path)
{
    return bsearch(&path, ps->paths, ps->n, sizeof *ps->paths, cmp_str) != NULL;
}

static int xattr_known(const struct pool_set *ps, const char *name)
{
    for (int i = 0; i < ps->in.pool.nxattrs; i++)
        if (strcmp(ps->in.pool.xattrs[i], name) == 0)
            return 1;
    return 0;
}

/* A symlink target names a pool path below the link's own directory, or "." */
static int target_in_pool(const struct pool_set *ps, const char *link, const char *target)
{
    char full[2 * METIS_PATH_MAX];
    if (strcmp(target, ".") == 0)
        return 1;
    const char *slash = strrchr(link, '/');
    int dlen = (int)(slash - link);
    snprintf(full, sizeof full, "%.*s/%s", dlen, link, target);
    return pool_has(ps, full);
}

/* Which names of each operation its config's pool must hold: the path always; rename's, link's
 * and copy_range's second path; symlink's target (below the link's directory); the xattr name. */
enum {
    POOL_create_file    = CHECK_PATH,
    POOL_write_file     = CHECK_PATH,
    POOL_truncate       = CHECK_PATH,
    POOL_fallocate_file = CHECK_PATH,
    POOL_chmod          = CHECK_PATH,
    POOL_chown_file     = CHECK_PATH,
    POOL_chgrp_file     = CHECK_PATH,
    POOL_unlink         = CHECK_PATH,
    POOL_mkdir          = CHECK_PATH,
    POOL_rmdir          = CHECK_PATH,
    POOL_rename         = CHECK_PATH | CHECK_PATH2,
    POOL_link           = CHECK_PATH | CHECK_PATH2,
    POOL_symlink        = CHECK_PATH | CHECK_TARGET,
    POOL_setxattr       = CHECK_PATH | CHECK_XNAME,
    POOL_removexattr    = CHECK_PATH | CHECK_XNAME,
    POOL_copy_range     = CHECK_PATH | CHECK_PATH2,
    POOL_mknod          = CHECK_PATH,
    POOL_open_unlink    = CHECK_PATH,
    POOL_utimes         = CHECK_PATH,
};

/* One row per operation of METIS_OPS: one without its POOL_NAME does not compile. */
static const unsigned pool_checks[OP_COUNT] = {
#define POOL_ROW(n) [OP_##n] = POOL_##n,
    METIS_OPS(POOL_ROW)
#undef POOL_ROW
};

unsigned trace_pool_checks(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? pool_checks[op] : 0;
}

static const char *op_problem(const struct pool_set *ps, const struct op_args *a,
                              const char **what)
{
    unsigned need = trace_pool_checks(a->op);
    *what = a->path;
    if ((need & CHECK_PATH) && !pool_has(ps, a->path))
        return "path";
    *what = a->path2;
    if ((need & CHECK_PATH2) && !pool_has(ps, a->path2))
        return "path2";
    if ((need & CHECK_TARGET) && !target_in_pool(ps, a->path, a->path2))
        return "symlink target";
    *what = a->xname;
    if ((need & CHECK_XNAME) && !xattr_known(ps, a->xname))
        return "xattr name";
    return NULL;
}

/* The word of a's operation or variant when the config's lacks keep it out of every draw
 * (config.c), else NULL: a run of this config never made such a step. */
static const char *lacked_step(const struct metis_config *cfg, const struct op_args *a)
{
    int v = op_variant_of(a);
    if (!((cfg->lacked_ops >> a->op) & 1) && !(v >= 0 && ((cfg->lacked_variants >> v) & 1)))
        return NULL;
    const char *w = features_word_for(a->op, v);
    return w ? w : op_name(a->op);
}

/* 0, or -1 naming the first step the config's lacks never draw. */
static int check_lacks(const struct trace *t, const struct metis_config *cfg, char *err,
                       size_t errlen)
{
    for (size_t k = 0; k < t->nops; k++) {
        int n;
        const struct op_args *calls = trace_op_calls(&t->ops[k], &n);
        for (int c = 0; c < n; c++) {
            const char *w = lacked_step(cfg, &calls[c]);
            if (w)
                return snprintf(err, errlen, "%s:%d: op %llu: %s is never drawn with config "
                                "%s (lacks = %s): the trace is not of a run of it", t->file,
                                t->ops[k].line, (unsigned long long)t->ops[k].seq,
                                op_name(calls[c].op), cfg->path, w), -1;
        }
    }
    return 0;
}

/* 0, or -1 naming the first fault step when no fs of the config gets fault steps: its
 * replays could not re-arm the fault. */
static int check_faults(const struct trace *t, const struct metis_config *cfg, char *err,
                        size_t errlen)
{
    for (int i = 0; i < cfg->nfs; i++)
        if (fault_applies(cfg, &cfg->fs[i]))
            return 0;
    for (size_t k = 0; k < t->nops; k++)
        if (t->ops[k].fault.on)
            return snprintf(err, errlen, "%s:%d: op %llu is a fault step, and no file system of "
                            "config %s gets fault steps ([run] faults = 0?)", t->file,
                            t->ops[k].line, (unsigned long long)t->ops[k].seq, cfg->path), -1;
    return 0;
}

int trace_check_pool(const struct trace *t, const struct metis_config *cfg, char *err, size_t errlen)
{
    if (check_lacks(t, cfg, err, errlen) < 0 || check_faults(t, cfg, err, errlen) < 0)
        return -1;
    struct pool_set ps;
    if (pool_build(&ps, cfg) < 0) {
        free(ps.paths);
        input_free(&ps.in);
        return snprintf(err, errlen, "%s: cannot build the name pool", cfg->path), -1;
    }
    int rc = 0;
    /* A call's paths are those of a tree the run read back (rcall_parse keeps them below the
     * root): they need not be pool names. */
    for (size_t k = 0; k < t->nops && rc == 0; k++) {
        int n;
        const struct op_args *calls = trace_op_calls(&t->ops[k], &n);
        const char *what = NULL, *which = NULL;
        for (int c = 0; c < n && !which; c++)
            which = op_problem(&ps, &calls[c], &what);
        if (which) {
            snprintf(err, errlen, "%s:%d: op %llu: %s '%.200s' is not in the pool of %s",
                     t->file, t->ops[k].line, (unsigned long long)t->ops[k].seq, which, what,
                     cfg->path);
            rc = -1;
        }
    }
    free(ps.paths);
    input_free(&ps.in);
    return rc;
}

int trace_check(const struct trace *t, const char *override, struct metis_config *cfg,
                int map[METIS_MAX_FS], char *err, size_t errlen)
{
    if (trace_check_config(t, override, cfg, map, err, errlen) < 0)
        return -1;
    return trace_check_pool(t, cfg, err, errlen);
}
