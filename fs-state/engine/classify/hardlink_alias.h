/* The cause of a class on a path-based FUSE daemon whose operation met a file of several names: to the kernel each name is an inode of its own. */
#ifndef METIS_HARDLINK_ALIAS_H
#define METIS_HARDLINK_ALIAS_H

#include "engine/classify/classes.h"
#include "engine/ops/ops.h"

/* 1 when class c of a FUSE fs is of a kind two inodes for one file explain (another name's
 * size, content or link count; copy_file_range's outcome), so that the reference's tree is
 * worth reading for alias_assign. */
int alias_may_apply(const struct dclass *c, const struct op_args *a);

/* Names c's cause when the operation's paths or the differing entry are, on the reference
 * (ref_listing, its tree as listed), a regular file with two links or more, or when the step
 * changed an entry that is none of its operation's names. 1 if it did. */
int alias_assign(struct dclass *c, const struct op_args *a, const char *ref_listing);

#endif
