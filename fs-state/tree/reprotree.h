/* Tree listing and comparison of standalone reproducers (reprotree.c); emit-c copies this header and that file into every program it writes. */
#ifndef METIS_REPROTREE_H
#define METIS_REPROTREE_H

#include <stddef.h>

#include "tree.h"

/* A tree as sorted lines, one entry each, in tree.h's listing format with the FNV-1a hash
 * (tree_fnv_hash) and nothing ignored: the root's link count leaves out the excluded
 * directories below it. */
struct rt_tree {
    char **v;
    size_t n, cap;
};

/* Lists the tree below rootfd into t (exclude: comma-separated root entries left out, as
 * tree_excluded reads them); 0, or -1 with errno. */
int rt_list(int rootfd, const char *exclude, struct rt_tree *t);
void rt_free(struct rt_tree *t);
/* Compares the tree got with the reference's listing ref (both sorted), leaving out what
 * ignore (TREE_IGNORE_*) names; prints every differing entry and puts the most telling difference
 * ("PATH: KIND: here X, reference Y", ranked by tree/diff.c) in first.
 * Returns how many entries differ. */
int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len);

#endif
