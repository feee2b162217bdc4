/* Public API of the RefFS file-system library: an in-memory POSIX file system with snapshots, no FUSE. */
#ifndef REFFS_H
#define REFFS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

/*
 * Conventions:
 *  - Every call returns 0 (or a non-negative count) on success and -errno on failure.
 *  - Inodes are named by number; the root is REFFS_ROOT_INO (FUSE's root id).
 *    Numbers are part of a snapshot; st_gen (returned by reffs_lookup) never repeats
 *    for a given number, so a kernel that caches (ino, gen) pairs never confuses two files.
 *  - The caller is root (uid 0): permission checks other than those POSIX applies to root
 *    are the kernel's business (RefFS is mounted with default_permissions).
 *  - All calls are thread-safe (one lock per file system).
 */

#define REFFS_ROOT_INO 1
#define REFFS_BLOCK_SIZE 4096

typedef uint64_t reffs_ino;
struct reffs;

struct reffs_limits {
    uint64_t capacity;     /* bytes of file data (and xattr/symlink payload) the fs may hold; 0 = 1 GiB */
    uint64_t inodes;       /* maximum number of inodes including the root; 0 = 65536 */
    const char *mutation;  /* planted mutations to enable, "NAME" or "NAME+NAME..." (bin/reffs-mutant only), or NULL */
};

/* Attributes returned with an entry; st_gen is the generation of the inode. */
struct reffs_entry {
    struct stat st;
    uint64_t generation;
};

/* What reffs_setattr changes: REFFS_SET_* bits in valid. */
enum {
    REFFS_SET_MODE  = 1 << 0,
    REFFS_SET_UID   = 1 << 1,
    REFFS_SET_GID   = 1 << 2,
    REFFS_SET_SIZE  = 1 << 3,
    REFFS_SET_ATIME = 1 << 4,   /* atime.tv_nsec may be UTIME_NOW */
    REFFS_SET_MTIME = 1 << 5,   /* mtime.tv_nsec may be UTIME_NOW */
    REFFS_SET_CTIME = 1 << 6,
};
struct reffs_setattr {
    unsigned valid;
    mode_t mode;               /* permission and S_ISUID/S_ISGID/S_ISVTX bits only */
    uid_t uid;
    gid_t gid;
    off_t size;
    struct timespec atime, mtime, ctime;
};

struct reffs *reffs_create(const struct reffs_limits *limits);
void reffs_destroy(struct reffs *fs);

/* Namespace */
int reffs_lookup(struct reffs *fs, reffs_ino parent, const char *name, struct reffs_entry *out);
int reffs_getattr(struct reffs *fs, reffs_ino ino, struct stat *out);
int reffs_setattr(struct reffs *fs, reffs_ino ino, const struct reffs_setattr *sa, struct stat *out);
int reffs_mknod(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode, dev_t rdev,
                uid_t uid, gid_t gid, struct reffs_entry *out);   /* regular files, fifos, ... */
int reffs_mkdir(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode,
                uid_t uid, gid_t gid, struct reffs_entry *out);
int reffs_symlink(struct reffs *fs, reffs_ino parent, const char *name, const char *target,
                  uid_t uid, gid_t gid, struct reffs_entry *out);
int reffs_link(struct reffs *fs, reffs_ino ino, reffs_ino newparent, const char *newname,
               struct reffs_entry *out);
int reffs_unlink(struct reffs *fs, reffs_ino parent, const char *name);
int reffs_rmdir(struct reffs *fs, reffs_ino parent, const char *name);
/* flags: 0, RENAME_NOREPLACE or RENAME_EXCHANGE (from <linux/fs.h> / <stdio.h>) */
int reffs_rename(struct reffs *fs, reffs_ino parent, const char *name,
                 reffs_ino newparent, const char *newname, unsigned flags);
/* Copies at most size bytes of the target (no NUL); returns the target's length. */
int reffs_readlink(struct reffs *fs, reffs_ino ino, char *buf, size_t size);

/* Open files: an inode whose nlink drops to 0 lives until its last close. */
int reffs_open(struct reffs *fs, reffs_ino ino);
int reffs_release(struct reffs *fs, reffs_ino ino);
/* The kernel forgot nlookup references to ino (FUSE forget); unreferenced unlinked inodes are freed. */
void reffs_forget(struct reffs *fs, reffs_ino ino, uint64_t nlookup);

/* Data */
ssize_t reffs_read(struct reffs *fs, reffs_ino ino, void *buf, size_t size, off_t off);
ssize_t reffs_write(struct reffs *fs, reffs_ino ino, const void *buf, size_t size, off_t off);
/* The same with the open flags of the write (the kernel has already put an O_APPEND write at
 * the end, so RefFS itself ignores them; a mutant may not). */
ssize_t reffs_write_flags(struct reffs *fs, reffs_ino ino, const void *buf, size_t size,
                          off_t off, int flags);
/* mode: FALLOC_FL_* of fallocate(2): 0 and KEEP_SIZE, PUNCH_HOLE|KEEP_SIZE, ZERO_RANGE (with or
 * without KEEP_SIZE), COLLAPSE_RANGE, INSERT_RANGE, with ext4's rules (see reffs/README.md). */
int reffs_fallocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len);
/* copy_file_range(2) from in to out (which may be in); flags must be 0. Returns the bytes
 * copied: fewer than len at the source's EOF, at the maximum file size, or when space runs
 * out part-way (-ENOSPC if none fits). */
ssize_t reffs_copy_range(struct reffs *fs, reffs_ino in, off_t off_in, reffs_ino out,
                         off_t off_out, size_t len, unsigned flags);
int reffs_fsync(struct reffs *fs, reffs_ino ino);

/* Directory listing: calls fn for ".", ".." and each entry from position off on, in a stable
 * order; fn returns non-zero to stop (e.g. the reply buffer is full). next is the position of
 * the following entry. */
typedef int (*reffs_filldir_fn)(void *ctx, const char *name, const struct stat *st, off_t next);
int reffs_readdir(struct reffs *fs, reffs_ino ino, off_t off, reffs_filldir_fn fn, void *ctx);

/* Extended attributes. flags: 0, XATTR_CREATE or XATTR_REPLACE. get/list with size 0 return
 * the size needed; a too-small buffer is -ERANGE. */
int reffs_setxattr(struct reffs *fs, reffs_ino ino, const char *name, const void *value,
                   size_t size, int flags);
ssize_t reffs_getxattr(struct reffs *fs, reffs_ino ino, const char *name, void *buf, size_t size);
ssize_t reffs_listxattr(struct reffs *fs, reffs_ino ino, char *buf, size_t size);
int reffs_removexattr(struct reffs *fs, reffs_ino ino, const char *name);

int reffs_statfs(struct reffs *fs, struct statvfs *out);
int reffs_access(struct reffs *fs, reffs_ino ino, int mask);

/* Snapshots: the whole state (inodes, data, metadata, xattrs, free-space accounting). */
struct reffs_snap_stats {
    uint64_t count;        /* snapshots in the pool */
    uint64_t bytes;        /* bytes held by the pool that the live state does not share */
};
/* Told, during a restore, what the kernel may have cached that the restore changed.
 * Called with the file system locked: the callee must only queue the notice. */
struct reffs_inval {
    void (*inode)(void *ctx, reffs_ino ino);
    void (*entry)(void *ctx, reffs_ino parent, const char *name);
    void *ctx;
};
int reffs_snapshot_save(struct reffs *fs, uint64_t key);
int reffs_snapshot_restore(struct reffs *fs, uint64_t key, const struct reffs_inval *inval);
int reffs_snapshot_discard(struct reffs *fs, uint64_t key);
int reffs_snapshot_stats(struct reffs *fs, struct reffs_snap_stats *out);

/* Pickles: one snapshot (all = 0) or the whole pool (all = 1) written to fd, in the versioned,
 * checksummed, zstd-compressed format of reffs/README.md. */
int reffs_pickle(struct reffs *fs, int all, uint64_t key, int fd);
/* Reads a pickle into the pool (replacing equal keys). Damaged input is -EBADMSG, a foreign
 * or wrong-version file -EINVAL; either way nothing changes. With restore set, the first
 * snapshot of the file is made live (inval as for reffs_snapshot_restore). */
int reffs_load(struct reffs *fs, int fd, int restore, const struct reffs_inval *inval,
               uint64_t *first_key);

/* Tree dump: the whole live tree in one buffer (malloc'd, *buf to free), for a reader that
 * digests RefFS's state without walking the mount. Little-endian, as pickles:
 * "RFSDUMP1", u64 entry count, then per entry in pre-order from the root ("/"):
 *   string path ("/a/b"), u32 mode, u32 nlink, u32 uid, u32 gid, u64 size,
 *   bytes symlink target (empty otherwise),
 *   u32 n, n x (string name, bytes value)         xattrs in creation order,
 *   u32 n, n x (u64 offset, bytes data)           data blocks below EOF, ascending; holes absent
 * where "bytes" is a u32 length and that many bytes, and a "string" is bytes whose last
 * (and only) NUL ends them, so a reader can use them in place. -ENAMETOOLONG for a path of
 * REFFS_DUMP_PATH_MAX bytes or more. */
#define REFFS_DUMP_MAGIC "RFSDUMP1"
#define REFFS_DUMP_PATH_MAX 4096
int reffs_dump(struct reffs *fs, void **buf, size_t *len);

/* Planted mutations (see reffs/lib/core/mutation.h): the i-th mutation's name, and in *rule (if
 * rule is non-NULL) the rule it breaks; NULL past the end. reffs_create fails with errno
 * EINVAL for an unknown limits->mutation, and with ENOTSUP for a known one in a library
 * built without -DREFFS_MUTANT. Names match case-insensitively, with or without "MUT_";
 * several joined by '+' are planted together. */
const char *reffs_mutation_list(int i, const char **rule);

#endif
