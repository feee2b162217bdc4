/* Comparison of two trees' listings for Metis's classes: the first entry of the most telling kind of difference (tree/diff.h ranks them). */
#ifndef METIS_CLASSIFY_H
#define METIS_CLASSIFY_H

#include <stddef.h>
#include "diff.h"

struct state_diff {
    enum tree_diff attr;        /* the most telling kind of difference */
    char entry[512];            /* path of the first entry with that difference, as listed */
    char ref[128], other[128];  /* the attribute on the reference and on the other fs */
    int nentries;               /* entries that differ in any way */
};

/* Compares two listings in tree.h's format, one entry per line. Returns 1 with d filled when
 * they differ, 0 when they are equal, -1 when a line is not a listing line (d->entry names
 * it). */
int classify_listings(const char *ref, const char *other, struct state_diff *d);

#endif
