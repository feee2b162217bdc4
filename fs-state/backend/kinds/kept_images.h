/* A kept fs's checkpoint images: read whole, or caught up from the blocks its device's trace says were written, held to the whole file now and then, and dropped if a check fails. */
#ifndef METIS_KEPT_IMAGES_H
#define METIS_KEPT_IMAGES_H

#include <stdint.h>
#include "backend/base/backend_types.h"

struct backend_image;

/* Sets written[i] for each block the fs wrote through its device since the last call; 0, or 1
 * when it cannot vouch for the set this time (kept.h, kept_ops.written). */
typedef int (*kept_written_fn)(struct backend *b, unsigned char *written);

struct kept_images;

/* For the image im (its store and file), traced by written (NULL: every image read whole).
 * NULL when out of memory. */
struct kept_images *ki_open(struct backend_image *im, kept_written_fn written);
void ki_close(struct kept_images *ki);
/* The mounted fs may write its image now: through its traced device, or (untraced) behind
 * the store's back. */
void ki_fs_may_write(struct kept_images *ki);
/* The image file is written other than through the device (an import): the next image is read
 * whole. */
void ki_file_written(struct kept_images *ki);
/* Keeps the image as it is now under key (the fs quiet): from the traced blocks where it can,
 * else read whole. 0, or -1 with b->err and b->own_failure. */
int ki_keep(struct kept_images *ki, struct backend *b, uint64_t key);
/* The image kept last under a temporary key is state id's now: if it was caught up and not yet
 * held to the file, it is dropped should a later check fail. */
void ki_named(struct kept_images *ki, uint64_t id);
/* Images caught up from the trace, those held to the whole file, takes the trace could not
 * vouch for (read whole instead), and images dropped after a failed check. */
struct ki_counts {
    uint64_t catch_ups, checks, trace_failures, dropped;
};
const struct ki_counts *ki_counts(const struct kept_images *ki);
/* NULL while images may be caught up from the trace (or there is none); else why not. */
const char *ki_trace_off(const struct kept_images *ki);

#endif
