/* Importing exported states: image bytes written into the unmounted backing file, REFFS_IOC_LOAD on the mount, or the backend's own load (a tmpfs's tree, a FUSE fs's directories). */
#include "import.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reffs_ioctl.h"

static int ierr(struct backend *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ierr(struct backend *b, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->err, sizeof b->err, "fs %s: import: %s", b->cfg->name, msg);
    return -1;
}

/* States that are no image or pickle, which the backend loads itself (import_state): a tmpfs's
 * recorded tree, a {dir}-backed fs's directories. */
static int loaded_by_backend(const struct fs_config *cfg)
{
    return (cfg->type == FS_KERNEL && strcmp(cfg->fstype, "tmpfs") == 0) ||
           (cfg->type == FS_FUSE && cfg->dir_backed);
}

int import_supported(const struct fs_config *cfg)
{
    return (cfg->type == FS_KERNEL && !fs_format_devless(cfg->fstype)) || cfg->type == FS_REFFS ||
           (cfg->type == FS_FUSE && cfg->size && !cfg->dir_backed && cfg->remount) ||
           loaded_by_backend(cfg);
}

static int copy_into(struct backend *b, int in, int out, off_t size)
{
    char buf[1 << 16];
    for (off_t off = 0; off < size;) {
        ssize_t n = pread(in, buf, sizeof buf, off);
        if (n <= 0)
            return ierr(b, "reading the exported image: %s", n ? strerror(errno) : "short file");
        for (ssize_t done = 0; done < n;) {
            ssize_t w = pwrite(out, buf + done, (size_t)(n - done), off + done);
            if (w <= 0)
                return ierr(b, "writing %s: %s", b->image, strerror(errno));
            done += w;
        }
        off += n;
    }
    return 0;
}

/* A remounted backend unmounts for a restore and a kept one when asked, so the image file is
 * then ours to overwrite; saving afterwards makes the image store read what the file now
 * holds. */
static int import_image(struct backend *b, const char *file, uint64_t sid)
{
    struct stat is, os;
    if (b->ops->restore(b, 0) < 0 || (b->ops->unmount && b->ops->unmount(b) < 0))
        return -1;
    int in = open(file, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return ierr(b, "%s: %s", file, strerror(errno));
    int out = open(b->image, O_WRONLY | O_CLOEXEC);
    if (out < 0) {
        close(in);
        return ierr(b, "%s: %s", b->image, strerror(errno));
    }
    int rc = 0;
    if (fstat(in, &is) < 0 || fstat(out, &os) < 0 || is.st_size != os.st_size)
        rc = ierr(b, "%s has %lld bytes, the image %lld", file, (long long)is.st_size,
                  (long long)os.st_size);
    if (rc == 0)
        rc = copy_into(b, in, out, is.st_size);
    if (rc == 0 && fsync(out) < 0)
        rc = ierr(b, "fsync %s: %s", b->image, strerror(errno));
    close(in);
    close(out);
    return rc < 0 ? -1 : b->ops->save(b, sid);
}

static int import_pickle(struct backend *b, const char *file, uint64_t sid)
{
    struct reffs_ioc_file f;
    char abs[PATH_MAX];
    memset(&f, 0, sizeof f);
    if (!realpath(file, abs) || snprintf(f.path, sizeof f.path, "%s", abs) >= (int)sizeof f.path)
        return ierr(b, "%s: %s", file, errno ? strerror(errno) : "path too long");
    f.flags = REFFS_IOC_RESTORE_AFTER;
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = ioctl(b->rootfd, REFFS_IOC_LOAD, &f);
    int e = errno;
    if (b->ops->end(b) < 0)
        return -1;
    if (rc < 0)
        return ierr(b, "REFFS_IOC_LOAD %s: %s", abs, strerror(e));
    return b->ops->save(b, sid);
}

int import_state(struct backend *b, const char *file, uint64_t sid)
{
    if (!file)
        return ierr(b, "no exported state");
    if (!import_supported(b->cfg))
        return ierr(b, "a type=fuse fs without an image or {dir} directories has no state to load");
    if (loaded_by_backend(b->cfg))
        return b->ops->import_state ? b->ops->import_state(b, file, sid)
                                    : ierr(b, "this backend loads no exported state");
    return b->cfg->type == FS_REFFS ? import_pickle(b, file, sid) : import_image(b, file, sid);
}
