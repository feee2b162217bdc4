/* The ranking of differences between two tree listings, written once: Metis's classifier and every reproducer (emit-c pastes diff.h and diff.c) compare with it. */
#ifndef METIS_TREE_DIFF_H
#define METIS_TREE_DIFF_H

#include <stddef.h>
#include "tree.h"

/* What differs between two trees, most telling first: when several entries differ, the kind
 * that comes first here names the difference (a directory missing on one side also changes
 * its parent's link count, but "missing" says what happened). */
enum tree_diff {
    TREE_DIFF_NONE = 0,         /* no difference (or the trees could not be read) */
    TREE_DIFF_MISSING,          /* an entry of the reference is not on the other fs */
    TREE_DIFF_EXTRA,            /* an entry of the other fs is not on the reference */
    TREE_DIFF_TYPE, TREE_DIFF_MODE, TREE_DIFF_OWNER, TREE_DIFF_NLINK, TREE_DIFF_SIZE,
    TREE_DIFF_CONTENT, TREE_DIFF_TARGET, TREE_DIFF_XATTR_NAMES, TREE_DIFF_XATTR_VALUE,
    TREE_DIFF_COUNT
};

/* "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
 * "xattr-names", "xattr-value"; "-" for TREE_DIFF_NONE. */
const char *tree_diff_name(enum tree_diff k);
/* The kind called name, or -1. */
int tree_diff_by_name(const char *name);


/* One listing line cut into fields; each points into the line, which is not copied. A line ends
 * at '\n' or '\0'. With compare_mtime the m= field and DATA make one DATA field: an mtime
 * difference is named "content" (as Metis's classes have always named it), and a content
 * difference stays one (before, it fell into XATTRS and was named as an xattr difference). */
struct tree_fields {
    const char *s[TREE_F_COUNT];
    int len[TREE_F_COUNT];
};

/* Cuts line into e. Returns 0, or -1 when a field is empty or missing (missing ones are then
 * empty, so a caller may still compare what there is). */
int tree_fields_split(const char *line, struct tree_fields *e);

/* The attribute of kind k of e as messages show it: the owner as "uid:gid", xattr names without
 * their values for xattr-names, a content digest or target cut to data_chars, any other field to
 * 200 characters; "(none)" when e is NULL (the entry is absent on that side). */
void tree_diff_value(const struct tree_fields *e, enum tree_diff k, int data_chars, char *out,
                     size_t len);

/* Every kind in which entry b differs from entry a (same path), as bits 1 << kind, leaving out
 * the attributes ignore names (TREE_IGNORE_*); a type difference alone when the types differ. */
unsigned tree_diff_entry_kinds(const struct tree_fields *a, const struct tree_fields *b,
                               unsigned ignore);

/* One differing entry: ref is NULL for an extra entry, got for a missing one. best is 1 when it
 * is the most telling so far: the first entry, in path order, of the most telling kind. */
typedef void tree_diff_fn(void *ctx, enum tree_diff k, const struct tree_fields *ref,
                          const struct tree_fields *got, int best);

/* Compares two listings sorted by path (lines as tree_fields_split takes them) and calls fn for
 * every entry that differs; returns how many do. */
int tree_diff_listings(const char *const *ref, size_t nref, const char *const *got, size_t ngot,
                       unsigned ignore, tree_diff_fn *fn, void *ctx);

#endif
