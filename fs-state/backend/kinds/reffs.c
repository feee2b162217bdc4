/* RefFS backend: the bin/reffs daemon mounted once; states saved and restored by its ioctls. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/kinds/dump_readback.h"
#include "reffs_ioctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

/* The state lives in the daemon, so nothing is unmounted between steps. */
struct rpriv {
    pid_t pid;                  /* the daemon, run in the foreground so we can stop it */
    int ctlfd;                  /* root of the mount, kept open for the ioctls */
    char log[1100];             /* the daemon's stdout and stderr */
    int set_up;
    struct dumpback dump;       /* read-back by REFFS_IOC_DUMP */
};

static struct rpriv *reffs_priv_get_or_make(struct backend *b)
{
    if (!b->priv) {
        struct rpriv *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->ctlfd = -1;
        b->priv = p;
    }
    return b->priv;
}

/* $METIS_REFFS_BIN, else the reffs next to the running binary (or in $METIS_BIN), else PATH.
 * A planted mutation needs the mutant build, where the mutation sites exist. */
static void find_reffs(const struct backend *b, char *out, size_t outlen)
{
    const char *env = getenv("METIS_REFFS_BIN");
    const char *name = strstr(b->cfg->reffs_opts, "mutation=") ? "reffs-mutant" : "reffs";
    if (env && *env && strcmp(name, "reffs") == 0) {
        snprintf(out, outlen, "%s", env);
        return;
    }
    bk_program_path(name, out, outlen);
}

/* After grow: the larger limits, last, so that they win over the config's own options. */
static void append_grown_limits(const struct backend *b, char *opts, size_t len)
{
    size_t n = strlen(opts);
    if (b->grown_bytes || b->grown_inodes)
        snprintf(opts + n, len - n, ",capacity=%llu,inodes=%llu",
                 (unsigned long long)b->grown_bytes, (unsigned long long)b->grown_inodes);
}

static int start_daemon(struct backend *b, struct rpriv *p)
{
    char bin[PATH_MAX], opts[512], tail[512];
    find_reffs(b, bin, sizeof bin);
    /* noopen keeps OPEN/RELEASE round trips out of every operation and read-back: exact here,
     * because Metis never holds a descriptor across a name's removal, except in open_unlink
     * (then RefFS must count opens to keep an unlinked open file alive). */
    snprintf(opts, sizeof opts, "%s", b->cfg->track_opens ? "rw" : "noopen");
    if (b->cfg->size)
        snprintf(tail, sizeof tail, ",capacity=%llu", (unsigned long long)b->cfg->size);
    else
        tail[0] = '\0';
    snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "%s%s%s", tail,
             b->cfg->reffs_opts[0] ? "," : "", b->cfg->reffs_opts);
    append_grown_limits(b, opts, sizeof opts);
    char *argv[] = { bin, "-f", "-o", opts, b->mnt, NULL };
    snprintf(p->log, sizeof p->log, "%s.log", b->mnt);
    int logfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bk_pin_cpu();
    p->pid = bk_spawn(argv, logfd);
    if (logfd >= 0)
        close(logfd);
    if (p->pid < 0)
        return bk_err(b, "setup", "cannot start %s: %s", bin, strerror(errno));
    int status = -1;
    if (bk_wait_mounted(b->mnt, 1, bk_setup_timeout(b), &p->pid, &status) < 0) {
        bk_log_tail(p->log, tail, sizeof tail);
        return bk_err(b, "setup", "%s -f -o '%s' %s %s%s%s", bin, opts, b->mnt,
                      status >= 0 ? "exited without mounting" : "did not mount in time",
                      tail[0] ? ": " : "", tail);
    }
    if (p->pid == 0)
        return bk_err(b, "setup", "%s exited after mounting (it should stay in the foreground)",
                      bin);
    b->mounted = 1;
    return 0;
}

static int open_ctl(struct backend *b, struct rpriv *p)
{
    struct statfs sf;
    p->ctlfd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->ctlfd < 0)
        return bk_err(b, "setup", "cannot open %s: %s", b->mnt, strerror(errno));
    if (fstatfs(p->ctlfd, &sf) < 0 || sf.f_type != FUSE_SUPER_MAGIC)
        return bk_err(b, "setup", "%s is not a FUSE mount", b->mnt);
    return 0;
}

static void r_teardown(struct backend *b);
static int uses_dump(const struct backend *b);

static int r_setup(struct backend *b)
{
    struct rpriv *p = reffs_priv_get_or_make(b);
    if (!p)
        return bk_err(b, "setup", "out of memory");
    if (p->set_up)
        return bk_err(b, "setup", "already set up");
    if (bk_make_mnt(b) == 0 && start_daemon(b, p) == 0 && open_ctl(b, p) == 0 &&
        dumpback_init(&p->dump, b, p->ctlfd, "RefFS") == 0) {
        p->set_up = 1;
        b->reads_daemon_tree = uses_dump(b);
        return 0;
    }
    return bk_setup_failed(b, r_teardown);
}

static int r_begin(struct backend *b)
{
    struct rpriv *p = b->priv;
    if (!p || !p->set_up)
        return bk_err(b, "begin", "not set up");
    return bk_open_root(b);
}

/* The mount stays, so its root stays open from one step to the next (closed at teardown):
 * an open and a close less per step. */
static int r_end(struct backend *b)
{
    return 0;
}

static int key_ioctl(struct backend *b, unsigned long cmd, const char *step, uint64_t id)
{
    struct rpriv *p = b->priv;
    struct reffs_ioc_key k = { id };
    if (!p || p->ctlfd < 0)
        return bk_err(b, step, "not set up");
    if (ioctl(p->ctlfd, cmd, &k) < 0)
        return bk_err(b, step, "state %llu: %s", (unsigned long long)id,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

static int r_save(struct backend *b, uint64_t id)
{
    return key_ioctl(b, REFFS_IOC_SAVE, "save", id);
}

static int r_restore(struct backend *b, uint64_t id)
{
    return key_ioctl(b, REFFS_IOC_RESTORE, "restore", id);
}

static void r_discard(struct backend *b, uint64_t id)
{
    struct rpriv *p = b->priv;
    struct reffs_ioc_key k = { id };
    if (p && p->ctlfd >= 0)
        ioctl(p->ctlfd, REFFS_IOC_DISCARD, &k);
}

static int r_export(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen)
{
    struct rpriv *p = b->priv;
    struct reffs_ioc_file f;
    char abs[PATH_MAX];
    if (!p || p->ctlfd < 0)
        return bk_err(b, "export", "not set up");
    if (!realpath(dir, abs))
        return bk_err(b, "export", "%s: %s", dir, strerror(errno));
    memset(&f, 0, sizeof f);
    f.key = id;
    if (snprintf(f.path, sizeof f.path, "%s/%s-%llu.pickle", abs, b->cfg->name,
                 (unsigned long long)id) >= (int)sizeof f.path ||
        snprintf(out, outlen, "%s", f.path) >= (int)outlen)
        return bk_err(b, "export", "path too long under %s", abs);
    if (ioctl(p->ctlfd, REFFS_IOC_PICKLE, &f) < 0)
        return bk_err(b, "export", "state %llu to %s: %s", (unsigned long long)id, f.path,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

/* umount2 as root; fusermount3 otherwise. Then the daemon exits on its own, or is stopped. */
static void r_teardown(struct backend *b)
{
    struct rpriv *p = b->priv;
    if (!p)
        return;
    bk_close_root(b);
    if (p->ctlfd >= 0)
        close(p->ctlfd);
    p->ctlfd = -1;
    if (b->mounted || bk_is_mounted(b->mnt)) {
        char out[256];
        if (bk_unmount(b->mnt, 2.0) < 0 && errno == EPERM &&
            run_cmd(5, out, sizeof out, "fusermount3 -u %s || fusermount3 -uz %s", b->mnt,
                    b->mnt) != 0)
            fprintf(stderr, "metis: fs %s: teardown: cannot unmount %s: %s\n", b->cfg->name,
                    b->mnt, out);
    }
    b->mounted = 0;
    if (p->pid > 0 && spawn_wait_for(p->pid, 2.0) == -1)
        spawn_stop(p->pid, 1.0);
    p->pid = 0;
    if (p->log[0])
        unlink(p->log);
    p->log[0] = 0;
    dumpback_free(&p->dump);
    p->set_up = 0;
    bk_remove_mnt(b);
}

/* ---- read-back ---- */

/* A planted mutation may sit where only the kernel's view shows it (its directory listing), so "auto"
 * walks a mutant's mount. */
static int uses_dump(const struct backend *b)
{
    const char *mode = b->cfg->readback;
    return strcmp(mode, "dump") == 0 ||
           (strcmp(mode, "auto") == 0 && !strstr(b->cfg->reffs_opts, "mutation="));
}

/* RefFS hands its tree over in one ioctl: a walk through FUSE costs a round trip per
 * listxattr alone. Every readback_check-th time (and for every listing) the mount is
 * walked too, and the two must agree. */
static int r_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                       FILE *listing, struct tree_index *index)
{
    struct rpriv *p = b->priv;
    if (!p || p->ctlfd < 0)
        return bk_err(b, "read-back", "not set up");
    if (!uses_dump(b))
        return bk_walk(b, o, out, listing, index);
    return dumpback_read_back(&p->dump, b, o, out, listing, index);
}

static uint64_t r_held_bytes(struct backend *b)
{
    struct rpriv *p = b->priv;
    struct reffs_ioc_stats st = { 0, 0 };
    if (!p || p->ctlfd < 0 || ioctl(p->ctlfd, REFFS_IOC_STATS, &st) < 0)
        return 0;
    return st.bytes;
}

static void r_kill_daemon(struct backend *b)
{
    struct rpriv *p = b->priv;
    if (p && p->pid > 0)
        kill(-p->pid, SIGKILL);
}

/* RefFS's capacity and inode limit are only numbers: a reference with less room than its
 * targets (an unsized FUSE target over a large store) is started again with theirs. */
static int r_grow(struct backend *b, uint64_t bytes, uint64_t inodes)
{
    struct rpriv *p = b->priv;
    struct statvfs sv;
    if (!p || p->ctlfd < 0 || fstatvfs(p->ctlfd, &sv) < 0)
        return bk_err(b, "setup", "cannot read its limits to grow them: %s", strerror(errno));
    b->grown_bytes = (uint64_t)sv.f_blocks * sv.f_frsize + bytes;
    b->grown_inodes = (uint64_t)sv.f_files + inodes;
    r_teardown(b);
    return r_setup(b);
}

const struct backend_ops backend_reffs_ops = {
    .setup = r_setup,
    .begin = r_begin,
    .end = r_end,
    .save = r_save,
    .restore = r_restore,
    .discard = r_discard,
    .export_state = r_export,
    .teardown = r_teardown,
    .held_bytes = r_held_bytes,
    .read_back = r_read_back,
    .kill_daemon = r_kill_daemon,
    .grow = r_grow,
};
