/* The image every image-backed backend keeps: its backing file in /dev/shm, mkfs on it, and its saved states. */
#ifndef METIS_BK_IMAGE_H
#define METIS_BK_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "backend/base/backend_types.h"

struct imgstore;

/* The image every image-backed backend keeps: the backing file, its size and its states. */
struct backend_image {
    int fd;
    uint64_t size;
    struct imgstore *store;
};
/* Creates b->image (size bytes of zeros, in /dev/shm) and its store. */
int bimage_create(struct backend *b, struct backend_image *im, uint64_t size);
/* Runs mkfs.FSTYPE with quiet/force flags and cfg->mkfs_opts on b->image. */
int bimage_mkfs(struct backend *b, const char *fstype, uint64_t size);
int bimage_save(struct backend *b, struct backend_image *im, uint64_t id);
int bimage_restore(struct backend *b, struct backend_image *im, uint64_t id);
int bimage_export(struct backend *b, struct backend_image *im, uint64_t id, const char *dir,
                  char *out, size_t outlen);
/* Closes the file, frees the store and unlinks b->image; safe to call twice. */
void bimage_destroy(struct backend *b, struct backend_image *im);

#endif
