/* Hints for known kernel and FUSE behaviours a discrepancy may match; a hint never hides or reclassifies it. */
#ifndef METIS_HINTS_H
#define METIS_HINTS_H

#include <stddef.h>
#include "tree/classify.h"
#include "engine/config/config.h"
#include "engine/ops/ops.h"

/* One discrepancy of one fs against the reference, as far as the hints look at it. */
struct hint_case {
    const struct metis_config *cfg;
    int fs;                             /* the fs that differs (config index, never 0) */
    const struct op_args *a;            /* the operation; NULL for the initial state */
    unsigned kinds;                     /* DIFF_* (differs.h) */
    struct op_result ref, res;          /* the reference's outcome and the fs's */
    const struct state_diff *d;         /* the first state difference; NULL without one */
};

/* Writes every hint that applies to out, one sentence each separated by a space; returns how
 * many apply (0 leaves out empty). */
int hints_find(const struct hint_case *c, char *out, size_t len);

/* The probable cause the first matching rule names: its short id into id (stable from run to
 * run: "tmpfs-root-mode"; a refusal's is its family's, "lacks:fallocate", whatever its flag)
 * and its title as the result; NULL (id "") when no rule matches. */
const char *hints_cause(const struct hint_case *c, char *id, size_t len);

/* The lacks word that would declare what the fs refused (EOPNOTSUPP, ENOSYS, EPERM, or EINVAL
 * for a flag, whatever the reference answered): "fallocate:punch_hole"; NULL when it is no
 * such refusal. */
const char *hints_lacks_word(const struct hint_case *c);
/* A lacks word's family, the part before ':': "fallocate" of "fallocate:punch_hole". */
void hints_lacks_family(const char *word, char *out, size_t len);

#endif
