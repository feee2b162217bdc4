/* Kernel file systems without a device: tmpfs mounted with mount(2), overlay over run-owned layers on a scratch tmpfs; saved and restored logically. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/logical/states/logical_states.h"
#include "backend/base/scratch.h"
#include "engine/vocab/fsinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

/*
 * No mkfs, no loop device, no image: the state is what the mount holds, so saved states are
 * recorded trees and a restore applies the difference through syscalls (logical_states.h),
 * replaying the search path on a fresh mount when that misses.
 *   tmpfs    mounted on the mount point (size=, nr_inodes= from size and inodes); its data
 *            lives only while it is mounted, so it stays mounted (config.c forces remount 0).
 *   overlay  lower, upper and work directories on a scratch tmpfs of the fs's size and inodes
 *            beside the mount point (scratch.h); the lower layer gets the initial state's
 *            entries before the first mount when populate_lower is set. It is unmounted and
 *            mounted again around every step (remount, default 1): the layers stay, so each
 *            step meets overlay's lookup on a fresh mount.
 * A fresh mount (set-up, or a replay) starts from empty layers: a new tmpfs.
 */
struct dpriv {
    int overlay;                /* else tmpfs */
    struct scratch layers;      /* overlay: lower, upper, work */
    unsigned long mflags;
    char user_data[256];        /* mount_opts that are not mount(2) flags */
    char data[4096];            /* mount(2)'s data: one page at most */
    struct lrestore *lr;
    uint64_t replays;           /* fresh mounts the search path was replayed on */
    uint64_t fresh_restores;    /* ... of them, returns to the initial state (fresh_initial) */
    int set_up;
};

static struct dpriv *dp(struct backend *b)
{
    if (!b->priv)
        b->priv = calloc(1, sizeof(struct dpriv));
    return b->priv;
}

static uint64_t d_size(const struct backend *b)
{
    return b->cfg->size ? b->cfg->size : fs_format_default_size(b->cfg->fstype);
}

/* mode=0755 first, so a mode= of mount_opts wins: mkfs and RefFS make 0755 roots, tmpfs 1777. */
static int tmpfs_data(struct backend *b, struct dpriv *p)
{
    size_t n = (size_t)snprintf(p->data, sizeof p->data, "mode=0755,size=%llu",
                                (unsigned long long)d_size(b));
    if (b->cfg->inodes)
        n += (size_t)snprintf(p->data + n, sizeof p->data - n, ",nr_inodes=%llu",
                              (unsigned long long)b->cfg->inodes);
    if (p->user_data[0])
        snprintf(p->data + n, sizeof p->data - n, ",%s", p->user_data);
    return 0;
}

/* Empty lower, upper and work directories on a fresh scratch tmpfs; the lower one filled. */
static int overlay_layers(struct backend *b, struct dpriv *p)
{
    char lower[1100], upper[1100], work[1100];
    int rc = p->layers.path[0] ? scratch_fresh(b, &p->layers)
                               : scratch_mount(b, &p->layers, "layers", d_size(b), b->cfg->inodes);
    if (rc < 0 || scratch_subdir(b, &p->layers, "lower", lower, sizeof lower) < 0 ||
        scratch_subdir(b, &p->layers, "upper", upper, sizeof upper) < 0 ||
        scratch_subdir(b, &p->layers, "work", work, sizeof work) < 0)
        return -1;
    if (b->cfg->populate_lower && bk_populate_dir(b, lower) < 0)
        return -1;
    int n = snprintf(p->data, sizeof p->data, "lowerdir=%s,upperdir=%s,workdir=%s%s%s", lower,
                     upper, work, p->user_data[0] ? "," : "", p->user_data);
    if (n >= (int)sizeof p->data)
        return bk_err(b, "setup", "overlay's mount options exceed a page: a shorter work "
                      "directory path?");
    return 0;
}

static int d_mount(struct backend *b, struct dpriv *p, const char *step)
{
    if (mount("metis", b->mnt, b->cfg->fstype, p->mflags, p->data) < 0)
        return bk_err(b, step, "mount -t %s -o '%s' on %s: %s%s", b->cfg->fstype, p->data,
                      b->mnt, strerror(errno),
                      errno == EINVAL ? " (bad mount_opts? see dmesg)" : "");
    b->mounted = 1;
    return 0;
}

static int d_umount(struct backend *b, const char *step)
{
    bk_close_root(b);
    if (bk_unmount(b->mnt, 0.2) < 0)
        return bk_err(b, step, "umount %s: still busy (detached lazily)", b->mnt);
    b->mounted = 0;
    return 0;
}

/* Unmounts whatever is there and mounts the fs anew, empty (but for a populated lower layer). */
static int d_fresh(struct backend *b, struct dpriv *p, const char *step)
{
    if ((b->mounted || bk_is_mounted(b->mnt)) && d_umount(b, step) < 0)
        return -1;
    if ((p->overlay ? overlay_layers(b, p) : tmpfs_data(b, p)) < 0)
        return -1;
    return d_mount(b, p, step);
}

static void d_teardown(struct backend *b);

static int d_setup_steps(struct backend *b, struct dpriv *p)
{
    p->overlay = strcmp(b->cfg->fstype, "overlay") == 0;
    if (bk_mount_opts(b->cfg->mount_opts, &p->mflags, p->user_data, sizeof p->user_data) < 0)
        return bk_err(b, "setup", "mount_opts too long");
    if (bk_make_mnt(b) < 0 || d_fresh(b, p, "setup: first mount") < 0)
        return -1;
    if (!(p->lr = lr_open(b)))
        return bk_err(b, "setup", "out of memory");
    /* A target's history is replayed on every fs: this one is brought back by its own calls,
     * not the target's, which do not undo what it did alone (a step the target refused). */
    if (b->record_history)
        lr_journal(p->lr, &b->history);
    return 0;
}

static int d_setup(struct backend *b)
{
    struct dpriv *p = dp(b);
    if (!p)
        return bk_err(b, "setup", "out of memory");
    if (p->set_up)
        return bk_err(b, "setup", "already set up");
    if (d_setup_steps(b, p) == 0) {
        p->set_up = 1;
        return 0;
    }
    return bk_setup_failed(b, d_teardown);
}

static struct dpriv *set_up(struct backend *b, const char *step)
{
    struct dpriv *p = b->priv;
    if (!p || !p->set_up) {
        bk_err(b, step, "not set up");
        return NULL;
    }
    return p;
}

static int d_begin(struct backend *b)
{
    struct dpriv *p = set_up(b, "begin");
    if (!p || (!b->mounted && d_mount(b, p, "begin: mount") < 0))
        return -1;
    lr_begin(p->lr);
    return bk_open_root(b);
}

/* A tmpfs is never unmounted here, whatever remount says: its data would go. */
static int d_end(struct backend *b)
{
    struct dpriv *p = b->priv;
    bk_close_root(b);
    if (p && p->overlay && b->cfg->remount && b->mounted)
        return d_umount(b, "end");
    return 0;
}

/* The read-back of the step recorded the tree: no mount needed unless something came since. */
static int d_save(struct backend *b, uint64_t id)
{
    struct dpriv *p = set_up(b, "save");
    if (!p || (!b->mounted && !lr_current(p->lr) && d_mount(b, p, "save: mount") < 0))
        return -1;
    return lr_save(p->lr, b, id);
}

/* A logical restore that missed: a fresh mount, and the engine replays the search path. */
static int d_replay(void *ctx, struct backend *b, uint64_t id)
{
    (void)ctx;
    struct dpriv *p = b->priv;
    if (!b->replay_fn)
        return bk_err(b, "restore", "state %llu: the logical restore missed and nothing "
                      "replays", (unsigned long long)id);
    if (d_fresh(b, p, "restore: fresh mount") < 0)
        return -1;
    p->replays++;
    return bk_replay(b, BACKEND_REPLAY_INITIAL, id);
}

/* A logical restore brings the tree back, not the layer that held it: an entry it remakes is
 * in the upper layer. The initial state (id 0) of an overlay with a populated lower layer comes
 * back as fresh layers instead (cheap: fillers, no operations), so every search path from it
 * meets the lower entries again and their copy-up. */
static int fresh_initial(struct backend *b, struct dpriv *p, uint64_t id)
{
    if (!p->overlay || !b->populated || id != 0 || lr_holds(p->lr, id))
        return 0;
    if (d_replay(NULL, b, id) < 0)
        return -1;
    p->fresh_restores++;
    lr_begin(p->lr);            /* the next read-back records what the fresh layers hold */
    return 1;
}

/* The difference is applied through the mount: an overlay unmounted by end comes back first. */
static int d_restore(struct backend *b, uint64_t id)
{
    struct dpriv *p = set_up(b, "restore");
    if (!p)
        return -1;
    int fresh = fresh_initial(b, p, id);
    if (fresh != 0)
        return fresh < 0 ? -1 : 0;
    if (!b->mounted && d_mount(b, p, "restore: mount") < 0)
        return -1;
    return lr_restore(p->lr, b, id, d_replay, NULL);
}

static void d_discard(struct backend *b, uint64_t id)
{
    struct dpriv *p = b->priv;
    if (p && p->lr)
        lr_discard(p->lr, id);
}

/* A tmpfs's saved state is a recorded tree: written out as a directory (treedir.h), which
 * the replayer loads back. An overlay's is not: what it holds depends on which layer has an
 * entry, which the tree does not say. */
static int d_export(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen)
{
    struct dpriv *p = set_up(b, "export");
    if (!p)
        return -1;
    if (p->overlay)
        return bk_err(b, "export", "no image: an overlay's state is its layers (restored "
                      "logically)");
    if (snprintf(out, outlen, "%s/%s-%llu.tree", dir, b->cfg->name, (unsigned long long)id) >=
        (int)outlen)
        return bk_err(b, "export", "path too long under %s", dir);
    return lr_export(p->lr, b, id, out);
}

static int d_can_export(struct backend *b, uint64_t id)
{
    struct dpriv *p = b->priv;
    return p && p->set_up && !p->overlay && lr_has(p->lr, id);
}

static int d_import(struct backend *b, const char *file, uint64_t id)
{
    struct dpriv *p = set_up(b, "import");
    if (!p)
        return -1;
    if (p->overlay)
        return bk_err(b, "import", "an overlay loads no exported state");
    return lr_import(p->lr, b, file, id);
}

/* Idempotent and safe after a partial setup. */
static void d_teardown(struct backend *b)
{
    struct dpriv *p = b->priv;
    if (!p)
        return;
    bk_close_root(b);
    if (b->mounted || bk_is_mounted(b->mnt))
        bk_unmount(b->mnt, 2.0);
    b->mounted = 0;
    scratch_unmount(&p->layers);
    lr_close(p->lr);
    p->lr = NULL;
    p->set_up = 0;
    bk_remove_mnt(b);
}

static uint64_t d_held_bytes(struct backend *b)
{
    struct dpriv *p = b->priv;
    return p && p->lr ? lr_held_bytes(p->lr) : 0;
}

static int d_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                       FILE *listing, struct tree_index *index)
{
    struct dpriv *p = b->priv;
    return p && p->lr ? lr_read_back(p->lr, b, o, out, listing, index)
                      : bk_walk(b, o, out, listing, index);
}

static void d_stats(struct backend *b, FILE *json)
{
    struct dpriv *p = b->priv;
    if (!p)
        return;
    fprintf(json, "\"restore\":\"logical\",\"readback\":\"vfs\",\"replays\":%llu,"
            "\"fresh_initial\":%llu", (unsigned long long)p->replays,
            (unsigned long long)p->fresh_restores);
    if (p->lr)
        lr_print_stats(p->lr, json);
}

const struct backend_ops backend_devless_ops = {
    .setup = d_setup,
    .begin = d_begin,
    .end = d_end,
    .save = d_save,
    .restore = d_restore,
    .discard = d_discard,
    .export_state = d_export,
    .can_export = d_can_export,
    .import_state = d_import,
    .teardown = d_teardown,
    .held_bytes = d_held_bytes,
    .read_back = d_read_back,
    .stats = d_stats,
};
