/* Backend front door: the table of backend types, open/close, read-back dispatch, a hung target's abort. */
#include "backend/backend.h"
#include "backend/base/common.h"
#include "tree/tree.h"
#include "engine/vocab/fsinfo.h"
#include "lib/system/fusectl.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bk_safe_name(const char *s)
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
 * loop devices; so is one kept mounted (kernel_kept.c), restored logically. */
static const struct backend_ops *ops_for(const struct fs_config *cfg)
{
    if (cfg->type == FS_KERNEL && fs_format_devless(cfg->fstype))
        return &backend_devless_ops;
    if (cfg->type == FS_KERNEL && !cfg->remount)
        return &backend_kernel_kept_ops;
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
    if (!cfg || !run_id || !bk_safe_name(run_id) || !bk_safe_name(cfg->name) || !ops_for(cfg)) {
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
    buf_free(&b->history);
    free(b->priv);
    free(b);
}

/* ---- a target that died or hangs ---- */

int backend_daemon_gone(struct backend *b)
{
    if (!b->mounted)
        return b->daemon_died;
    if (bk_connection_dead(b->mnt) || !bk_is_mounted(b->mnt))
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
    snprintf(path, sizeof path, FUSECTL_DIR "/%u/abort", minor);
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
