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

#define CLASSIFY_DIGEST_SHOWN 12   /* hex digits of a content or target digest a class shows */

/* A listing's lines, pointing into its text, sorted by path. */
struct listing_lines {
    const char **v;
    size_t n;
};
/* Cuts text (tree.h's listing lines) into l (free l->v); -1 when a line is no listing line
 * (d->entry names it). */
int classify_lines(const char *text, struct listing_lines *l, struct state_diff *d);

/* Compares two listings in tree.h's format, one entry per line. Returns 1 with d filled when
 * they differ, 0 when they are equal, -1 when a line is not a listing line (d->entry names
 * it). */
int classify_listings(const char *ref, const char *other, struct state_diff *d);

#endif
