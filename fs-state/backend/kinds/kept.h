/* A file system kept mounted across steps (remount = 0): recorded trees restored logically, checkpoint images with a remount check, replays from the newest checkpoint; fuse.c's image-backed daemons and kernel_kept.c's kernel file systems share it. */
#ifndef METIS_KEPT_H
#define METIS_KEPT_H

#include <stdint.h>
#include <stdio.h>
#include "backend/base/backend_types.h"

struct backend_image;
struct lrestore;
struct kept;
struct ki_counts;

/* What the backend type does for it; each returns 0, or -1 with the message in b->err. */
struct kept_ops {
    /* Unmounts b (its root closed first); afterwards b's image holds all the fs wrote. */
    int (*unmount)(struct backend *b, const char *step);
    /* Mounts b from its image; the caller opens the root. */
    int (*mount)(struct backend *b, const char *step);
    /* Optional, at a checkpoint: before the unmount or the settling (mounted, the root open),
     * and between that and the keeping of the image (a test hook finds where a write landed,
     * then takes it out of the image as a device that lost it would). */
    int (*before_unmount)(struct backend *b);
    int (*unmounted)(struct backend *b);
    /* Optional, all four or none: a checkpoint without an unmount. settle makes b's image hold
     * all the fs shows and keeps it so (1: this fs cannot be settled, b->err says why); resume
     * lets the fs go on; view_mount mounts the settled image read-only elsewhere, *rootfd its
     * root (1: it does not mount, b->err says why); view_unmount closes rootfd and unmounts it. */
    int (*settle)(struct backend *b);
    int (*resume)(struct backend *b);
    int (*view_mount)(struct backend *b, int *rootfd);
    int (*view_unmount)(struct backend *b, int rootfd);
    /* Optional: sets written[i] for each block i of the image the fs wrote through its device
     * since the last call (the device quiet), so that a checkpoint reads just those; 1 when it
     * cannot vouch for the set this time: the image is then read whole. With it, nothing but
     * the device writes the image unless the store is told (imgstore.h, kept_images.h). */
    int (*written)(struct backend *b, unsigned char *written);
};

/* What a checkpoint's remount check found: the tree read after the remount against the one
 * read just before it. */
enum kept_check { KEPT_NOT_CHECKED, KEPT_SAME, KEPT_DIFFERS };

/* The parts of a checkpoint's time, in kept_counts's checkpoint_parts_s order: the unmount
 * (of the fs, or of the view), keeping the image, the mount (of the fs, or of the view), the
 * walk, and a viewed checkpoint's settling and resuming of the fs. */
enum { KEPT_CK_UNMOUNT, KEPT_CK_IMAGE, KEPT_CK_MOUNT, KEPT_CK_WALK, KEPT_CK_SETTLE, KEPT_CK_RESUME,
       KEPT_CK_PARTS };
extern const char *const kept_checkpoint_parts[KEPT_CK_PARTS];

struct kept_counts {
    uint64_t remount_checks;    /* checkpoints taken (each a remount or a view) */
    uint64_t view_checks;       /* ... of them by a view of the settled fs's device */
    uint64_t statfs_misses;     /* restores the digest verified but whose free counts were not
                                   the saved ones, replayed instead */
    uint64_t replays;           /* mounts of a checkpoint's image with the operations since */
    double checkpoint_s;        /* seconds the checkpoints took */
    double checkpoint_parts_s[KEPT_CK_PARTS];   /* ... split (kept_checkpoint_parts) */
};

/* For b, image-backed by im (its store), mounted and unmounted by ops: keeps the image as it is
 * now (before the first mount) as the start of replays from the initial state. NULL with
 * b->err set. */
struct kept *kept_open(struct backend *b, struct backend_image *im, const struct kept_ops *ops);
void kept_close(struct kept *k);
/* An operation may follow (b mounted). */
void kept_begin(struct kept *k);
/* The read-back (b->rootfd open): records the tree, and when it is the read-back of a step
 * (b->read_step) remount_every steps down the search path from the last checkpoint (or
 * b->checkpoint_now), takes a checkpoint: unmounts, keeps the image, mounts again and records
 * the tree once more (with the settle ops: settles the fs, keeps the image, records the tree
 * of its read-only view and resumes; where the view's tree differs, the fs is then remounted,
 * so that it holds what its device had, as after a remount). *check says what that found; with KEPT_DIFFERS, diff holds the first
 * difference and kept_check_listings both trees. The digest length, or -1 with b->err (and
 * b->own_failure when the image store failed). */
int kept_read_back(struct kept *k, struct backend *b, const struct tree_opts *o,
                   unsigned char *out, FILE *listing, struct tree_index *index,
                   enum kept_check *check, char *diff, size_t difflen);
/* The listings (malloc'd) of the live tree and of the tree after the remount of the last
 * check; -1 when out of memory. */
int kept_check_listings(struct kept *k, char **live, char **after);
/* Keeps the tree the mount holds (and its free counts, its place on the search path, a
 * checkpoint's image) as state id. Unmounted (kept_unmount), the image as it is becomes the
 * checkpoint of id and the fs is mounted again. */
int kept_save(struct kept *k, struct backend *b, uint64_t id);
/* Brings state id back: logically when the digest, the hard-link groups and the free counts
 * come out as saved, else by a replay from the newest checkpoint on its search path. */
int kept_restore(struct kept *k, struct backend *b, uint64_t id);
/* Unmounts b so that its image may be written (the replayer's import); the next save keeps
 * the image as it then is. */
int kept_unmount(struct kept *k, struct backend *b);
void kept_discard(struct kept *k, uint64_t id);
/* 1 when state id has an image: it is a checkpoint. */
int kept_has_image(struct kept *k, uint64_t id);
uint64_t kept_held_bytes(const struct kept *k);
const struct kept_counts *kept_counts(const struct kept *k);
/* NULL while its checkpoints read a view of the settled fs's device; else why they remount it
 * instead ("" when its kind has no settle ops). */
const char *kept_view_off(const struct kept *k);
/* NULL while images may be caught up from the traced writes (or never were); else why not. */
const char *kept_trace_off(const struct kept *k);
/* How its checkpoint images were kept (kept_images.h). */
const struct ki_counts *kept_image_counts(const struct kept *k);
/* Its logical restore, for summary.json and a backend's own use of the recorded tree. */
struct lrestore *kept_lr(struct kept *k);

#endif
