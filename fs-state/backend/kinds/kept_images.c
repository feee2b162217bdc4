/* A kept fs's checkpoint images: caught up from the blocks its device's trace names where it can (tens of blocks read, not 16 MiB), held to the whole file now and then, read whole otherwise. */
#include "backend/kinds/kept_images.h"
#include "backend/base/common.h"
#include "backend/device/image.h"
#include "backend/device/imgstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Images caught up from the trace that are held to the whole file all the same: the first
 * ones, then one in this many. Those between two checks are dropped if the second fails. */
#define CHECK_FIRST 4
#define CHECK_EVERY 32

struct kept_images {
    struct backend_image *im;
    kept_written_fn written;    /* NULL: no trace */
    size_t nblocks;
    unsigned char *want;        /* the blocks a catch-up reads ... */
    unsigned char *last_take;   /* ... the last take's among them: a bio queued before one
                                   take whose data lands after its blocks were read is read
                                   again at the next */
    int untraced;               /* a caught-up image was not the file: whole images from then */
    char off[200];              /* ... why */
    int last_unchecked;         /* the image kept last was caught up and not held to the file */
    uint64_t unchecked[CHECK_EVERY];    /* states whose images are such */
    size_t nunchecked;
    struct ki_counts n;
};

struct kept_images *ki_open(struct backend_image *im, kept_written_fn written)
{
    struct kept_images *ki = calloc(1, sizeof *ki);
    if (!ki)
        return NULL;
    ki->im = im;
    ki->written = written;
    ki->nblocks = imgstore_nblocks(im->store);
    if (written && (!(ki->want = calloc(ki->nblocks, 1)) ||
                    !(ki->last_take = calloc(ki->nblocks, 1)))) {
        ki_close(ki);
        return NULL;
    }
    return ki;
}

void ki_close(struct kept_images *ki)
{
    if (!ki)
        return;
    free(ki->want);
    free(ki->last_take);
    free(ki);
}

void ki_fs_may_write(struct kept_images *ki)
{
    if (ki->written)
        imgstore_device_wrote(ki->im->store);
    else
        imgstore_file_changed(ki->im->store);
}

void ki_file_written(struct kept_images *ki)
{
    imgstore_file_changed(ki->im->store);
}

/* The blocks to read: the trace's take and the one before. 1 when the trace cannot vouch for
 * it (then every block is read at the next catch-up, as a late write may be anywhere). */
static int take(struct kept_images *ki, struct backend *b)
{
    memcpy(ki->want, ki->last_take, ki->nblocks);
    memset(ki->last_take, 0, ki->nblocks);
    if (ki->written(b, ki->last_take) != 0) {
        ki->n.trace_failures++;
        memset(ki->last_take, 1, ki->nblocks);
        return 1;
    }
    for (size_t i = 0; i < ki->nblocks; i++)
        ki->want[i] |= ki->last_take[i];
    return 0;
}

static void drop_unchecked(struct kept_images *ki)
{
    for (size_t i = 0; i < ki->nunchecked; i++)
        if (imgstore_has(ki->im->store, ki->unchecked[i])) {
            imgstore_discard(ki->im->store, ki->unchecked[i]);
            ki->n.dropped++;
        }
    ki->nunchecked = 0;
}

/* The caught-up image against the whole file: 0 the same (and so every image caught up since
 * the last check, as far as can be told); 1 not, or not readable: read it whole. One that
 * differs turns the trace off for the run and drops the images caught up since the last check
 * (a replay then starts from an older checkpoint). */
static int hold_to_file(struct kept_images *ki)
{
    int same = imgstore_matches_file(ki->im->store, ki->im->fd);
    ki->n.checks++;
    if (same > 0) {
        ki->nunchecked = 0;
        return 0;
    }
    imgstore_file_changed(ki->im->store);
    if (same == 0) {
        ki->untraced = 1;
        snprintf(ki->off, sizeof ki->off, "an image caught up from the traced writes was not "
                 "the device's (catch-up %llu): whole images from then on",
                 (unsigned long long)ki->n.catch_ups);
        drop_unchecked(ki);
    }
    return 1;
}

/* 0 when the store knows the image again from the traced blocks, 1 when it must be read whole. */
static int catch_up(struct kept_images *ki, struct backend *b)
{
    if (!ki->written || ki->untraced)
        return 1;
    if (take(ki, b) != 0) {
        imgstore_file_changed(ki->im->store);
        return 1;
    }
    int rc = imgstore_catch_up(ki->im->store, ki->im->fd, ki->want);
    if (rc != 0) {
        imgstore_file_changed(ki->im->store);
        return 1;
    }
    uint64_t n = ki->n.catch_ups;
    if (n < CHECK_FIRST || n % CHECK_EVERY == 0)
        return hold_to_file(ki);
    ki->last_unchecked = 1;
    return 0;
}

int ki_keep(struct kept_images *ki, struct backend *b, uint64_t key)
{
    ki->last_unchecked = 0;
    if (catch_up(ki, b) == 0 && imgstore_keep_current(ki->im->store, key) == 0) {
        ki->n.catch_ups++;
        return 0;
    }
    ki->last_unchecked = 0;
    if (bimage_save(b, ki->im, key) < 0) {
        b->own_failure = 1;     /* the image store's, not the file system's */
        return -1;
    }
    return 0;
}

void ki_named(struct kept_images *ki, uint64_t id)
{
    if (!ki->last_unchecked)
        return;
    ki->last_unchecked = 0;
    if (ki->nunchecked < CHECK_EVERY)
        ki->unchecked[ki->nunchecked++] = id;
    else
        imgstore_discard(ki->im->store, id);    /* more than a check's worth: not kept */
}

const struct ki_counts *ki_counts(const struct kept_images *ki)
{
    return &ki->n;
}

const char *ki_trace_off(const struct kept_images *ki)
{
    return ki->untraced ? ki->off : NULL;
}
