/* What Metis knows of each kind of file system: backend type names and per-format facts. */
#ifndef METIS_FSINFO_H
#define METIS_FSINFO_H

#include <stddef.h>
#include <stdint.h>

/* How Metis runs a file system: a kernel driver on a loop device, RefFS, or any FUSE daemon. */
enum fs_type { FS_KERNEL, FS_REFFS, FS_FUSE, FS_NTYPES };

const char *fs_type_name(enum fs_type t);        /* "kernel", "reffs", "fuse"; "?" */
int fs_type_by_name(const char *name);           /* -1 if unknown */
/* "kernel, reffs or fuse", for messages and docs. */
const char *fs_type_list(void);

/* Facts about one on-disk format (the fstype of a kernel or image-backed FUSE fs). */
struct fs_format {
    const char *fstype;
    uint64_t min_size;          /* smallest device mkfs makes here (the default size) */
    const char *mkfs_flags;     /* quiet and force */
    const char *mkfs_env;       /* environment mkfs needs for small devices */
    const char *exclude;        /* root entries the format makes itself (default exclusions) */
    const char *quirks;         /* known differences from POSIX that configs must allow for */
    int devless;                /* 1: a kernel fs without a device (tmpfs, overlay): no mkfs,
                                   no loop device, no image (backend/devless.c) */
};

/* The format's facts; NULL for a format Metis has no facts for. */
const struct fs_format *fs_format_of(const char *fstype);
/* Default size of an fstype: its smallest device, 16 MiB for an unknown format. */
uint64_t fs_format_default_size(const char *fstype);
/* 1 when fstype is a kernel file system without a device (tmpfs, overlay). */
int fs_format_devless(const char *fstype);
/* 1 when a run logs the calls of this fs's own restores in its history (a kernel fs without a
 * device, restored logically): a replay of a target's history then gives it those calls, not
 * the target's, which would not undo what it alone did (fs-state/LOG.md, "call"). */
int fs_logs_own_calls(enum fs_type t, const char *fstype);
/* The mount options beside "ro" that a second, read-only mount of a mounted fs's device needs
 * while a checkpoint holds the fs still ("" for most): xfs refuses a second mount of one UUID
 * without nouuid, and remounted read-only its log is clean, so norecovery spares the mount its
 * search of the log for its head (~30 single-block reads); ext3/4 stay mounted read-write
 * (their journal checkpointed into place), so their superblock still asks for a recovery a
 * read-only device cannot make: noload. */
const char *fs_format_view_opts(const char *fstype);
/* 1 when a checkpoint holds this format still by syncfs and a checkpoint of its journal
 * (ext3/4: a read-only remount of ext4 took 10 times as long), 0 by a read-only remount. */
int fs_format_settles_by_journal(const char *fstype);
/* btrfs: below this a device needs mixed block groups (mkfs -M). */
#define FS_BTRFS_UNMIXED_MIN (109ULL << 20)
/* "mkfs.FSTYPE FLAGS OPTS IMAGE" with its environment prefix; btrfs gets -M when the size
 * needs it and opts do not already say so. The length it needed (as snprintf). */
int fs_format_mkfs_command(const char *fstype, uint64_t size, const char *opts,
                           const char *image, char *cmd, size_t len);
/* 1 when mkfs opts ask for mixed block groups (-M, --mixed). */
int fs_mkfs_opts_mixed(const char *opts);
/* The Debian package that provides a mkfs or FUSE mount program ("mkfs.vfat": "dosfstools"),
 * or NULL for one Metis does not know. */
const char *fs_program_package(const char *program);

#endif
