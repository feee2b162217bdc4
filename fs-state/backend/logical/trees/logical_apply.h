/* Logical restore: brings a mounted tree from one recorded state to another with ordinary calls. */
#ifndef METIS_LOGICAL_H
#define METIS_LOGICAL_H

#include <stddef.h>
#include "backend/logical/trees/fstree.h"
#include "lib/text/buf.h"

/* Calls made by one logical_apply, for the summary. */
struct lg_counts {
    uint64_t removed, created, rewritten, meta;
};

/*
 * Changes the tree below rootfd, which holds from, into to: removes what to lacks, creates
 * what it adds (directories, files, symlinks, fifos, hard links), rewrites the data blocks
 * that differ (holes stay holes), then owners, modes and xattrs. Calls for attributes in
 * ignore (TREE_IGNORE_*) may fail. Every call is one of rcalls.h, self-contained, and when
 * journal is not NULL it is appended there as a line "call ret=R errno=E KIND ARGS" (what a
 * replay of the fs's history repeats). 0, or -1 with the failing call in err.
 */
int logical_apply(int rootfd, const struct ft_tree *from, const struct ft_tree *to,
                  unsigned ignore, struct lg_counts *n, struct buf *journal, char *err,
                  size_t errlen);

#endif
