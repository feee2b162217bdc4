/* Checkpoints of a {dir}-backed FUSE fs: its backing directories kept every remount_every steps it runs, put back for a replay, exported and imported. */
#ifndef METIS_DIRCKPT_H
#define METIS_DIRCKPT_H

#include <stdint.h>
#include <stdio.h>
#include "backend/base/backend_types.h"
#include "backend/logical/states/logical_states.h"

/*
 * Such a fs keeps its state in directories on a run-owned tmpfs (scratch.h): with its daemon
 * unmounted they are the whole state. At a checkpoint the fs is unmounted, the tmpfs recorded
 * (fstree.h: shared entries, deduplicated blocks), mounted again, and the tree read once more
 * must be the live one ("remount check", as for a kept image). A replay to a state then starts
 * from the newest checkpoint on its path, and the replayer loads an exported one.
 * Every function returning int gives 0 or -1 with the message in b->err.
 */
struct dirckpt;

/* What the fs does around a checkpoint (fuse.c): unmount; mount and open b->rootfd. */
struct dck_mount {
    int (*unmount)(struct backend *b);
    int (*mount)(struct backend *b);
};

/* For the tmpfs at root; every: steps between checkpoints (0: none are taken, loading them
 * still works). NULL when out of memory. */
struct dirckpt *dck_open(const char *root, uint64_t every);
void dck_close(struct dirckpt *d);
/* The fs was mounted afresh and replayed to a state: its history restarts there, and so does
 * the count of steps to the next checkpoint. */
void dck_fresh(struct dirckpt *d);
/* An operation may follow: a checkpoint taken since the last save no longer names it. */
void dck_begin(struct dirckpt *d);
/* After the read-back of a step (lr has recorded the live tree): a checkpoint if the fs ran
 * every steps since its last one (counted in time, not down the path: a replay of a class
 * redoes what the fs ran since it last mounted kept directories, restores included). */
int dck_after_read_back(struct dirckpt *d, struct backend *b, struct lrestore *lr,
                        const struct dck_mount *m);
/* The state just read back is saved as id: 1 if a checkpoint was taken of it (the fs was
 * mounted again on its directories), else 0, or -1. Restored: the mount holds id. */
int dck_saved(struct dirckpt *d, struct backend *b, uint64_t id);
void dck_restored(struct dirckpt *d, uint64_t id);
void dck_discard(struct dirckpt *d, uint64_t id);
/* The newest checkpoint on the search path to id (id itself if it is one), or
 * BACKEND_REPLAY_INITIAL when there is none. */
uint64_t dck_nearest(struct dirckpt *d, uint64_t id);
/* Fills the tmpfs, made empty by the caller, with checkpoint key. */
int dck_put_back(struct dirckpt *d, struct backend *b, uint64_t key);
int dck_has(struct dirckpt *d, uint64_t id);
/* Checkpoint id as the directory dir/NAME-ID.dirs (its path in out). */
int dck_export(struct dirckpt *d, struct backend *b, uint64_t id, const char *dir, char *out,
               size_t outlen);
/* An exported directory into the empty tmpfs, as checkpoint id of the live state. */
int dck_import(struct dirckpt *d, struct backend *b, const char *path, uint64_t id);
uint64_t dck_held_bytes(const struct dirckpt *d);
/* summary.json's members (",\"dir_checkpoints\":{...}"). */
void dck_stats(const struct dirckpt *d, FILE *json);

#endif
