/* Free-space equalization before a run: see equalize.c. */
#ifndef METIS_EQUALIZE_H
#define METIS_EQUALIZE_H

#include <stdint.h>

#define FILLER_DIR ".metis-filler"

struct free_counts {
    uint64_t inodes;
    uint64_t bytes;
};

int free_counts(int rootfd, struct free_counts *fc);
int equalize_inodes(int rootfd, uint64_t extra_inodes);
int equalize_space(int rootfd, uint64_t extra_bytes);

#endif
