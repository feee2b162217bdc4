/* Private types and helpers shared by the RefFS library modules. */
#ifndef REFFS_INTERNAL_H
#define REFFS_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uthash.h>
#include "reffs.h"
#include "mutation.h"

/* Hidden, so the archive build can make these local: only reffs_ names may leave libreffs.a. */
#pragma GCC visibility push(hidden)

#define REFFS_NAME_MAX        255
#define REFFS_LINK_MAX        65000          /* ext4's EXT4_LINK_MAX */
#define REFFS_SYMLINK_MAX     4095           /* PATH_MAX minus the NUL */
#define REFFS_XATTR_NAME_MAX  255
#define REFFS_XATTR_SIZE_MAX  65536
#define REFFS_MAX_FILE_SIZE   0xFFFFFFFF000LL /* ext4 with 4 KiB blocks: 16 TiB - 4 KiB */
#define REFFS_DIRENT_SIZE     20             /* tmpfs reports 20 bytes of st_size per entry */
#define REFFS_DEFAULT_CAPACITY (1ULL << 30)
#define REFFS_DEFAULT_INODES  65536

/* Every shared object carries refs (copy-on-write when > 1) and mark (for snapshot stats). */
struct rblock {
    uint32_t refs;
    uint64_t mark;
    unsigned char data[REFFS_BLOCK_SIZE];
};

struct rext {
    uint64_t idx;               /* block number within the file */
    struct rblock *blk;
};

/* A regular file's allocated blocks, sorted by idx; absent blocks are holes. */
struct rextmap {
    uint32_t refs;
    uint64_t mark;
    size_t n, cap;
    struct rext *v;
};

struct rdent {
    char *name;
    reffs_ino ino;
    uint64_t cookie;            /* readdir position; stable while other entries come and go */
    UT_hash_handle hh;
};

struct rdir {
    uint32_t refs;
    uint64_t mark;
    struct rdent *byname;       /* uthash keeps insertion order: the readdir order */
    uint64_t next_cookie;
    size_t n;
};

struct rxattr {
    char *name;
    unsigned char *value;
    size_t size;
};

struct rxattrs {
    uint32_t refs;
    uint64_t mark;
    size_t n, cap;
    struct rxattr *v;
};

struct rinode {
    uint32_t refs;
    uint64_t mark;
    reffs_ino ino;
    uint64_t gen;
    mode_t mode;
    nlink_t nlink;
    uid_t uid;
    gid_t gid;
    dev_t rdev;
    off_t size;
    struct timespec atime, mtime, ctime;
    reffs_ino parent;           /* directories: the inode ".." names */
    struct rextmap *data;       /* regular files; NULL until a block is allocated */
    struct rdir *dir;           /* directories */
    char *target;               /* symlinks */
    struct rxattrs *xattrs;     /* NULL when there are none */
    int held;                   /* unlinked, kept for the kernel's calls on its number, and
                                   no longer counted in free space and inodes (inode.c) */
    uint64_t held_charge;       /* ... its charge when it was counted as gone */
};

/* A whole file-system state: the live one or a snapshot. */
struct rstate {
    struct rinode **tab;        /* indexed by inode number; NULL = free */
    size_t tabsz;
    uint64_t used;              /* bytes charged against capacity */
    uint64_t ninodes;
};

struct rsnap {
    uint64_t key;
    struct rstate st;
    UT_hash_handle hh;
};

/* What the kernel holds, kept outside the snapshots. */
struct rpin {
    uint32_t opens;
    uint64_t lookups;   /* entries handed to the kernel and not yet forgotten */
};

struct reffs {
    pthread_mutex_t lock;
    uint64_t capacity, max_inodes;
    unsigned long long mutation;    /* bit m: mutation m planted */
    struct rstate live;
    reffs_ino free_hint;        /* no free inode number below this */
    uint64_t gen_counter;       /* never rolls back, so generations never repeat */
    struct rpin *pins;
    size_t npins;
    struct rsnap *snaps;
    uint64_t mark_epoch;
};

/* util.c */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void fs_lock(struct reffs *fs);
void fs_unlock(struct reffs *fs);
void time_now(struct timespec *ts);
int name_check(const char *name);
int is_dot_or_dotdot(const char *name);

/* fs.c */
void fill_stat(const struct rinode *ip, struct stat *st);
/* The link count stat and the tree dump report (the root's is 0 under MUT_ROOT_NLINK_0). */
static inline nlink_t reported_nlink(const struct rinode *ip)
{
    return ip->ino == REFFS_ROOT_INO && mutated(MUT_ROOT_NLINK_0) ? 0 : ip->nlink;
}
/* Fills *out, if given, and counts it as a lookup reference the kernel now holds. */
void fill_entry(struct reffs *fs, const struct rinode *ip, struct reffs_entry *out);

/* inode.c */
struct rinode *ino_get(struct reffs *fs, reffs_ino ino);
struct rinode *ino_mut(struct reffs *fs, reffs_ino ino);
int ino_alloc(struct reffs *fs, mode_t mode, uid_t uid, gid_t gid, struct rinode **out);
void ino_put(struct rinode *ip);
void ino_maybe_free(struct reffs *fs, reffs_ino ino);
/* At a restore: an unlinked inode goes unless it is open (no call of the kernel is under way). */
void ino_drop_orphan(struct reffs *fs, reffs_ino ino);
uint64_t ino_charge(const struct rinode *ip);
struct rpin *pin_get(struct reffs *fs, reffs_ino ino);
uint64_t ino_blocks(const struct rinode *ip);
struct rblock *blk_new(void);
void blk_put(struct rblock *b);
void extmap_put(struct rextmap *m);
struct rextmap *extmap_mut(struct rinode *ip);

/* dir.c */
struct rdir *rdir_new(void);
void rdir_put(struct rdir *d);
struct rdir *rdir_mut(struct rinode *ip);
struct rdent *dir_find(const struct rinode *dp, const char *name);
void dir_add(struct rinode *dp, const char *name, reffs_ino ino);
void dir_add_cookie(struct rdir *d, const char *name, reffs_ino ino, uint64_t cookie);
void dir_del(struct rinode *dp, const char *name);
void dir_set(struct rinode *dp, const char *name, reffs_ino ino);

/* xattrs.c */
void rxattrs_put(struct rxattrs *x);
uint64_t xattrs_charge(const struct rxattrs *x);
struct rxattrs *rxattrs_clone(const struct rxattrs *x);

/* xattr.c */
int xattr_name_check(const char *name);   /* namespace index, or -errno */

/* data.c */
void data_shrink(struct reffs *fs, struct rinode *ip, off_t len);
/* Block-map helpers, shared with range.c: the first position whose block number is >= idx,
 * block idx or NULL for a hole, and a private writable block (NULL: no space for a new one). */
size_t ext_lower(const struct rextmap *m, uint64_t idx);
const struct rblock *ext_find(const struct rextmap *m, uint64_t idx);
struct rblock *block_for_write(struct reffs *fs, struct rinode *ip, uint64_t idx);

/* snapshot.c */
void state_clone(const struct rstate *src, struct rstate *dst);
void state_drop(struct rstate *st);
void state_install(struct reffs *fs, struct rstate *nst, const struct reffs_inval *inval);
void snap_put_in_pool(struct reffs *fs, uint64_t key, struct rstate *st);

#pragma GCC visibility pop

#endif
