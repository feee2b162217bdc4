/* Crash copies of a kernel file system's device: taken while it is mounted, mounted later on a second loop device, checked. */
#ifndef METIS_CRASHIMG_H
#define METIS_CRASHIMG_H

#include <stddef.h>
#include <stdint.h>
#include "backend/base/backend_types.h"

/*
 * A crash copy is what the device holds at one instant: the image file read while no write
 * reaches the loop device (what a power cut at that instant would leave). It is kept in memory
 * as taken; to be recovered it is written to <fs>.crash.img beside the image (or, the second
 * slot, <fs>.crash2.img) and mounted on that file's loop device at <mount point>.crash, so
 * journal recovery runs as after a reboot.
 * Both names carry the run id, so backend_sweep removes them after any exit.
 * Errors: 0 or -1 with the message in b->err (infrastructure, never a discrepancy).
 */
struct crash_image;

/* For b (a kernel backend, set up and attached): makes the copy's file, loop device and mount
 * point; with two, a second file and loop device (a slot), so that the checker can run on one
 * state's file while the next state is mounted from the other. NULL with b->err set on
 * failure. */
struct crash_image *crash_image_open(struct backend *b, int two);
/* 1 when the format on b's image keeps a journal (ext2/3/4: the superblock says so; every
 * other format: 1), 0 when not, -1 when the image cannot be read. */
int crash_image_has_journal(struct crash_image *c);
/* Copies b's device (b mounted) at an instant when no write is in flight or lands on it. */
int crash_image_copy(struct crash_image *c);
/* A stream's crash states: crash_image_base reads b's image (b unmounted) as the state a
 * recorded step starts from; crash_image_from_base makes the copy that state again, and
 * crash_image_write lands one recorded write (data NULL: a discard, zeros) on the copy. */
int crash_image_base(struct crash_image *c);
void crash_image_from_base(struct crash_image *c);
/* The same when the copy was made from the same base since (crash_image_from_base) and only
 * the blocks blocks[0..n) were written since: only those are put back (else all of it). */
void crash_image_from_base_but(struct crash_image *c, const size_t *blocks, size_t n);
void crash_image_write(struct crash_image *c, uint64_t off, const void *data, uint64_t len);
/* A state's identity: the sha256 of the copy's blocks blocks[0..n) (each one's contents, or
 * that it is a hole). Two states of one recorded step that differ only in those blocks are
 * byte-identical images when their keys are equal. */
#define CRASH_IMAGE_KEY 32
#define CRASH_IMAGE_BLOCK 4096      /* the unit of the copy's holes and of its keys */
int crash_image_key(struct crash_image *c, const size_t *blocks, size_t n,
                    unsigned char key[CRASH_IMAGE_KEY]);
/* Writes the copy to its file (before crash_image_mount or crash_image_fsck). */
int crash_image_store(struct crash_image *c);
/* Mounts the copy's file, which crash_image_store wrote (b unmounted: xfs and btrfs refuse
 * two mounts of one UUID), read-only if ro (the journal is still recovered; the unmount then writes nothing).
 * 0 with *rootfd open on it; 1 when the copy does not mount (why names the error: a
 * discrepancy, not a failure); -1 on failure. */
int crash_image_mount(struct crash_image *c, int ro, int *rootfd, char *why, size_t len);
/* Closes rootfd and unmounts the copy. */
int crash_image_umount(struct crash_image *c, int rootfd);
/* Runs the format's read-only checker on the (unmounted) recovered copy: 0 clean, 1 damaged
 * (why holds its first line of output), -1 when the checker could not run. */
int crash_image_fsck(struct crash_image *c, const char *checker, char *why, size_t len);
/* The same in a thread of its own: starts the checker on the current slot's file, makes the
 * other slot current (the next crash_image_store writes there) and returns the checked
 * slot's number, or -1. crash_image_fsck_wait(c, slot, ...) joins it and gives its verdict
 * as crash_image_fsck would (0 when nothing runs on slot; why may be NULL) and, in *ran
 * unless NULL, the checker's seconds. A slot being checked refuses crash_image_store. */
int crash_image_fsck_start(struct crash_image *c, const char *checker);
int crash_image_fsck_wait(struct crash_image *c, int slot, char *why, size_t len, double *ran);
/* Writes the copy as taken (before recovery) to path. */
int crash_image_save(struct crash_image *c, const char *path);
/* Unmounts, detaches and removes everything the copy made; NULL is fine. */
void crash_image_close(struct crash_image *c);

#endif
