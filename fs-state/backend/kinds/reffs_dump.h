/* RefFS tree dumps (REFFS_IOC_DUMP) digested into the abstract state (tree/digest.h), without a walk of the mount. */
#ifndef METIS_REFFS_DUMP_H
#define METIS_REFFS_DUMP_H

#include <stddef.h>
#include <stdio.h>
#include "tree/digest.h"

/* The digest tree_digest would compute on the mounted tree the dump describes (exclusions
 * and ignores of o applied), its length returned; listing and index as there. -1 with errno on
 * failure: EBADMSG for a dump that is cut short or malformed. */
int reffs_dump_digest(const void *buf, size_t len, const struct tree_opts *o,
                      unsigned char *out, FILE *listing, struct tree_index *index);

#endif
