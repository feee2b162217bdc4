/* Snapshot ioctls of a mounted RefFS: numbers and argument structs shared by reffs, reffsctl and Metis. */
#ifndef REFFS_IOCTL_H
#define REFFS_IOCTL_H

#include <stdint.h>
#include <sys/ioctl.h>

/* All are issued on an fd of the mount point's root directory (open(MNT, O_RDONLY|O_DIRECTORY)).
 * FUSE passes only "restricted" ioctls, whose size is encoded in the number: keep structs fixed. */
#define REFFS_IOC_PATH_MAX 4000

struct reffs_ioc_key {
    uint64_t key;
};

struct reffs_ioc_file {
    uint64_t key;                  /* pickle: the snapshot; load: out, first key loaded;
                                      dump: out, the dump's length in bytes */
    uint32_t flags;                /* REFFS_IOC_ALL (pickle), REFFS_IOC_RESTORE_AFTER (load) */
    uint32_t reserved;
    char path[REFFS_IOC_PATH_MAX]; /* absolute path of the pickle file, NUL-terminated */
};
#define REFFS_IOC_ALL            1u
#define REFFS_IOC_RESTORE_AFTER  2u

struct reffs_ioc_stats {
    uint64_t count;
    uint64_t bytes;
};

#define REFFS_IOC_SAVE     _IOW('R', 1, struct reffs_ioc_key)
#define REFFS_IOC_RESTORE  _IOW('R', 2, struct reffs_ioc_key)
#define REFFS_IOC_DISCARD  _IOW('R', 3, struct reffs_ioc_key)
#define REFFS_IOC_PICKLE   _IOW('R', 4, struct reffs_ioc_file)
#define REFFS_IOC_LOAD     _IOWR('R', 5, struct reffs_ioc_file)
#define REFFS_IOC_STATS    _IOR('R', 6, struct reffs_ioc_stats)
/* Writes the live tree (reffs_dump's format, reffs.h) to the start of path; the file is
 * created if need be and cut to the dump's length. */
#define REFFS_IOC_DUMP     _IOWR('R', 7, struct reffs_ioc_file)

#endif
