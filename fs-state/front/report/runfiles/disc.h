/* A discrepancy-N.txt read back for report.html: operation, outcomes, tree listings. */
#ifndef METIS_REPORT_DISC_H
#define METIS_REPORT_DISC_H

#include <stddef.h>
#include "tree/tree.h"

#define DISC_MAX_FS 8            /* as METIS_MAX_FS */
#define DISC_MAX_ENTRIES 5000    /* per tree; a pool's trees are far smaller */
#define DISC_NFIELDS (TREE_F_COUNT - 1)   /* after the path, in tree.h's listing order */

struct disc_outcome {
    char fs[64], ret[32], err[48], state[160];
    int ret_differs, errno_differs, state_differs;
};

struct disc_entry {
    char *path;                  /* as listed (escaped); owns the line's memory */
    const char *field[DISC_NFIELDS];
};

struct disc_tree {
    char fs[64], note[512];      /* note: why there is no listing (cannot mount, ...) */
    struct disc_entry *e;
    size_t n, cap;
    int truncated;
};

struct disc_file {
    char what[1024];             /* "operation 34: rmdir path=/d0" or the initial-state line */
    struct disc_outcome out[DISC_MAX_FS];
    struct disc_tree tree[DISC_MAX_FS];
    int nout, ntrees, nstates;
};

extern const char *const disc_field_name[DISC_NFIELDS];

/* 0, or -1 if the file cannot be read (d is then empty but may be freed). */
int disc_parse(const char *path, struct disc_file *d);
void disc_free(struct disc_file *d);

#endif
