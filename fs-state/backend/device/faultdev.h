/* The faulty device of a kernel or image-backed FUSE file system: bin/metis-faultdev serving its image, a loop device with direct I/O over the daemon's file (kernel), and the daemon's control. */
#ifndef METIS_FAULTDEV_H
#define METIS_FAULTDEV_H

#include <stdint.h>
#include <sys/types.h>
#include "backend/base/backend_types.h"

/*
 * The image b->image is served by a metis-faultdev daemon mounted at
 * /dev/shm/metis-RUN/mnt-FS.faultdev; a second loop device, with direct I/O, sits on the daemon's
 * file, so every read and write of a file system mounted from it is a request the daemon
 * answers when the file system issues it (a failed write reaches the loop device at once, not
 * at a later writeback). Paths carry the run id: backend_sweep removes them after any exit.
 * Errors: 0 or -1 with the message in b->err (an infrastructure failure).
 */
struct faultdev;

/* What the daemon saw since the last arm. */
struct faultdev_counts {
    uint64_t reads, writes, fsyncs, matched, failed, lost;
};

/* Starts the daemon on b's image and, with with_loop (a kernel fs), attaches its file to a
 * loop device with direct I/O; NULL with b->err on failure (nothing left behind). */
struct faultdev *faultdev_open(struct backend *b, int with_loop);
/* "/dev/loopN": the device a kernel file system is mounted from to meet the faults. */
const char *faultdev_device(const struct faultdev *f);
/* The daemon's file: the image a FUSE file system's daemon is given to meet the faults (the
 * daemon serves it with direct_io, so each read and write is a request answered at once). */
const char *faultdev_file(const struct faultdev *f);
/* The daemon's process (-1 for NULL), which holds b->image open for as long as it runs. */
pid_t faultdev_pid(const struct faultdev *f);
/* Arms a fault: command is an arm command of faultdev_proto.h ("arm write eio at=3"). */
int faultdev_arm(struct faultdev *f, const char *command);
/* Lets every request pass again and says what happened while armed. */
int faultdev_disarm(struct faultdev *f, struct faultdev_counts *c);
/* A block-log command of faultdev_proto.h, without its "record ": "on", "on lie", "off",
 * "mark N". */
int faultdev_record(struct faultdev *f, const char *how);
/* The block log as the daemon has it (records of struct faultdev_rec), in a malloc'd *out. */
int faultdev_read_log(struct faultdev *f, char **out, size_t *len);
/* Detaches the loop device, unmounts the daemon and waits for it to exit; NULL is fine. */
void faultdev_close(struct faultdev *f);

#endif
