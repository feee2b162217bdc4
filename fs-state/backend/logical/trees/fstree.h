/* Recorded trees of a mounted file system: what logical restore diffs against (see fstree.c). */
#ifndef METIS_FSTREE_H
#define METIS_FSTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <uthash.h>
#include "tree/digest.h"

#define FT_BLOCK TREE_BLOCK        /* extents a digest takes are aligned to it */

/* 4096 bytes of file data (zero-padded past EOF), stored once however many files and states
 * hold them; pointer equality means equal bytes. */
struct ft_block {
    UT_hash_handle hh;
    uint64_t key;
    uint32_t refs;
    unsigned char data[FT_BLOCK];
};

struct ft_ext {
    uint64_t idx;               /* block number: bytes idx * FT_BLOCK .. */
    struct ft_block *blk;
};

struct ft_xattr {
    char *name;
    void *value;
    size_t len;
};

/* One path of a tree; immutable once made, shared by every tree in which it is the same. */
struct ft_entry {
    uint32_t refs;
    char *path;                 /* "/" for the root, else "/a/b" */
    mode_t mode;                /* type and permission bits */
    nlink_t nlink;
    uid_t uid;
    gid_t gid;
    off_t size;
    char *target;               /* symlinks: tlen bytes and a NUL */
    size_t tlen;
    struct ft_ext *blocks;      /* regular files: data blocks below EOF, ascending; holes absent */
    size_t nblocks;
    struct ft_xattr *xattrs;    /* regular files and directories, sorted by name */
    size_t nx;
    char *line;                 /* its digest line with the store's options, once made */
    size_t line_len;
};

/* A whole tree, entries sorted by path (so a parent comes before its children). */
struct ft_tree {
    uint32_t refs;
    struct ft_entry **ents;
    size_t n;
    long *leader;               /* hard links: the first index with the same inode, else itself */
    long *next;                 /* the next index with the same inode, or -1 */
    long root_nlink_adj;        /* excluded directories in the root (not in its nlink digest) */
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
};

struct ft_scratch;

/* Everything trees share: the block table, the options their digests use, walk buffers. */
struct ft_store {
    struct ft_block *blocks;
    uint64_t bytes;             /* held by blocks and entries, for memory reports */
    struct tree_opts opts;
    char hash[32], exclude[600];
    struct ft_scratch *s;
};

/* Sets the store up: its digests use hash, exclude (root names left out) and ignore. */
int ft_store_init(struct ft_store *st, const char *hash, const char *exclude, unsigned ignore);
void ft_store_free(struct ft_store *st);

/* Walks the tree below rootfd into a new tree (refs 1) with its digest; entries equal to
 * prev's (may be NULL) are shared with it. NULL with errno on failure. */
struct ft_tree *ft_record(struct ft_store *st, int rootfd, const struct ft_tree *prev);
/* The digest of t with options o (NULL: the store's), the one tree_digest makes of the
 * same tree; its length or -1 with errno. listing, if not NULL, gets one line per entry. */
/* 1 if a digest with options a is the one the store's (b) makes, which recorded trees cache. */
int ft_same_opts(const struct tree_opts *a, const struct tree_opts *b);
int ft_digest(struct ft_store *st, const struct ft_tree *t, const struct tree_opts *o,
              unsigned char *out, FILE *listing);
/* t's entries into index (what the input driver draws paths from); 0, or -1 with errno. */
int ft_index(const struct ft_tree *t, struct tree_index *index);
/* 1 if a and b have the same paths and the same hard-link groups (digests leave links out). */
int ft_same_links(const struct ft_tree *a, const struct ft_tree *b);
/* The first entry where a and b differ: "A_LABEL '<a's line>', B_LABEL '<b's line>'". */
void ft_first_difference(struct ft_store *st, const struct ft_tree *a, const char *a_label,
                         const struct ft_tree *b, const char *b_label, char *out, size_t outlen);

/* t's listing (tree.h's lines with the store's options), malloc'd; NULL when out of memory. */
char *ft_listing(struct ft_store *st, const struct ft_tree *t);

struct ft_tree *ft_ref(struct ft_tree *t);
void ft_unref(struct ft_store *st, struct ft_tree *t);

#endif
