/* The digest of a tree (OpenSSL): what the engine compares, over the sorted listing lines of tree.h, from a walk or from entries handed over. */
#ifndef METIS_TREE_DIGEST_H
#define METIS_TREE_DIGEST_H

#include <stdio.h>

#include "canon.h"
#include "tree.h"

#define TREE_MAX_DIGEST 64

/* The entries of one read-back, sorted by path: what the input driver draws existing paths
 * from, taken from the digest's own pass so that it costs no system call. */
struct tree_index_entry {
    size_t path;                    /* offset of the NUL-terminated path in names */
    mode_t mode;
    uint64_t nlink, size;
};
struct tree_index {
    struct tree_index_entry *e;
    size_t n, cap;
    char *names;
    size_t len, ncap;
};
/* Appends an entry (in path order); 0, or -1 with errno. */
int tree_index_add(struct tree_index *t, const char *path, mode_t mode, uint64_t nlink,
                   uint64_t size);
void tree_index_free(struct tree_index *t);

/* The length of the digest o->hash names (NULL: md5); -1 if OpenSSL does not know it. */
int tree_digest_len(const char *hash);

/* Walks the tree below rootfd (tree_walk) and writes its digest to out: the digest of the
 * listing lines sorted by path, each with its newline. listing (or NULL) gets those lines;
 * index (or NULL) the entries. The digest's length, or -1 with errno. */
int tree_digest(int rootfd, const struct tree_opts *o, unsigned char *out, FILE *listing,
                struct tree_index *index);

/* The same digest from entries a file system hands over itself (fd -1, in any order; the
 * caller leaves out excluded root entries, see tree_excluded): tree_digest_begin,
 * tree_digest_add for each, tree_digest_end (as tree_digest). Each 0, or -1 with errno. Per
 * thread: one digest at a time in each. */
int tree_digest_begin(const struct tree_opts *o);
int tree_digest_add(const struct tree_entry *e);
int tree_digest_end(unsigned char *out, FILE *listing, struct tree_index *index);
/* tree_digest_add of an entry decoded from raw_len bytes at raw, which say all its line
 * depends on (with e->nlink_adj and the options): the same bytes at the same path as in an
 * earlier digest of this thread reuse that digest's line. */
int tree_digest_add_raw(const struct tree_entry *e, const void *raw, size_t raw_len);
/* For callers that keep entries from one digest to the next (logical restore's trees): e's
 * line into *line (malloc'd, no newline), its length or -1 with errno; between begin and end,
 * adding nothing. tree_digest_add_line adds an entry by such a line, so that an unchanged
 * entry's contents are not hashed again. */
int tree_digest_entry_line(const struct tree_entry *e, char **line);
int tree_digest_add_line(const char *path, const char *line, size_t len);

/* From now on the calling thread's digests also make the canonical digest of their lines
 * under kinds (tree/canon.h), which tree_digest_canon_last then gives (its length, or -1 when
 * the last digest made none); NULL: no more. No listing is needed for it: a listing asked of
 * RefFS costs a walk of its mount besides its dump. */
void tree_digest_canon(const struct tree_canon_kinds *kinds);
int tree_digest_canon_last(unsigned char *out);

/* The listing a digest writes, as text: list(ctx, listing) digests a tree with the listing
 * going to a memory stream, and returns < 0 on failure. The text (malloc'd), or NULL. */
typedef int tree_list_fn(void *ctx, FILE *listing);
char *tree_listing_text(tree_list_fn *list, void *ctx);

#endif
