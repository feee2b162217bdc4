/* The read-only view of a settled kernel fs's device: its loop device, mount point and mount. */
#include "backend/device/device_view.h"
#include "backend/base/common.h"
#include "engine/vocab/fsinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

struct device_view {
    struct backend *b;
    int loopnr, mounted;
    char dev[32], mnt[1100];
    unsigned long mflags;
    char mdata[320];
    pthread_t unmounter;        /* the last view's unmount, off the step's path ... */
    int unmounting;             /* ... while it has not been waited for */
    int unmount_rc;             /* ... and how it ended */
};

/* The fs's own mount options, read-only, and what the format needs for a second mount. */
static int view_opts(struct device_view *v)
{
    const struct fs_config *c = v->b->cfg;
    char data[256];
    if (bk_mount_opts(c->mount_opts, &v->mflags, data, sizeof data) < 0)
        return bk_err(v->b, "setup", "mount_opts too long");
    v->mflags |= MS_RDONLY;
    const char *more = fs_format_view_opts(c->fstype);
    snprintf(v->mdata, sizeof v->mdata, "%s%s%s", data, data[0] && more[0] ? "," : "", more);
    return 0;
}

static int view_setup(struct device_view *v, int image_fd)
{
    struct backend *b = v->b;
    snprintf(v->mnt, sizeof v->mnt, "%s.view", b->mnt);
    if (view_opts(v) < 0)
        return -1;
    v->loopnr = bk_loop_attach_readonly(image_fd, b->image);
    if (v->loopnr < 0)
        return bk_err(b, "setup", "cannot attach %s read-only to a second loop device: %s",
                      b->image, strerror(errno));
    snprintf(v->dev, sizeof v->dev, "/dev/loop%d", v->loopnr);
    if (mkdir(v->mnt, 0755) < 0 && errno != EEXIST)
        return bk_err(b, "setup", "cannot make %s: %s", v->mnt, strerror(errno));
    return 0;
}

struct device_view *device_view_open(struct backend *b, int image_fd)
{
    struct device_view *v = calloc(1, sizeof *v);
    if (!v) {
        bk_err(b, "setup", "out of memory");
        return NULL;
    }
    v->b = b;
    v->loopnr = -1;
    if (view_setup(v, image_fd) == 0)
        return v;
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    device_view_close(v);
    memcpy(b->err, err, sizeof err);
    return NULL;
}

/* The last view's unmount, waited for: the next mount needs its mount point. Its failure is
 * told here, on the fs's own thread (b->err is that thread's). */
static int wait_unmounted(struct device_view *v, const char *step)
{
    if (!v->unmounting)
        return 0;
    pthread_join(v->unmounter, NULL);
    v->unmounting = 0;
    if (v->unmount_rc < 0)
        return bk_err(v->b, step, "umount %s: still busy after %.0f s", v->mnt,
                      BK_BUSY_SECONDS);
    return 0;
}

int device_view_mount(struct device_view *v, int *rootfd)
{
    struct backend *b = v->b;
    *rootfd = -1;
    /* Its page cache could hold the image as an earlier checkpoint left it, had anything kept
     * the device open since (a probe such as blkid's): kernel_kept.c drops the live one's too. */
    if (wait_unmounted(v, "read-back: checkpoint") < 0 ||
        bk_drop_dev_cache(b, v->dev, "read-back: checkpoint") < 0)
        return -1;
    if (mount(v->dev, v->mnt, b->cfg->fstype, v->mflags, v->mdata[0] ? v->mdata : NULL) < 0) {
        bk_err(b, "read-back: checkpoint", "a read-only mount of the settled device (mount %s "
               "on %s with options '%s'): %s", v->dev, v->mnt, v->mdata, strerror(errno));
        return 1;
    }
    v->mounted = 1;
    *rootfd = open(v->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*rootfd < 0)
        return bk_err(b, "read-back: checkpoint", "open %s: %s", v->mnt, strerror(errno));
    return 0;
}

static void *unmount_view(void *arg)
{
    struct device_view *v = arg;
    v->unmount_rc = bk_unmount(v->mnt, BK_BUSY_SECONDS);
    return NULL;
}

/* The view is read-only on a read-only device: its unmount writes nothing the fs could meet,
 * so it goes on beside the next steps (the tear-down of a mount is mostly waiting: for its
 * workqueues' threads to stop, for RCU). */
int device_view_umount(struct device_view *v, int rootfd)
{
    if (rootfd >= 0)
        close(rootfd);
    if (!v->mounted)
        return 0;
    v->mounted = 0;
    v->unmount_rc = 0;
    if (pthread_create(&v->unmounter, NULL, unmount_view, v) == 0) {
        v->unmounting = 1;
        return 0;
    }
    if (bk_unmount(v->mnt, BK_BUSY_SECONDS) < 0)     /* no thread to spare: here, then */
        return bk_err(v->b, "read-back: checkpoint", "umount %s: still busy after %.0f s",
                      v->mnt, BK_BUSY_SECONDS);
    return 0;
}

void device_view_close(struct device_view *v)
{
    if (!v)
        return;
    wait_unmounted(v, "teardown");
    if (v->mounted || bk_is_mounted(v->mnt))
        bk_unmount(v->mnt, 2.0);
    if (v->loopnr >= 0)
        bk_loop_detach(v->loopnr);
    if (v->mnt[0])
        rmdir(v->mnt);
    free(v);
}
