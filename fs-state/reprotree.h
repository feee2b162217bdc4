/* Tree listing and comparison of standalone reproducers (reprotree.c); emit-c copies this header and that file into every program it writes. */
#ifndef METIS_REPROTREE_H
#define METIS_REPROTREE_H

#include <stddef.h>

/* A tree as sorted lines, one entry each: "PATH\tTYPE\tMODE\tUID\tGID\tNLINK\tSIZE\tDATA\tXATTRS".
 * DATA is the FNV-1a hash of a file's bytes or a symlink's target; a directory's size is "-"
 * (file systems count it each their own way); the root's link count leaves out the excluded
 * directories below it. */
struct rt_tree {
    char **v;
    size_t n, cap;
};

/* Attributes the comparison leaves out (Metis's [fs] ignore). */
enum { RT_IGNORE_DIR_NLINK = 1, RT_IGNORE_XATTRS = 2, RT_IGNORE_MODE = 4, RT_IGNORE_OWNER = 8 };

/* Lists the tree below rootfd into t (exclude: NULL-terminated root entries left out); 0, or
 * -1 with errno. */
int rt_list(int rootfd, const char *const *exclude, struct rt_tree *t);
void rt_free(struct rt_tree *t);
/* The xattr names of a listing's "[a=1:h,b=2:h]" without the values: "a,b". */
void rt_xnames(const char *x, char *out, size_t len);
/* Compares the tree got with the reference's listing ref (both sorted); prints every differing
 * entry and puts the most telling difference ("PATH: KIND: here X, reference Y") in first.
 * Returns how many entries differ. */
int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len);

#endif
