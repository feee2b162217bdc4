/* Image store: device images saved block-deduplicated, so identical blocks are held once. */
#ifndef METIS_IMGSTORE_H
#define METIS_IMGSTORE_H

#include <stdint.h>
#include <stddef.h>

struct imgstore;
struct imgstore *imgstore_new(size_t image_size, size_t block_size);
void imgstore_free(struct imgstore *s);
/* Saves the image read from fd (pread) under id, replacing an older one. */
int imgstore_save(struct imgstore *s, uint64_t id, int fd);
/* Writes the saved image id back to fd, only the blocks that differ from what fd holds now
 * (the store remembers the last image saved or restored through it). -1 if id is unknown. */
int imgstore_restore(struct imgstore *s, uint64_t id, int fd);
/* Tells the store that fd may have been written behind its back (e.g. a mount): the next
 * restore reads and compares the file instead of trusting the remembered image. */
void imgstore_file_changed(struct imgstore *s);
/* Tells the store that fd was written only through a device whose writes the caller traces
 * (write_trace.h), so that imgstore_catch_up can read just the blocks it wrote. */
void imgstore_device_wrote(struct imgstore *s);
/* Reads into the store's image of fd the blocks marked in written (written[i] != 0 for block
 * i): with them it is what fd holds again, if the file changed since the last save, restore or
 * catch-up only through a traced device (imgstore_device_wrote) and only in those blocks.
 * 0 caught up; 1 when the store cannot know (imgstore_file_changed since): save whole;
 * -1 on a read or memory failure. */
int imgstore_catch_up(struct imgstore *s, int fd, const unsigned char *written);
/* Saves under id the image the store knows fd holds (after a catch-up), reading nothing;
 * -1 (EINVAL) if it does not know it. */
int imgstore_keep_current(struct imgstore *s, uint64_t id);
/* 1 when fd holds exactly the image the store knows it holds, 0 when not, -1 on failure: the
 * check that a trace of writes missed none. */
int imgstore_matches_file(struct imgstore *s, int fd);
size_t imgstore_nblocks(const struct imgstore *s);
size_t imgstore_block_size(const struct imgstore *s);
void imgstore_discard(struct imgstore *s, uint64_t id);
/* The image saved under id from is held under id to instead (replacing one held there);
 * -1 (ENOENT) if from is unknown. */
int imgstore_rekey(struct imgstore *s, uint64_t from, uint64_t to);
int imgstore_has(struct imgstore *s, uint64_t id);
int imgstore_write_file(struct imgstore *s, uint64_t id, const char *path);
uint64_t imgstore_bytes(struct imgstore *s);   /* distinct block bytes held */
uint64_t imgstore_count(struct imgstore *s);

#endif
