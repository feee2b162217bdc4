/* The canonical digest of a listing up to renaming names of one kind among themselves in each directory: what a bounded search with [run] symmetry = names matches states on. */
#ifndef METIS_TREE_CANON_H
#define METIS_TREE_CANON_H

#include <openssl/evp.h>
#include <stddef.h>

/* The interchangeable names: each set's names stand for one another wherever they occur (the
 * pool's file names, its directory names); any other name is kept as it is. */
struct tree_canon_kinds {
    const char *const *names[2];    /* kind 0's names, kind 1's */
    int n[2];
};

/* Writes to out the digest (md, hashed with ctx: the digest's own, tree/digest.c) of listing's tree with each entry's
 * name replaced by its kind and each directory's entries taken in the order of their own such
 * digests: two listings get one digest when and only when one is the other with names of one
 * kind permuted within directories (up to collisions of the hash). listing is a tree's listing
 * text (tree.h: one line per entry, PATH first). The digest's length, or -1 with errno. */
int tree_canon_digest(const char *listing, const EVP_MD *md, EVP_MD_CTX *ctx,
                      const struct tree_canon_kinds *k, unsigned char *out);

#endif
