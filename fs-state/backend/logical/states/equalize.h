/* Free-space equalization before a run: see equalize.c. 0 or -1 everywhere: with errno for one
 * fs (rootfd), with the message in the failing b->err for a set of backends. */
#ifndef METIS_EQUALIZE_H
#define METIS_EQUALIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FILLER_DIR ".metis-filler"

/* The root's attributes set-up makes alike (struct root_adapt's bits). */
enum { ROOT_ATTR_MODE = 1, ROOT_ATTR_OWNER = 2 };

/* What set-up adapted to at a target's root (equalize_root), for a class of its own: the
 * attributes it answered a set of with success and kept (kept), or refused with err (refused);
 * for both the reference took the target's values (ref_* were the reference's, now_* are the
 * target's). nlink: the root's link count as set-up found it (every fs). */
struct root_adapt {
    unsigned kept, refused;
    int err;
    mode_t ref_mode, now_mode;
    uid_t ref_uid, now_uid;
    gid_t ref_gid, now_gid;
    unsigned long long nlink;
};

struct free_counts {
    uint64_t inodes;
    uint64_t bytes;
    uint64_t slack;     /* applied only: bytes of the filler's xattr (equalize_fill) */
    int fill_failed;    /* applied only: a filler could not be made, so the fs was left as is */
    int root_set;       /* applied only: the root's attributes (root_attrs) were set (equalize_root) */
    unsigned root_attrs;    /* ROOT_ATTR_* bits set (the ones no [fs] lacks leaves out) */
    struct root_adapt adapt;    /* applied only: what set-up adapted to (equalize_root) */
    mode_t root_mode;
    uid_t root_uid;
    gid_t root_gid;
};

struct backend;

struct tree_opts;
struct metis_config;

/* on: the set-up's messages on stderr are left out (a later search of a run, whose set-up the
 * first one has told already). */
void equalize_quiet(int on);
/* A set-up message on stderr, unless equalize_quiet. */
void equalize_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Gives the root of every backend (set up, unmounted) the mode, owner and group of be[0]'s, the
 * reference's, and says so on stderr; applied[i] records what fs i got. An attribute the run's
 * lacks leave out (modes, owners) is never set. One a target keeps or refuses is given to the
 * reference instead, and applied[i].adapt says which (the caller makes it a class). -1 with the
 * message in the failing b->err. */
int equalize_root(struct backend **be, int n, struct free_counts *applied);
/* The root attributes applied->root_attrs names set again as applied says (equalize_replay):
 * 0, or -1 with errno. */
int equalize_root_again(int rootfd, const struct free_counts *applied);

/* What rootfd's fs has free (after a syncfs); 0 or -1 with errno. */
int free_counts(int rootfd, struct free_counts *fc);
/* Before anything is made on them: a reference that can grow (RefFS: its limits are only
 * numbers) with less room than every target, by more than fillers can make up (bytes above
 * limit, or more than 4096 inodes), is set up again with the least of theirs, and says so on
 * stderr. -1 with the message in the failing b->err. */
int equalize_grow_reference(struct backend **be, int n, uint64_t limit);
/* Makes free inodes and bytes of every backend (set up, unmounted) as equal as fillers can:
 * fc receives what each has free afterwards, applied the fillers each got. A difference in
 * bytes above limit is left (with a warning on stderr). -1 with the message in the failing
 * b->err. */
int equalize_backends(struct backend **be, int n, struct free_counts *fc,
                      struct free_counts *applied, uint64_t limit);
/* After equalization: more fillers on every backend, until only bytes and inodes are free
 * (UINT64_MAX: leave that count alone; inodes only when at most 4096 more fillers do it; the
 * part of bytes below a block as an xattr of the filler, where the fs takes one); fc and
 * applied as above. */
int equalize_fill(struct backend **be, int n, uint64_t bytes, uint64_t inodes,
                  struct free_counts *fc, struct free_counts *applied);
/* Makes the same fillers and root attributes again on a freshly mounted fs that keeps no image (restore by replay).
 * 0 or -1 with errno. */
int equalize_replay(int rootfd, const struct free_counts *applied);
/* Makes the filler directory and its space file, and extra_inodes empty fillers: 0, or -1 with
 * errno (E2BIG: too many to fill one by one, none made). */
int equalize_inodes(int rootfd, uint64_t extra_inodes);
/* Fills extra_bytes over as many filler files as it takes; *filled (may be NULL) is what the
 * fs took. 0, or -1 with errno (EFBIG: the files took no more, ENOSPC: the fs took no more). */
int equalize_space(int rootfd, uint64_t extra_bytes, uint64_t *filled);

#endif
