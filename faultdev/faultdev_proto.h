/* The faulty device's protocol: the names its mount shows and the control file's commands, shared by bin/metis-faultdev and Metis's client. */
#ifndef METIS_FAULTDEV_PROTO_H
#define METIS_FAULTDEV_PROTO_H

/*
 * bin/metis-faultdev IMAGE MOUNTPOINT mounts a FUSE file system that holds two files:
 *   MOUNTPOINT/img  the image: every read and write is passed to IMAGE, unless a fault is armed
 *   MOUNTPOINT/ctl  the control file: a write is one command, a read gives the counters
 *
 * Commands (one per write; words separated by single spaces):
 *   arm read|write eio|lost at=N [count=C] [off=O len=L] [silent]
 *       From now on, requests of that direction are counted (0, 1, ...). The at=N-th one that
 *       overlaps [O, O+L) (every one without len) is the first that fails, and C of them fail
 *       (0, the default: every one from there on). eio replies EIO; lost (writes only)
 *       acknowledges the write and drops its data, and the next fsync of the image then fails
 *       with EIO once (armed or not: also after a disarm), as a device whose write cache lost
 *       data says so at the next flush, unless silent is given: then nothing ever tells.
 *   disarm
 *       Requests pass again; the counters stay as they were until the next arm, and a lost write
 *       not told yet is told at the next fsync.
 *   record on [lie | early]
 *       Empties the block log and starts it: from now on every write of the image (its offset and
 *       data), every discard and every flush (an fsync of the image: how a loop device passes on
 *       a flush, and a FUA write, which it emulates as a write and a flush) is appended to it,
 *       in the order the daemon serves them. lie (a test hook): a device that lies about its
 *       flushes; the writes since the flush before are still made to the image, but the log
 *       puts them after the flush (marks stay), as if they had become durable only at the next
 *       one. early (a test hook): a device whose flush does not order the writes after it:
 *       the first write after each flush is logged ahead of the writes since the flush
 *       before (before both flushes), as if it had become durable before them.
 *   record mark N
 *       Appends a mark with the number N: where in the log a caller's call returned.
 *   record off
 *       Stops the log (it stays readable until the next record on).
 * Reading MOUNTPOINT/log gives the log: records of struct faultdev_rec, a write's data right
 * after its header.
 * Reading the control file gives one line:
 *   armed=0|1 reads=R writes=W fsyncs=F matched=M failed=X lost=L
 * where R, W and F count the requests since the last arm, M the requests of the armed
 * direction that overlapped the range, X the ones failed with EIO and L the writes dropped.
 */
#define FAULTDEV_IMAGE_NAME "img"
#define FAULTDEV_CTL_NAME "ctl"
#define FAULTDEV_LOG_NAME "log"
#define FAULTDEV_STATUS_MAX 256

/* One record of the block log (16 bytes on Linux; plain C types: the header includes nothing,
 * as emit-c pastes it ahead of the daemon's feature macros); kind WRITE is followed by len bytes of data. */
enum faultdev_rec_kind { FAULTDEV_REC_WRITE = 1, FAULTDEV_REC_DISCARD, FAULTDEV_REC_FLUSH,
                         FAULTDEV_REC_MARK };
struct faultdev_rec {
    unsigned int kind;
    unsigned int len;           /* WRITE, DISCARD: bytes; MARK: the mark's number */
    unsigned long long off;     /* WRITE, DISCARD: where on the image */
};

#endif
