/* Backend front door: the table of backend types, open/close, read-back dispatch, and the sweep of a run's leftovers. */
#include "backend.h"
#include "common.h"
#include "tree/tree.h"
#include "engine/fsinfo.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Run ids and fs names become path components: only [A-Za-z0-9._-], not "." or "..". */
static int safe_name(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (; *s; s++)
        if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

/* One implementation per backend type (fsinfo.h names them). */
static const struct backend_ops *const backend_types[FS_NTYPES] = {
    [FS_KERNEL] = &backend_kernel_ops,
    [FS_REFFS] = &backend_reffs_ops,
    [FS_FUSE] = &backend_fuse_ops,
};

/* A kernel fs without a device (tmpfs, overlay) is a module of its own: kernel.c is about
 * loop devices. */
static const struct backend_ops *ops_for(const struct fs_config *cfg)
{
    if (cfg->type == FS_KERNEL && fs_format_devless(cfg->fstype))
        return &backend_devless_ops;
    return (unsigned)cfg->type < FS_NTYPES ? backend_types[cfg->type] : NULL;
}

int backend_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                      FILE *listing, struct tree_index *index)
{
    return b->ops->read_back ? b->ops->read_back(b, o, out, listing, index)
                             : bk_walk(b, o, out, listing, index);
}

/* Mount points live in <base>/metis-<run_id>/mnt-<fs>; images in /dev/shm/metis-<run_id>/<fs>.img.
 * Both name the run in a path component of their own, so a sweep can never match another run. */
struct backend *backend_open(const struct fs_config *cfg, const char *run_id, const char *workdir)
{
    char base[PATH_MAX] = "/tmp";
    if (!cfg || !run_id || !safe_name(run_id) || !safe_name(cfg->name) || !ops_for(cfg)) {
        fprintf(stderr, "metis: backend: bad run id or fs name (%s / %s): use [A-Za-z0-9._-]\n",
                run_id ? run_id : "(null)", cfg ? cfg->name : "(null)");
        return NULL;
    }
    if (workdir && *workdir && !realpath(workdir, base))
        snprintf(base, sizeof base, "/tmp");
    struct backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->ops = ops_for(cfg);
    b->cfg = cfg;
    b->rootfd = -1;
    snprintf(b->run_id, sizeof b->run_id, "%s", run_id);
    if (snprintf(b->mnt, sizeof b->mnt, "%s/metis-%s/mnt-%s", base, run_id, cfg->name) >=
        (int)sizeof b->mnt) {
        fprintf(stderr, "metis: backend %s: work directory path too long\n", cfg->name);
        free(b);
        return NULL;
    }
    snprintf(b->image, sizeof b->image, BK_SHM_DIR "/metis-%s/%s.img", run_id, cfg->name);
    return b;
}

void backend_close(struct backend *b)
{
    if (!b)
        return;
    b->ops->teardown(b);
    free(b->priv);
    free(b);
}

/* ---- a target that died or hangs ---- */

int backend_errno_of_dead_daemon(int err)
{
    return err == ENOTCONN || err == ECONNABORTED || err == ECONNREFUSED;
}

int backend_daemon_gone(struct backend *b)
{
    struct statfs st;
    if (!b->mounted)
        return b->daemon_died;
    if ((statfs(b->mnt, &st) < 0 && backend_errno_of_dead_daemon(errno)) ||
        !bk_is_mounted(b->mnt))
        b->daemon_died = 1;
    return b->daemon_died;
}

/* fusectl names a connection by the mount's device number in the kernel's own encoding
 * (major << 20 | minor); FUSE mounts have major 0, so it is the minor in practice. */
static void abort_fuse_connection(const char *mnt)
{
    unsigned major, minor;
    char path[128];
    if (bk_mount_dev(mnt, &major, &minor) < 0 || major != 0)
        return;
    snprintf(path, sizeof path, "/sys/fs/fuse/connections/%u/abort", minor);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (write(fd, "1", 1) < 0)
        fprintf(stderr, "metis: %s: %s\n", path, strerror(errno));
    close(fd);
}

void backend_abort(struct backend *b)
{
    if (b->ops->kill_daemon)
        b->ops->kill_daemon(b);
    abort_fuse_connection(b->mnt);
}

/* ---- sweep ---- */

struct sweep_ctx {
    char needle[128];
    char found[64][1024];
    int n;
};

static int collect_run_mounts(const char *mp, void *ctx)
{
    struct sweep_ctx *s = ctx;
    if (strstr(mp, s->needle) && s->n < 64)
        snprintf(s->found[s->n++], sizeof s->found[0], "%s", mp);
    return 0;
}

static int remove_dir_entry(void *dir, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", (const char *)dir, name) < (int)sizeof path &&
        unlink(path) < 0)
        rmdir(path);
    return 0;
}

static void remove_dir_files(const char *dir)
{
    if (tree_dir_names(dir, remove_dir_entry, (void *)dir) == 0)
        rmdir(dir);
}

void backend_sweep(const char *run_id)
{
    static struct sweep_ctx s;
    char path[PATH_MAX];
    if (!run_id || !safe_name(run_id))
        return;
    snprintf(s.needle, sizeof s.needle, "/metis-%s/mnt-", run_id);
    for (int pass = 0; pass < 4; pass++) {
        s.n = 0;
        bk_each_mount(collect_run_mounts, &s);
        if (s.n == 0)
            break;
        for (int i = s.n - 1; i >= 0; i--)   /* the latest mounts (deepest) first */
            if (umount2(s.found[i], UMOUNT_NOFOLLOW) < 0)
                umount2(s.found[i], MNT_DETACH | UMOUNT_NOFOLLOW);
        for (int i = 0; i < s.n; i++) {
            rmdir(s.found[i]);
            *strrchr(s.found[i], '/') = 0;
            rmdir(s.found[i]);
        }
    }
    snprintf(path, sizeof path, BK_SHM_DIR "/metis-%s/", run_id);
    bk_loop_sweep(path);
    path[strlen(path) - 1] = 0;
    remove_dir_files(path);
    snprintf(path, sizeof path, "/tmp/metis-%s", run_id);
    remove_dir_files(path);   /* only empty mount points remain there: rmdir */
}
