/* Test hook ([run] remount_test_lose): writes a kept kernel fs's device loses, located by FIEMAP while mounted and zeroed in its image once unmounted, so that a checkpoint's remount must show them. */
#ifndef METIS_LOST_WRITE_H
#define METIS_LOST_WRITE_H

#include <stdint.h>

struct lost_writes;

struct lost_writes *lw_new(void);
void lw_free(struct lost_writes *w);
/* The bytes [off, off + len) of the regular file at path (below the mount's root) are to be
 * lost; the oldest notes go first when there are too many. */
void lw_note(struct lost_writes *w, const char *path, uint64_t off, uint64_t len);
/* Forgets the notes: a checkpoint took them, or a restore left the path they were made on. */
void lw_clear(struct lost_writes *w);
/* Mounted, at a checkpoint: where the noted bytes lie on the device now (each file's data
 * synced first); notes whose file is gone or no longer reaches them lose nothing. */
void lw_locate(struct lost_writes *w, int rootfd);
/* Unmounted: zeroes the located ranges in the image file fd and forgets the notes; the bytes
 * zeroed, or -1 with errno. */
int64_t lw_zero(struct lost_writes *w, int fd);

#endif
