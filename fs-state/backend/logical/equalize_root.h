/* The roots made alike before a run, and the counts every equalization records (struct free_counts); set-up's messages on stderr. 0 or -1 everywhere: with errno for one fs (rootfd), with the message in the failing b->err for a set of backends. */
#ifndef METIS_EQUALIZE_ROOT_H
#define METIS_EQUALIZE_ROOT_H

#include <stdint.h>
#include <sys/types.h>

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

#endif
