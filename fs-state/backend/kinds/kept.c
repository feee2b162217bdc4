/* A file system kept mounted across steps: saved states are recorded trees with their free counts and their place on the search path; checkpoints keep images and check what the device holds (the fs settled and its image read back on a view, or remounted). */
#include "backend/kinds/kept.h"
#include "backend/kinds/kept_images.h"
#include "backend/base/common.h"
#include "backend/device/image.h"
#include "backend/device/imgstore.h"
#include "backend/logical/states/logical_states.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <uthash.h>

/* The image right after mkfs, under a key no state id takes: what a replay from the initial
 * state starts from. */
#define FRESH_IMAGE_KEY (UINT64_MAX - 3)
/* A checkpoint's image until the save that follows its read-back names its state. */
#define CHECKPOINT_KEY (UINT64_MAX - 4)
/* Steps since a checkpoint when none is known: the next step's read-back takes one. */
#define SINCE_UNKNOWN (UINT64_MAX / 2)

struct kept_state {
    UT_hash_handle hh;
    uint64_t id;
    int has_counts;             /* the free blocks and inodes statfs gave in that state */
    fsblkcnt_t bfree;
    fsfilcnt_t ffree;
    uint64_t since;             /* steps on its search path since the last checkpoint */
    uint64_t parent;            /* the state it was made from, if has_parent */
    int has_parent;
    uint64_t ck;                /* checkpoints on its search path, itself included */
    uint64_t older;             /* a checkpoint: the next older one on its path whose image is
                                   kept, if has_older */
    int has_older;
};

struct kept {
    const struct kept_ops *ops;
    struct backend_image *im;
    struct lrestore *lr;
    struct kept_state *states;
    uint64_t live;              /* the state last saved or restored: the next one's parent */
    int live_known;
    uint64_t since;             /* steps since a checkpoint on the live state's search path */
    int checkpoint_pending;     /* an image under CHECKPOINT_KEY waits for its state's save */
    int loaded;                 /* unmounted by kept_unmount: the image is what was loaded */
    int remount_only;           /* no viewed checkpoints: no settle ops, or one failed */
    char view_off[sizeof ((struct backend *)0)->err];       /* ... why it failed */
    struct statvfs sv;          /* statfs at the last read-back */
    int sv_valid;
    struct kept_images *images; /* the checkpoints' images, whole or from the traced writes */
    struct kept_counts n;
};

struct kept *kept_open(struct backend *b, struct backend_image *im, const struct kept_ops *ops)
{
    struct kept *k = calloc(1, sizeof *k);
    if (!k || !(k->lr = lr_open(b))) {
        free(k);
        bk_err(b, "setup", "out of memory");
        return NULL;
    }
    k->ops = ops;
    k->remount_only = !ops->settle;
    if (!(k->images = ki_open(im, ops->written))) {
        kept_close(k);
        bk_err(b, "setup", "out of memory");
        return NULL;
    }
    k->im = im;
    k->since = SINCE_UNKNOWN;
    if (bimage_save(b, im, FRESH_IMAGE_KEY) < 0) {
        kept_close(k);
        return NULL;
    }
    return k;
}

static struct kept_state *find_state(struct kept *k, uint64_t id)
{
    struct kept_state *s;
    HASH_FIND(hh, k->states, &id, sizeof id, s);
    return s;
}

static void forget(struct kept *k, struct kept_state *s)
{
    HASH_DEL(k->states, s);
    free(s);
}

void kept_close(struct kept *k)
{
    struct kept_state *s, *tmp;
    if (!k)
        return;
    HASH_ITER(hh, k->states, s, tmp)
        forget(k, s);
    lr_close(k->lr);
    ki_close(k->images);
    free(k);
}

/* An operation may follow: a checkpoint taken since the last save no longer names the live
 * state. */
static void drop_checkpoint(struct kept *k)
{
    if (k->checkpoint_pending)
        imgstore_discard(k->im->store, CHECKPOINT_KEY);
    k->checkpoint_pending = 0;
}

void kept_begin(struct kept *k)
{
    lr_begin(k->lr);
    drop_checkpoint(k);
    ki_fs_may_write(k->images);
}

const char *const kept_checkpoint_parts[KEPT_CK_PARTS] = { "unmount", "image", "mount", "walk",
                                                            "settle", "resume" };

/* Adds the time since *t to the checkpoint's part and moves *t on: where a checkpoint's time
 * goes is what decides how to make it cheaper (summary.json, README "Performance"). */
static void ck_part(struct kept *k, int part, double *t)
{
    double now = now_seconds();
    k->n.checkpoint_parts_s[part] += now - *t;
    *t = now;
}

/* A checkpoint: the image the fs leaves when unmounted is kept, and the tree read again on a
 * fresh mount must be the live one, else what the fs wrote is not what it showed (or the
 * kernel showed stale caches). */
static int remount_check(struct kept *k, struct backend *b, enum kept_check *check, char *diff,
                         size_t difflen)
{
    double t = now_seconds();
    if ((k->ops->before_unmount && k->ops->before_unmount(b) < 0) ||
        k->ops->unmount(b, "read-back: checkpoint") < 0 ||
        (k->ops->unmounted && k->ops->unmounted(b) < 0))
        return -1;
    ck_part(k, KEPT_CK_UNMOUNT, &t);
    ki_fs_may_write(k->images);
    if (ki_keep(k->images, b, CHECKPOINT_KEY) < 0)
        return -1;
    k->checkpoint_pending = 1;
    ck_part(k, KEPT_CK_IMAGE, &t);
    if (k->ops->mount(b, "read-back: checkpoint") < 0 || bk_open_root(b) < 0)
        return -1;
    ki_fs_may_write(k->images);
    ck_part(k, KEPT_CK_MOUNT, &t);
    int same = lr_recheck(k->lr, b, diff, difflen);
    ck_part(k, KEPT_CK_WALK, &t);
    if (same < 0)
        return -1;
    *check = same ? KEPT_SAME : KEPT_DIFFERS;
    if (!same)
        drop_checkpoint(k);     /* the image is not the state the step made */
    return 0;
}

/* The settled fs's image kept, its read-only view mounted and its tree recorded: 1 the same
 * as the live one, 0 not, 2 when the view does not mount, -1 on failure; *rootfd the view's. */
static int read_view(struct kept *k, struct backend *b, int *rootfd, char *diff,
                       size_t difflen, double *t)
{
    if (k->ops->unmounted && k->ops->unmounted(b) < 0)
        return -1;
    if (ki_keep(k->images, b, CHECKPOINT_KEY) < 0)
        return -1;
    k->checkpoint_pending = 1;
    ck_part(k, KEPT_CK_IMAGE, t);
    int rc = k->ops->view_mount(b, rootfd);
    if (rc != 0)
        return rc < 0 ? -1 : 2;
    ck_part(k, KEPT_CK_MOUNT, t);
    int same = lr_recheck_at(k->lr, b, *rootfd, "read-back of the settled device", diff,
                             difflen);
    ck_part(k, KEPT_CK_WALK, t);
    return same;
}

/* The fs that failed the check is mounted again: it then holds what its device had, as after
 * a remount check, and the tree on it is read again before a restore trusts it. */
static int hold_the_device(struct kept *k, struct backend *b)
{
    drop_checkpoint(k);     /* the image is not the state the step made */
    if (k->ops->unmount(b, "read-back: checkpoint") < 0 ||
        k->ops->mount(b, "read-back: checkpoint") < 0 || bk_open_root(b) < 0)
        return -1;
    ki_fs_may_write(k->images);
    lr_begin(k->lr);
    return 0;
}

/* A checkpoint without the unmount: the fs settled (its image then holds all it shows, and
 * nothing writes it), the image kept, and the tree read from a read-only mount of that image
 * elsewhere must be the live one. What it checks is what remount_check does, for less: no
 * unmount and mount of the fs itself, whose set-up and tear-down are most of a checkpoint
 * (README "Performance"). 1 when this fs cannot have it: a remount instead, then and from then
 * on (the view's loop device and mount: device_view.h). */
static int view_check(struct kept *k, struct backend *b, enum kept_check *check, char *diff,
                        size_t difflen)
{
    double t = now_seconds();
    int rootfd = -1, rc;
    if (k->ops->before_unmount && k->ops->before_unmount(b) < 0)
        return -1;
    if ((rc = k->ops->settle(b)) != 0)
        return rc;
    ck_part(k, KEPT_CK_SETTLE, &t);
    int same = read_view(k, b, &rootfd, diff, difflen, &t);
    if (rootfd >= 0 && k->ops->view_unmount(b, rootfd) < 0)
        same = -1;
    ck_part(k, KEPT_CK_UNMOUNT, &t);
    if (k->ops->resume(b) < 0)
        same = -1;
    ki_fs_may_write(k->images);
    ck_part(k, KEPT_CK_RESUME, &t);
    if (same < 0 || same == 2)
        return same < 0 ? -1 : 1;
    k->n.view_checks++;
    *check = same ? KEPT_SAME : KEPT_DIFFERS;
    return same ? 0 : hold_the_device(k, b);
}

/* A checkpoint, on a view of the settled fs's device where it can be; a remount where not. */
static int checkpoint(struct kept *k, struct backend *b, enum kept_check *check, char *diff,
                      size_t difflen)
{
    k->n.remount_checks++;
    if (!k->remount_only) {
        int rc = view_check(k, b, check, diff, difflen);
        if (rc <= 0)
            return rc;
        k->remount_only = 1;
        snprintf(k->view_off, sizeof k->view_off, "%s", b->err);
    }
    return remount_check(k, b, check, diff, difflen);
}

int kept_read_back(struct kept *k, struct backend *b, const struct tree_opts *o,
                   unsigned char *out, FILE *listing, struct tree_index *index,
                   enum kept_check *check, char *diff, size_t difflen)
{
    *check = KEPT_NOT_CHECKED;
    int n = lr_read_back(k->lr, b, o, out, listing, index);
    if (n < 0)
        return -1;
    /* A report reads a state again for its listings: no step down the search path. */
    uint64_t every = (uint64_t)b->cfg->remount_every;
    if (b->read_step)
        k->since = k->since >= SINCE_UNKNOWN ? SINCE_UNKNOWN : k->since + 1;
    if (b->read_step && ((every && k->since >= every) || b->checkpoint_now)) {
        double t = now_seconds();
        int rc = checkpoint(k, b, check, diff, difflen);
        k->n.checkpoint_s += now_seconds() - t;
        if (rc < 0)
            return -1;
        k->since = 0;
    }
    /* After the checkpoint: a remount may free what the fs held in memory only (xfs trims
     * blocks allocated past a file's end), and the next steps meet the remounted fs. */
    k->sv_valid = fstatvfs(b->rootfd, &k->sv) == 0;
    return n;
}

int kept_check_listings(struct kept *k, char **live, char **after)
{
    return lr_recheck_listings(k->lr, live, after);
}

static void set_live(struct kept *k, uint64_t id, uint64_t since)
{
    k->live = id;
    k->live_known = 1;
    k->since = since;
}

/* An image the replayer loaded (kept_unmount, then the file written) is the state: kept as its
 * checkpoint before the mount changes the image. */
static int save_loaded(struct kept *k, struct backend *b, uint64_t id)
{
    ki_file_written(k->images);
    if (bimage_save(b, k->im, CHECKPOINT_KEY) < 0 || k->ops->mount(b, "save: mount") < 0)
        return -1;
    k->checkpoint_pending = 1;
    k->since = 0;
    k->loaded = 0;
    lr_begin(k->lr);
    return 0;
}

static struct kept_state *state_of(struct kept *k, struct backend *b, uint64_t id, int *again)
{
    struct kept_state *s = find_state(k, id);
    *again = s != NULL;
    if (s)
        return s;
    if (!(s = calloc(1, sizeof *s))) {
        bk_err(b, "save", "out of memory");
        return NULL;
    }
    s->id = id;
    HASH_ADD(hh, k->states, id, sizeof s->id, s);
    return s;
}

/* Keeps the image of checkpoint number c of a path whose newest is d checkpoints further: all
 * within 4 of the newest, then about 2 in each doubling of the distance (those whose number
 * is a multiple of the largest power of two up to half of it). Every xfs mount writes ~2 MB
 * of log: kept for every checkpoint on SPIN's stack, they took 137 KB a state (1.4 GB at
 * depth 10,000); a replay from a thinned-out stretch only starts further up. */
static int keep_checkpoint(uint64_t c, uint64_t d)
{
    uint64_t step = 1;
    while (step * 2 <= d / 2)
        step *= 2;
    return c % step == 0;
}

/* A new checkpoint s was kept: the older images of its path that keep_checkpoint no longer
 * wants go, and the chain of older checkpoints skips them. */
static void thin_checkpoints(struct kept *k, struct kept_state *s)
{
    struct kept_state *below = s;
    while (below->has_older) {
        struct kept_state *c = find_state(k, below->older);
        if (!c) {
            below->has_older = 0;
            break;
        }
        if (keep_checkpoint(c->ck - 1, s->ck - c->ck)) {
            below = c;
            continue;
        }
        imgstore_discard(k->im->store, c->id);
        below->older = c->older;
        below->has_older = c->has_older;
    }
}

/* Its place among the checkpoints of its path: their count, and (a checkpoint) the next older
 * one (thin_checkpoints skips it if its image went since). */
static void place_checkpoint(struct kept *k, struct kept_state *s, int checkpoint)
{
    struct kept_state *p = s->has_parent ? find_state(k, s->parent) : NULL;
    s->ck = (p ? p->ck : 0) + (checkpoint ? 1 : 0);
    if (!checkpoint)
        return;
    while (p && p->since != 0)     /* at most remount_every states up */
        p = p->has_parent && p->parent != p->id ? find_state(k, p->parent) : NULL;
    s->older = p ? p->id : 0;
    s->has_older = p != NULL;
}

int kept_save(struct kept *k, struct backend *b, uint64_t id)
{
    int again;
    if (!b->mounted && k->loaded && save_loaded(k, b, id) < 0)
        return -1;
    struct kept_state *s = state_of(k, b, id, &again);
    if (!s || lr_save(k->lr, b, id) < 0)
        return -1;
    s->has_counts = k->sv_valid;
    s->bfree = k->sv.f_bfree;
    s->ffree = k->sv.f_ffree;
    s->since = k->since;
    /* A step re-run on this fs (a gatekeeper that refused first) saves its state again: it
     * keeps the place on the path it was given the first time. */
    if (!again) {
        s->parent = k->live;
        s->has_parent = k->live_known;
    }
    place_checkpoint(k, s, k->checkpoint_pending);
    if (k->checkpoint_pending && imgstore_rekey(k->im->store, CHECKPOINT_KEY, id) < 0)
        return bk_err(b, "save", "state %llu: keeping its checkpoint image: %s",
                      (unsigned long long)id, strerror(errno));
    if (k->checkpoint_pending)
        ki_named(k->images, id);
    if (k->checkpoint_pending)
        thin_checkpoints(k, s);
    k->checkpoint_pending = 0;
    set_live(k, id, s->since);
    return 0;
}

/* The newest checkpoint on the search path to id (id itself, if it is one), whose image a
 * replay to id starts from; BACKEND_REPLAY_INITIAL if there is none. */
static uint64_t nearest_checkpoint(struct kept *k, uint64_t id)
{
    struct kept_state *s = find_state(k, id);
    while (s && !imgstore_has(k->im->store, s->id))
        s = s->has_parent && s->parent != s->id ? find_state(k, s->parent) : NULL;
    return s ? s->id : BACKEND_REPLAY_INITIAL;
}

/* The image of the newest checkpoint on the way to id, mounted, and the operations since. */
static int replay(void *ctx, struct backend *b, uint64_t id)
{
    struct kept *k = ctx;
    if (!find_state(k, id))
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (!b->replay_fn)
        return bk_err(b, "restore", "state %llu: the logical restore missed and nothing "
                      "replays", (unsigned long long)id);
    uint64_t from = nearest_checkpoint(k, id);
    if (b->mounted && k->ops->unmount(b, "restore: unmount") < 0)
        return -1;
    ki_file_written(k->images);     /* the restore compares the whole image, as it always has */
    if (bimage_restore(b, k->im, from == BACKEND_REPLAY_INITIAL ? FRESH_IMAGE_KEY : from) < 0 ||
        k->ops->mount(b, "restore: mount a checkpoint") < 0)
        return -1;
    k->n.replays++;
    return bk_replay(b, from, id);
}

/* A free count as saved, or, saved and now, at least ample: where the pool could never take
 * all there is, no operation meets ENOSPC, so how much more there is changes nothing. */
static int same_or_ample(uint64_t now, uint64_t saved, uint64_t ample)
{
    return now == saved || (ample && now >= ample && saved >= ample);
}

/* Free blocks and inodes as saved: a logical restore brings the tree back, not always the
 * allocation (xfs: its free inodes moved by 1 or 2 in a restore in three), and ENOSPC must
 * fall where it did. */
static int counts_as_saved(struct backend *b, const struct kept_state *s)
{
    struct statvfs sv;
    if (!s->has_counts)
        return 1;
    if (statvfs(b->mnt, &sv) < 0)
        return 0;
    uint64_t ample_blocks = sv.f_frsize ? b->ample_bytes / sv.f_frsize : 0;
    return same_or_ample(sv.f_bfree, s->bfree, ample_blocks) &&
           same_or_ample(sv.f_ffree, s->ffree, b->ample_inodes);
}

int kept_restore(struct kept *k, struct backend *b, uint64_t id)
{
    struct kept_state *s = find_state(k, id);
    b->restore_unreachable = 0;
    if (!s)
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (!b->mounted && k->ops->mount(b, "restore: mount") < 0)
        return -1;
    k->loaded = 0;
    if (lr_restore(k->lr, b, id, replay, k) < 0)
        return -1;
    if (!counts_as_saved(b, s)) {
        k->n.statfs_misses++;
        if (replay(k, b, id) < 0 || lr_replayed(k->lr, b, id) < 0)
            return -1;
    }
    drop_checkpoint(k);
    set_live(k, id, s->since);
    return 0;
}

int kept_unmount(struct kept *k, struct backend *b)
{
    drop_checkpoint(k);
    lr_begin(k->lr);
    if (b->mounted && k->ops->unmount(b, "unmount for an import") < 0)
        return -1;
    ki_file_written(k->images);     /* the replayer writes the image next */
    k->loaded = 1;
    return 0;
}

void kept_discard(struct kept *k, uint64_t id)
{
    struct kept_state *s = find_state(k, id);
    imgstore_discard(k->im->store, id);
    lr_discard(k->lr, id);
    if (s)
        forget(k, s);
}

int kept_has_image(struct kept *k, uint64_t id)
{
    return imgstore_has(k->im->store, id);
}

uint64_t kept_held_bytes(const struct kept *k)
{
    return lr_held_bytes(k->lr) + imgstore_bytes(k->im->store);
}

const struct kept_counts *kept_counts(const struct kept *k)
{
    return &k->n;
}

const char *kept_trace_off(const struct kept *k)
{
    return ki_trace_off(k->images);
}

const struct ki_counts *kept_image_counts(const struct kept *k)
{
    return ki_counts(k->images);
}

const char *kept_view_off(const struct kept *k)
{
    return k->remount_only ? k->view_off : NULL;
}

struct lrestore *kept_lr(struct kept *k)
{
    return k->lr;
}
