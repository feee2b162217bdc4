/* Kernel file systems kept mounted (remount = 0): states restored logically between checkpoints, where the settled fs's device read back on a view of its own (or a remount) shows whether it holds what the mount showed. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/device/device_view.h"
#include "backend/device/image.h"
#include "backend/kinds/kept.h"
#include "backend/kinds/kept_images.h"
#include "backend/kinds/kernel.h"
#include "backend/logical/states/logical_states.h"
#include "backend/device/lost_write.h"
#include "backend/device/write_trace.h"
#include "backend/device/imgstore.h"
#include "engine/vocab/fsinfo.h"
#include "tree/classify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

/*
 * The fs stays mounted from step to step; a state is the tree its read-back recorded and its
 * free counts, brought back by applying the difference through syscalls (kept.h). What the
 * kernel holds in its caches but never wrote to the device shows at the next checkpoint
 * (remount_every steps down the search path): the fs is settled (below), its image kept and
 * read back through a read-only loop device and mount of its own (device_view.h), and resumed
 * (a fs that cannot be: unmounted, its image kept, mounted again and read back), and a tree
 * that is not the live one is a finding of its own (b->remount), not a failure.
 */
struct kkpriv {
    struct kdev dev;
    struct kept *kept;
    struct lost_writes *lost;   /* the test hook's notes, made by the first lose_write */
    uint64_t lost_bytes;        /* ... the bytes it took out of the image */
    char *live, *after;         /* the listings of the last remount finding */
    struct device_view *view;   /* where a checkpoint reads the settled fs's device back */
    char view_err[sizeof ((struct backend *)0)->err];   /* ... why there is none */
    struct write_trace *trace;  /* the blocks the fs writes through its loop device */
    char trace_err[sizeof ((struct backend *)0)->err];  /* ... why there is none */
    int by_journal;             /* settled by syncfs and a journal checkpoint, not remounted
                                   read-only (fs_format_settles_by_journal) */
    int set_up;
};

static struct kkpriv *kk(struct backend *b)
{
    if (!b->priv) {
        struct kkpriv *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        kdev_init(&p->dev);
        /* A checkpoint is an unmount and a mount, which wait on the loop device; with direct
         * I/O it passes them to the image file itself rather than through its page cache
         * (6 interleaved 20-s runs beside other load: ops/s +16% on ext4-vs-xfs and +19% on
         * ext4-vs-btrfs, medians; two later 3-round repeats, one alone, showed no difference
         * either way: README "Performance" has all three). */
        p->dev.direct_io = 1;
        b->priv = p;
    }
    return b->priv;
}

static struct kkpriv *set_up(struct backend *b, const char *step)
{
    struct kkpriv *p = b->priv;
    if (!p || !p->set_up) {
        bk_err(b, step, "not set up");
        return NULL;
    }
    return p;
}

/* ---- how kept.h unmounts and mounts it ---- */

/* The device's page cache goes at its last close, but a process that held the loop device
 * open across a rewrite of the image (a probe such as blkid's) keeps it: the mount would read
 * the blocks as they were before the image was restored. Suspected, not proven: in a soak of
 * ref-vs-ext4, about 1 replay from a checkpoint in 1,700 left a tree without an entry the
 * replay had made (kept.c now holds every replay to its state). Flushing costs next to nothing
 * beside a mount. */
static int mount_dev(struct backend *b, const char *step)
{
    struct kkpriv *p = b->priv;
    if (bk_drop_dev_cache(b, p->dev.loopdev, step) < 0)
        return -1;
    return kdev_mount(b, &p->dev, step);
}

static int unmount_dev(struct backend *b, const char *step)
{
    return kdev_umount(b, step);
}

static int locate_lost(struct backend *b)
{
    struct kkpriv *p = b->priv;
    if (p->lost)
        lw_locate(p->lost, b->rootfd);
    return 0;
}

static int zero_lost(struct backend *b)
{
    struct kkpriv *p = b->priv;
    int64_t n = p->lost ? lw_zero(p->lost, p->dev.im.fd) : 0;
    if (n < 0)
        return bk_err(b, "read-back: checkpoint", "test hook: zeroing a lost write in %s: %s",
                      b->image, strerror(errno));
    if (n > 0)      /* written into the file, past the device and its trace */
        imgstore_file_changed(p->dev.im.store);
    p->lost_bytes += (uint64_t)n;
    return 0;
}

/* ---- a checkpoint without an unmount: the fs settled, its device mounted read-only ---- */

/* ext4's journal checkpoint (linux/ext4.h, which not every system's headers have): everything
 * the journal holds written in place, as an unmount leaves it. */
#ifndef EXT4_IOC_CHECKPOINT
#define EXT4_IOC_CHECKPOINT _IOW('f', 43, __u32)
#endif

/* A read-only remount, or back (ro 0): the mount flags and options it was mounted with kept.
 * EBUSY (a file's last close the kernel finishes after close(2) returned) is tried again, as
 * an unmount's is. */
static int remount(struct backend *b, int ro)
{
    struct kkpriv *p = b->priv;
    unsigned long flags = MS_REMOUNT | (p->dev.mflags & ~MS_RDONLY) | (ro ? MS_RDONLY : 0);
    double end = now_seconds() + BK_BUSY_SECONDS;
    while (mount(NULL, b->mnt, NULL, flags, p->dev.mdata[0] ? p->dev.mdata : NULL) < 0) {
        if (errno != EBUSY || now_seconds() > end)
            return bk_err(b, "read-back: checkpoint", "remount %s %s: %s", b->mnt,
                          ro ? "read-only" : "read-write", strerror(errno));
        usleep(500);
    }
    return 0;
}

/* Settled, the image holds all the fs shows and nothing writes it until resume_dev: ext3/4
 * sync and checkpoint their journal into place (nothing else touches the fs meanwhile); the
 * others are remounted read-only, which writes all they hold and marks them clean, as an
 * unmount does. Not FIFREEZE: its three RCU grace periods (fs/super.c, sb_wait_write) took 40
 * to 70 ms a freeze under load, against 4 to 8 ms for either of these (README "Performance"). */
static int settle_dev(struct backend *b)
{
    struct kkpriv *p = b->priv;
    __u32 flags = 0;
    if (!p->view) {
        snprintf(b->err, sizeof b->err, "%s", p->view_err);
        return 1;
    }
    if (!p->by_journal)
        return remount(b, 1);
    if (syncfs(b->rootfd) < 0)
        return bk_err(b, "read-back: checkpoint", "syncfs: %s", strerror(errno));
    if (ioctl(b->rootfd, EXT4_IOC_CHECKPOINT, &flags) == 0 || errno == ENODEV)
        return 0;               /* ENODEV: no journal (below 2 MiB), syncfs wrote it all */
    int e = errno;
    bk_err(b, "read-back: checkpoint", "EXT4_IOC_CHECKPOINT: %s", strerror(e));
    return e == ENOTTY || e == EOPNOTSUPP ? 1 : -1;     /* a kernel before 5.13 */
}

static int resume_dev(struct backend *b)
{
    struct kkpriv *p = b->priv;
    return p->by_journal ? 0 : remount(b, 0);
}

/* METIS_TEST_DEVICE_VIEW, a test hook: "refuse" makes the view not mount (the checkpoints
 * remount instead, as where a view cannot be had), "pause:S" makes a settled checkpoint wait S
 * seconds with its view mounted, so that a test can stop or kill the run there. */
static int view_test_hook(struct backend *b, int mounted)
{
    const char *v = getenv("METIS_TEST_DEVICE_VIEW");
    if (!v || !*v)
        return 0;
    if (!mounted && strcmp(v, "refuse") == 0) {
        bk_err(b, "read-back: checkpoint", "test hook: the settled device's view refused");
        return 1;
    }
    if (mounted && strncmp(v, "pause:", 6) == 0) {
        fprintf(stderr, "metis: test hook: fs %s settled, its view mounted: pausing %s s\n",
                b->cfg->name, v + 6);
        bk_sleep(atof(v + 6));
    }
    return 0;
}

static int view_mount(struct backend *b, int *rootfd)
{
    struct kkpriv *p = b->priv;
    if (view_test_hook(b, 0))
        return 1;
    int rc = device_view_mount(p->view, rootfd);
    if (rc == 0)
        view_test_hook(b, 1);
    return rc;
}

static int view_unmount(struct backend *b, int rootfd)
{
    struct kkpriv *p = b->priv;
    return device_view_umount(p->view, rootfd);
}

/* Why a take failed goes to trace_err, not b->err: it fails nothing (the image is read whole). */
static int written(struct backend *b, unsigned char *blocks)
{
    struct kkpriv *p = b->priv;
    return p->trace && write_trace_take(p->trace, blocks, p->trace_err,
                                        sizeof p->trace_err) == 0 ? 0 : 1;
}

static const struct kept_ops kernel_mounts = { .unmount = unmount_dev, .mount = mount_dev,
                                               .before_unmount = locate_lost,
                                               .unmounted = zero_lost, .settle = settle_dev,
                                               .resume = resume_dev, .view_mount = view_mount,
                                               .view_unmount = view_unmount,
                                               .written = written };

/* Started before the first image is kept, so that it sees every write after it. Without it
 * (no tracefs here, or METIS_TEST_WRITE_TRACE=off) a checkpoint compares the whole image. */
static void open_trace(struct backend *b, struct kkpriv *p)
{
    p->trace = write_trace_open(b->run_id, p->dev.loopnr, imgstore_nblocks(p->dev.im.store),
                                imgstore_block_size(p->dev.im.store), p->trace_err,
                                sizeof p->trace_err);
}

/* Without a view (no second loop device) the checkpoints remount: the run goes on, with the
 * reason in summary.json. */
static void open_view(struct backend *b, struct kkpriv *p)
{
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    p->by_journal = fs_format_settles_by_journal(b->cfg->fstype);
    p->view = device_view_open(b, p->dev.im.fd);
    if (!p->view)
        snprintf(p->view_err, sizeof p->view_err, "%s", b->err);
    memcpy(b->err, err, sizeof err);
}

/* ---- backend ops ---- */

static void kk_teardown(struct backend *b);

static int kk_setup(struct backend *b)
{
    struct kkpriv *p = kk(b);
    if (!p)
        return bk_err(b, "setup", "out of memory");
    if (p->set_up)
        return bk_err(b, "setup", "already set up");
    /* The image before the first mount is where a replay from the initial state starts. */
    if (kdev_prepare(b, &p->dev) < 0)
        return bk_setup_failed(b, kk_teardown);
    open_trace(b, p);
    if (!(p->kept = kept_open(b, &p->dev.im, &kernel_mounts)) ||
        kdev_mount(b, &p->dev, "setup: first mount") < 0)
        return bk_setup_failed(b, kk_teardown);
    open_view(b, p);
    p->set_up = 1;
    return 0;
}

static int kk_begin(struct backend *b)
{
    struct kkpriv *p = set_up(b, "begin");
    if (!p || (!b->mounted && kdev_mount(b, &p->dev, "begin: mount") < 0))
        return -1;
    kept_begin(p->kept);
    return bk_open_root(b);
}

/* Stays mounted: that is the mode. */
static int kk_end(struct backend *b)
{
    bk_close_root(b);
    return 0;
}

static int kk_save(struct backend *b, uint64_t id)
{
    struct kkpriv *p = set_up(b, "save");
    return p ? kept_save(p->kept, b, id) : -1;
}

/* Set up, and leaving the mount as it is (a restore, an unmount): the notes of lost writes
 * were made on the path it leaves. */
static struct kkpriv *leaving(struct backend *b, const char *step)
{
    struct kkpriv *p = set_up(b, step);
    if (p && p->lost)
        lw_clear(p->lost);
    return p;
}

static int kk_restore(struct backend *b, uint64_t id)
{
    struct kkpriv *p = leaving(b, "restore");
    return p ? kept_restore(p->kept, b, id) : -1;
}

static void kk_discard(struct backend *b, uint64_t id)
{
    struct kkpriv *p = b->priv;
    if (p && p->set_up)
        kept_discard(p->kept, id);
}

static int kk_export(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen)
{
    struct kkpriv *p = set_up(b, "export");
    if (!p)
        return -1;
    if (!kept_has_image(p->kept, id))
        return bk_err(b, "export", "no image of state %llu: kept mounted (remount = 0), it has "
                      "images of its checkpoints only (every remount_every steps of a search "
                      "path)", (unsigned long long)id);
    return bimage_export(b, &p->dev.im, id, dir, out, outlen);
}

static int kk_can_export(struct backend *b, uint64_t id)
{
    struct kkpriv *p = b->priv;
    return p && p->set_up && kept_has_image(p->kept, id);
}

static void forget_finding(struct backend *b, struct kkpriv *p)
{
    free(p->live);
    free(p->after);
    p->live = p->after = NULL;
    memset(&b->remount, 0, sizeof b->remount);
}

/* Idempotent and safe after a partial setup. */
static void kk_teardown(struct backend *b)
{
    struct kkpriv *p = b->priv;
    if (!p)
        return;
    device_view_close(p->view);
    p->view = NULL;
    write_trace_close(p->trace);
    p->trace = NULL;
    kdev_teardown(b, &p->dev);
    kept_close(p->kept);
    p->kept = NULL;
    lw_free(p->lost);
    p->lost = NULL;
    forget_finding(b, p);
    p->set_up = 0;
}

static uint64_t kk_held_bytes(struct backend *b)
{
    struct kkpriv *p = b->priv;
    return p && p->set_up ? kept_held_bytes(p->kept) : 0;
}

/* The two trees of the checkpoint that differed, and the most telling difference between
 * them, for the engine's class and report. */
static int note_finding(struct backend *b, struct kkpriv *p, const char *diff)
{
    struct state_diff *d = &b->remount.d;
    if (kept_check_listings(p->kept, &p->live, &p->after) < 0)
        return bk_err(b, "read-back", "out of memory for the remount check's listings");
    b->remount.differs = 1;
    b->remount.live = p->live;
    b->remount.after = p->after;
    if (classify_listings(p->live, p->after, d) <= 0) {
        memset(d, 0, sizeof *d);        /* the same listings: the hard-link groups differ */
        snprintf(d->entry, sizeof d->entry, "%.500s", diff);
    }
    return 0;
}

static int kk_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                        FILE *listing, struct tree_index *index)
{
    struct kkpriv *p = b->priv;
    enum kept_check check;
    char diff[700];
    if (b->read_step)
        forget_finding(b, p);
    if (p->trace && kept_trace_off(p->kept)) {     /* no longer trusted: let it go */
        snprintf(p->trace_err, sizeof p->trace_err, "%s", kept_trace_off(p->kept));
        write_trace_close(p->trace);
        p->trace = NULL;
    }
    if (p->trace)
        write_trace_drain(p->trace);    /* its losses the next take reports */
    int n = kept_read_back(p->kept, b, o, out, listing, index, &check, diff, sizeof diff);
    if (n >= 0 && check == KEPT_DIFFERS && note_finding(b, p, diff) < 0)
        return -1;
    return n;
}

/* Where the checkpoints' time went, after "kept"'s own keys (still inside it). */
static void print_checkpoint_parts(const struct kept_counts *k, FILE *json)
{
    fprintf(json, ",\"checkpoint_parts_s\":{");
    for (int i = 0; i < KEPT_CK_PARTS; i++)
        fprintf(json, "%s\"%s\":%.3f", i ? "," : "", kept_checkpoint_parts[i],
                k->checkpoint_parts_s[i]);
    fprintf(json, "}");
}

/* ,"key":"why" when why is not NULL. */
static void print_off(FILE *json, const char *key, const char *why)
{
    char esc[2 * sizeof ((struct backend *)0)->err];
    if (!why)
        return;
    json_escape(why, esc, sizeof esc);
    fprintf(json, ",\"%s\":\"%s\"", key, esc);
}

/* How many checkpoints read a settled fs's view, and, once they no longer do, why. */
static void print_view(const struct kept *k, FILE *json)
{
    fprintf(json, ",\"view_checks\":%llu", (unsigned long long)kept_counts(k)->view_checks);
    print_off(json, "view_off", kept_view_off(k));
}

/* How its checkpoint images were kept (kept_images.h), and why not from the trace, if so. */
static void print_trace(const struct kkpriv *p, FILE *json)
{
    const struct ki_counts *n = kept_image_counts(p->kept);
    fprintf(json, ",\"image_catch_ups\":%llu,\"image_checks\":%llu,\"trace_failures\":%llu,"
            "\"images_dropped\":%llu", (unsigned long long)n->catch_ups,
            (unsigned long long)n->checks, (unsigned long long)n->trace_failures,
            (unsigned long long)n->dropped);
    const char *off = kept_trace_off(p->kept);
    print_off(json, "trace_off", off ? off : p->trace ? NULL : p->trace_err);
}

static void kk_stats(struct backend *b, FILE *json)
{
    struct kkpriv *p = b->priv;
    if (!p || !p->kept)
        return;
    const struct kept_counts *k = kept_counts(p->kept);
    fprintf(json, "\"restore\":\"logical\",\"readback\":\"vfs\",\"replays\":%llu,"
            "\"kept\":{\"remount_checks\":%llu,\"checkpoint_s\":%.3f,\"statfs_misses\":%llu,"
            "\"lost_bytes\":%llu", (unsigned long long)k->replays,
            (unsigned long long)k->remount_checks, k->checkpoint_s,
            (unsigned long long)k->statfs_misses, (unsigned long long)p->lost_bytes);
    print_view(p->kept, json);
    print_trace(p, json);
    print_checkpoint_parts(k, json);
    fputc('}', json);
    lr_print_stats(kept_lr(p->kept), json);
}

static int kk_unmount(struct backend *b)
{
    struct kkpriv *p = leaving(b, "unmount");
    return p ? kept_unmount(p->kept, b) : -1;
}

static void kk_lose_write(struct backend *b, const char *path, uint64_t off, uint64_t len)
{
    struct kkpriv *p = b->priv;
    if (p && !p->lost)
        p->lost = lw_new();
    if (p && p->lost)
        lw_note(p->lost, path, off, len);
}

const struct backend_ops backend_kernel_kept_ops = {
    .setup = kk_setup,
    .begin = kk_begin,
    .end = kk_end,
    .save = kk_save,
    .restore = kk_restore,
    .discard = kk_discard,
    .export_state = kk_export,
    .can_export = kk_can_export,
    .teardown = kk_teardown,
    .held_bytes = kk_held_bytes,
    .read_back = kk_read_back,
    .stats = kk_stats,
    .unmount = kk_unmount,
    .lose_write = kk_lose_write,
};
