/* The snapshot protocol: RefFS's SAVE/RESTORE/DISCARD ioctls, which any FUSE daemon may answer (README.md here). */
#ifndef METIS_SNAPPROTO_H
#define METIS_SNAPPROTO_H

#include <stdint.h>

/* 1 if the file system mounted at mnt (a FUSE mount) keeps snapshots for the ioctls: it saved
 * and discarded a probe state. 0 if it does not answer them, -1 with errno if mnt cannot be
 * opened. On 1, *ctlfd is the root directory's fd to issue them on. */
int snapproto_probe(const char *mnt, int *ctlfd);
/* SAVE, RESTORE, DISCARD of state id; 0 or -1 with errno (ENOENT: no such state). */
int snapproto_save(int ctlfd, uint64_t id);
int snapproto_restore(int ctlfd, uint64_t id);
int snapproto_discard(int ctlfd, uint64_t id);
/* Bytes the daemon holds for its snapshots (the optional STATS ioctl); 0 if it does not say. */
uint64_t snapproto_held_bytes(int ctlfd);

#endif
