/* Comparison of two tree listings (abstract.c's lines): the first differing entry and the kind of attribute that differs. */
#ifndef METIS_CLASSIFY_H
#define METIS_CLASSIFY_H

#include <stddef.h>

/* What differs between two trees, most telling first: when several entries differ, the kind
 * that comes first here names the difference (a directory missing on one side also changes
 * its parent's link count, but "missing" says what happened). */
enum cls_attr {
    CLS_NONE = 0,               /* no state difference (or the trees could not be read) */
    CLS_MISSING,                /* an entry of the reference is not on the other fs */
    CLS_EXTRA,                  /* an entry of the other fs is not on the reference */
    CLS_TYPE, CLS_MODE, CLS_OWNER, CLS_NLINK, CLS_SIZE, CLS_CONTENT, CLS_TARGET,
    CLS_XATTR_NAMES, CLS_XATTR_VALUE,
    CLS_COUNT
};

struct state_diff {
    enum cls_attr attr;
    char entry[512];            /* path of the first entry with that difference, as listed */
    char ref[128], other[128];  /* the attribute on the reference and on the other fs */
    int nentries;               /* entries that differ in any way */
};

/* "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
 * "xattr-names", "xattr-value"; "-" for CLS_NONE. */
const char *cls_attr_name(enum cls_attr a);
/* The attribute called name, or -1. */
int cls_attr_by_name(const char *name);

/* Compares two listings, one entry per line ("PATH TYPE MODE NLINK UID GID SIZE DATA XATTRS").
 * Returns 1 with d filled when they differ, 0 when they are equal, -1 when a line is not a
 * listing line (d->entry names it). */
int classify_listings(const char *ref, const char *other, struct state_diff *d);

#endif
