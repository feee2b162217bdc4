/* The known delta of a search path: the differences in attributes alone (mode, owner, link count, xattrs) of entries both trees have, below which the search goes on comparing everything else. */
#ifndef METIS_TREE_DELTA_H
#define METIS_TREE_DELTA_H

#include <stddef.h>
#include "classify.h"

/* A set of attribute differences, sorted and without repeats: "mode<TAB>bits 0001" (the mode
 * bits that differ), "nlink<TAB>+1" (the other's link count less the reference's),
 * "xattr-names<TAB>+NAME" (only the other fs has it; "-NAME": only the reference),
 * "xattr-value<TAB>NAME<TAB>REF<TAB>OTHER", or "owner<TAB>REF<TAB>OTHER". The entry's path is
 * left out: a rename or a link carries a difference to another name, and it stays the same
 * difference. */
struct tree_delta {
    char **item;
    size_t n;
};

enum delta_verdict {
    DELTA_EQUAL,                /* the trees are alike */
    DELTA_ATTRS,                /* every difference is an attribute of an entry on both sides */
    DELTA_STRUCTURE,            /* an entry is missing or extra, or differs in type, size,
                                   content or symlink target */
};

/* Compares two listings (tree.h's lines, any order). now gets every attribute difference
 * (DELTA_ATTRS only; empty otherwise); fresh the first entry (in path order) of the most
 * telling difference that known does not hold (known may be NULL: none; a difference in
 * structure is never known), or TREE_DIFF_NONE when known holds them all; with known NULL it
 * is what classify_listings finds. Returns a delta_verdict, or -1 when a line is no listing
 * line (fresh->entry names it) or memory ran out. */
int tree_delta_compare(const char *ref, const char *other, const struct tree_delta *known,
                       struct tree_delta *now, struct state_diff *fresh);
/* 1 when d holds item. */
int tree_delta_has(const struct tree_delta *d, const char *item);
void tree_delta_free(struct tree_delta *d);

#endif
