/* A kernel file system's device: its image in /dev/shm, the loop device over it, its mount; what the remounted (kernel.c) and the kept (kernel_kept.c) modes share. */
#ifndef METIS_KERNEL_DEV_H
#define METIS_KERNEL_DEV_H

#include "backend/base/common.h"

struct kdev {
    struct backend_image im;
    int loopnr;                 /* -1 when not attached */
    char loopdev[32];
    struct faultdev *fault;     /* the faulty device over the image, once asked for */
    unsigned long mflags;       /* mount_opts as mount(2) flags ... */
    char mdata[256];            /* ... and the fs's own options */
    int direct_io;              /* set before kdev_prepare: the loop device reads and writes
                                   the image with direct I/O (kernel_kept.c says why) */
};

/* Nothing made yet: no image, no loop device. */
void kdev_init(struct kdev *d);
/* The mount options parsed, the mount point, the image made by mkfs and attached to a loop
 * device; nothing mounted. */
int kdev_prepare(struct backend *b, struct kdev *d);
int kdev_mount(struct backend *b, struct kdev *d, const char *step);
/* Unmounts (the root closed first); the block device's page cache goes with its last close,
 * so the image then holds everything the fs wrote. */
int kdev_umount(struct backend *b, const char *step);
/* Unmounts, detaches, removes the image and the mount point; idempotent, safe after a
 * partial prepare. */
void kdev_teardown(struct backend *b, struct kdev *d);

#endif
