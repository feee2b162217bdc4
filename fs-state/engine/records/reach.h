/* Reach table: per file system, operation and variant, how often it was tried, succeeded, was skipped, and failed with each errno. */
#ifndef METIS_REACH_H
#define METIS_REACH_H

#include <stdint.h>
#include <stdio.h>
#include "lib/text/errnos.h"
#include "engine/ops/ops.h"

#define REACH_MAX_ERRNO ERRNO_MAX
#define REACH_MAX_FS 8
#define REACH_MAX_VARIANTS 32
#define REACH_ROWS (OP_COUNT + REACH_MAX_VARIANTS)  /* operations, then their variants */

struct reach_row {
    uint64_t tried, ok;
    uint64_t skipped;            /* not run: another fs lists it unsupported and refused it */
    uint64_t err[REACH_MAX_ERRNO];
};

struct reach {
    int nfs;                     /* file systems counted so far; fs 0 is the reference */
    uint64_t lacked_ops, lacked_variants;   /* never drawn ([fs] lacks): rows saying so */
    const char *fsname[REACH_MAX_FS];
    struct reach_row row[REACH_MAX_FS][REACH_ROWS];
};

/* The errnos RefFS's errno table gives op (reach.c), ending with 0; NULL when op is out of range. */
const int *reach_errnos(enum op_id op);
/* Counts fs's outcome of a (fsname must outlive r). */
void reach_count(struct reach *r, int fs, const char *fsname, const struct op_args *a,
                 const struct op_result *res, int skipped);
void reach_write_text(const struct reach *r, const int *weights, FILE *f);
/* The reference's rows at the top level (as before variants and file systems were counted),
 * "OP/VARIANT" rows beside them, and every fs's counts under each row's "fs". */
void reach_write_json(const struct reach *r, FILE *f);
/* Lists the enabled operations and the tried variants that never succeeded on the reference;
 * returns how many operations. */
int reach_print_unreached(const struct reach *r, const int *weights, FILE *f);

#endif
