/* Kernel file-system backend: an image in /dev/shm on a loop device, mounted with mount(2); remounted around every step, its states images. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/device/image.h"
#include "backend/device/imgstore.h"
#include "backend/kinds/kernel.h"
#include "backend/device/faultdev.h"
#include "engine/vocab/fsinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

/*
 * The loop device stays attached for the whole run but nobody holds it open between steps:
 * the block device's page cache is dropped at its last close (the unmount), so what restore
 * pwrites into the backing file is what the next mount reads. For the same reason the loop
 * device is not LO_FLAGS_AUTOCLEAR (it would detach at every unmount); after a crash,
 * backend_sweep detaches it. remount = 0 keeps it mounted instead: kernel_kept.c.
 */

static int parse_mount_opts(struct backend *b, struct kdev *p)
{
    if (bk_mount_opts(b->cfg->mount_opts, &p->mflags, p->mdata, sizeof p->mdata) < 0)
        return bk_err(b, "setup", "mount_opts too long");
    return 0;
}

/* ---- mount and unmount ---- */

/* No read of the image through the device ahead of the mount (probably dropped when the
 * mount sets the device's block size): in 5 interleaved 10-s runs of ext2-vs-ext4 (seed 7)
 * it gave a median of 378 ops/s against 412 without it. */
static int kdev_mount_from(struct backend *b, struct kdev *p, const char *dev, const char *step)
{
    if (mount(dev, b->mnt, b->cfg->fstype, p->mflags, p->mdata[0] ? p->mdata : NULL) < 0)
        return bk_err(b, step, "mount %s (%s) on %s with options '%s': %s%s", dev,
                      b->cfg->fstype, b->mnt, b->cfg->mount_opts, strerror(errno),
                      errno == EINVAL ? " (bad mount_opts? see dmesg)"
                      : errno == ENODEV ? " (this kernel has no such fs: modprobe it?)" : "");
    b->mounted = 1;
    imgstore_file_changed(p->im.store);
    return 0;
}

int kdev_mount(struct backend *b, struct kdev *p, const char *step)
{
    return kdev_mount_from(b, p, p->loopdev, step);
}

/* A plain unmount; EBUSY is retried for BK_BUSY_SECONDS: a file's last close can be finished by
 * the kernel after close(2) returned (a deferred fput), and on a loaded machine that was seen
 * to take longer than 0.2 s (fuse2fs profile beside other runs: one unmount of its ext4 failed). */
int kdev_umount(struct backend *b, const char *step)
{
    double end = now_seconds() + BK_BUSY_SECONDS;
    bk_close_root(b);
    while (umount2(b->mnt, UMOUNT_NOFOLLOW) < 0) {
        if (errno == EINVAL) {
            break;                  /* not mounted */
        }
        if (errno != EBUSY || now_seconds() > end)
            return bk_err(b, step, "umount %s: %s%s", b->mnt, strerror(errno),
                          errno == EBUSY ? " (a file on it is still open)" : "");
        usleep(500);
    }
    b->mounted = 0;
    return 0;
}

void kdev_init(struct kdev *p)
{
    memset(p, 0, sizeof *p);
    p->im.fd = -1;
    p->loopnr = -1;
}

int kdev_prepare(struct backend *b, struct kdev *p)
{
    const struct fs_config *c = b->cfg;
    uint64_t size = c->size ? c->size : fs_format_default_size(c->fstype);
    if (!c->fstype[0])
        return bk_err(b, "setup", "no fstype given");
    if (parse_mount_opts(b, p) < 0 || bk_make_mnt(b) < 0 || bimage_create(b, &p->im, size) < 0 ||
        bimage_mkfs(b, c->fstype, size) < 0)
        return -1;
    p->loopnr = p->direct_io ? bk_loop_attach_direct(p->im.fd, b->image) : -1;
    if (p->loopnr < 0)      /* also where the image's fs cannot do direct I/O */
        p->loopnr = bk_loop_attach(p->im.fd, b->image);
    if (p->loopnr < 0)
        return bk_err(b, "setup", "cannot attach %s to a loop device: %s", b->image,
                      strerror(errno));
    snprintf(p->loopdev, sizeof p->loopdev, "/dev/loop%d", p->loopnr);
    return 0;
}

/* Idempotent and safe after a partial setup: each resource is marked gone once released. */
void kdev_teardown(struct backend *b, struct kdev *p)
{
    bk_close_root(b);
    if (b->mounted || bk_is_mounted(b->mnt))
        bk_unmount(b->mnt, 2.0);
    b->mounted = 0;
    faultdev_close(p->fault);
    p->fault = NULL;
    if (p->loopnr >= 0)
        bk_loop_detach(p->loopnr);
    p->loopnr = -1;
    bimage_destroy(b, &p->im);
    bk_remove_mnt(b);
}

/* ---- backend ops ---- */

static struct kdev *kp(struct backend *b)
{
    if (!b->priv) {
        struct kdev *p = malloc(sizeof *p);
        if (!p)
            return NULL;
        kdev_init(p);
        b->priv = p;
    }
    return b->priv;
}

static void k_teardown(struct backend *b);

static int k_setup(struct backend *b)
{
    struct kdev *p = kp(b);
    if (!p)
        return bk_err(b, "setup", "out of memory");
    if (p->im.store)
        return bk_err(b, "setup", "already set up");
    if (kdev_prepare(b, p) == 0 && kdev_mount(b, p, "setup: first mount") == 0)
        return 0;
    return bk_setup_failed(b, k_teardown);
}

static int k_begin(struct backend *b)
{
    struct kdev *p = b->priv;
    if (!p || !p->im.store)
        return bk_err(b, "begin", "not set up");
    if (!b->mounted && b->mount_recorded && p->fault) {
        if (kdev_mount_from(b, p, faultdev_device(p->fault), "begin: mount from the recording "
                            "device") < 0)
            return -1;
    } else if (!b->mounted && kdev_mount(b, p, "begin: mount") < 0) {
        return -1;
    }
    imgstore_file_changed(p->im.store);   /* a mounted fs may write the image at any time */
    return bk_open_root(b);
}

static int k_end(struct backend *b)
{
    bk_close_root(b);
    if (b->mounted)
        return kdev_umount(b, "end");
    return 0;
}

/* Unmounted by end: the image holds everything the fs wrote. */
static int k_save(struct backend *b, uint64_t id)
{
    struct kdev *p = b->priv;
    if (!p || !p->im.store)
        return bk_err(b, "save", "not set up");
    return bimage_save(b, &p->im, id);
}

static int k_restore(struct backend *b, uint64_t id)
{
    struct kdev *p = b->priv;
    if (!p || !p->im.store)
        return bk_err(b, "restore", "not set up");
    if (!imgstore_has(p->im.store, id))
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (b->mounted && kdev_umount(b, "restore: umount") < 0)
        return -1;
    return bimage_restore(b, &p->im, id);
}

static void k_discard(struct backend *b, uint64_t id)
{
    struct kdev *p = b->priv;
    if (p && p->im.store)
        imgstore_discard(p->im.store, id);
}

static int k_export(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen)
{
    struct kdev *p = b->priv;
    if (!p || !p->im.store)
        return bk_err(b, "export", "not set up");
    return bimage_export(b, &p->im, id, dir, out, outlen);
}

static void k_teardown(struct backend *b)
{
    struct kdev *p = b->priv;
    if (p)
        kdev_teardown(b, p);
}

static uint64_t k_held_bytes(struct backend *b)
{
    struct kdev *p = b->priv;
    return p && p->im.store ? imgstore_bytes(p->im.store) : 0;
}

static struct faultdev *k_faultdev(struct backend *b)
{
    struct kdev *p = b->priv;
    if (!p || !p->im.store) {
        bk_err(b, "faulty device", "not set up");
        return NULL;
    }
    if (!p->fault)
        p->fault = faultdev_open(b, 1);
    return p->fault;
}

static int k_begin_faulty(struct backend *b)
{
    struct kdev *p = b->priv;
    if (!p || !p->fault)
        return bk_err(b, "begin", "no faulty device");
    if (b->mounted)
        return bk_err(b, "begin", "mounted already: a fault step needs remount = 1");
    if (kdev_mount_from(b, p, faultdev_device(p->fault), "begin: mount from the faulty device") < 0)
        return -1;
    return bk_open_root(b);
}

const struct backend_ops backend_kernel_ops = {
    .setup = k_setup,
    .begin = k_begin,
    .end = k_end,
    .save = k_save,
    .restore = k_restore,
    .discard = k_discard,
    .export_state = k_export,
    .teardown = k_teardown,
    .held_bytes = k_held_bytes,
    .faultdev = k_faultdev,
    .begin_faulty = k_begin_faulty,
};
