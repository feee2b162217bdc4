/* Logical restore for a backend that keeps no snapshots: the recorded tree of every saved state, verified restores, replay as the fallback. */
#ifndef METIS_LRESTORE_H
#define METIS_LRESTORE_H

#include <stdint.h>
#include <stdio.h>
#include "backend/base/backend_types.h"
#include "lib/text/buf.h"

struct lrestore;

/* What the summary reports. */
struct lr_counts {
    uint64_t logical;           /* restores tried logically */
    uint64_t verified;          /* ... whose read-back had the saved state's digest */
    uint64_t fallbacks;         /* ... that did not, and were replayed instead */
    uint64_t unchanged;         /* verified ones that found the mount in the state already */
    uint64_t removed, created, rewritten, meta;   /* the calls they made */
};

/* Brings the mount fresh to state id (unmount, mount, replay the search path); 0, or -1 with
 * the message in b->err. ctx is lr_restore's. */
typedef int (*lr_replay_fn)(void *ctx, struct backend *b, uint64_t id);

/* For b's file system (mounted at b->mnt for as long as it is used); NULL when out of memory. */
struct lrestore *lr_open(const struct backend *b);
void lr_close(struct lrestore *lr);
/* From now on every restore's calls are appended to journal (logical_apply.h's lines). */
void lr_journal(struct lrestore *lr, struct buf *journal);
/* The mount, just brought to saved state id by a replay of the caller's, recorded and held to
 * it: 0 if it is that state, else -1 (b->restore_unreachable set when it is another). */
int lr_replayed(struct lrestore *lr, struct backend *b, uint64_t id);
/* An operation may follow: what was recorded of the mount no longer holds. */
void lr_begin(struct lrestore *lr);
/* The read-back (b->rootfd open): records the tree and gives its digest with options o. */
int lr_read_back(struct lrestore *lr, struct backend *b, const struct tree_opts *o,
                 unsigned char *out, FILE *listing, struct tree_index *index);
/* Keeps the tree the mount holds as state id (recording it if no read-back did). */
int lr_save(struct lrestore *lr, struct backend *b, uint64_t id);
/* Makes the mount state id by the difference from what it holds; when the result's digest is
 * not the saved one, by replay; when that misses too, -1 naming the first differing entry. */
int lr_restore(struct lrestore *lr, struct backend *b, uint64_t id, lr_replay_fn replay,
               void *ctx);
void lr_discard(struct lrestore *lr, uint64_t id);
uint64_t lr_held_bytes(const struct lrestore *lr);
/* 1 when the tree last recorded is what the mount holds (no operation since): save needs no
 * mount then. */
int lr_current(const struct lrestore *lr);
/* 1 when the mount is known to hold saved state id (read back since its last change). */
int lr_holds(struct lrestore *lr, uint64_t id);
/* summary.json's members on these restores (",\"logical_restores\":N,..."). */
void lr_print_stats(const struct lrestore *lr, FILE *json);
const struct lr_counts *lr_counts(const struct lrestore *lr);
/* Drops the kernel's cached pages of every name of a hard-linked file in the tree last
 * recorded (a path-based daemon caches each name apart); returns how many. */
int lr_drop_link_caches(struct lrestore *lr, int rootfd);
/* Saved state id as the new directory path (treedir.h), for the replayer. */
int lr_export(struct lrestore *lr, struct backend *b, uint64_t id, const char *path);
/* 1 if state id is saved (so it can be exported). */
int lr_has(struct lrestore *lr, uint64_t id);
/* Makes the mount (b->mnt) hold the tree of the exported directory path, verified as a restore
 * is, and keeps it as state id; the root's excluded entries (fillers) stay as they are. */
int lr_import(struct lrestore *lr, struct backend *b, const char *path, uint64_t id);
/* Records the mount below b->rootfd again (a fresh mount of the same fs) and compares it with
 * the tree recorded before: 1 if the same, 0 if not (the first difference in msg), -1 with
 * b->err. The new recording becomes the last. */
int lr_recheck(struct lrestore *lr, struct backend *b, char *msg, size_t msglen);
/* The same for the mount below rootfd (another mount of the fs's device), step naming it in an
 * error. */
int lr_recheck_at(struct lrestore *lr, struct backend *b, int rootfd, const char *step,
                  char *msg, size_t msglen);
/* The listings (malloc'd) of the two trees the last lr_recheck compared: the one recorded
 * before it and its own; -1 when there was none or out of memory. */
int lr_recheck_listings(struct lrestore *lr, char **before, char **again);

#endif
