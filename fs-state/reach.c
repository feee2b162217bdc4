/* Reach table implementation: counting outcomes and writing reach.txt and its JSON form. */
#include "reach.h"
#include "errnos.h"
#include "opnames.h"
#include <errno.h>
#include <string.h>

/* The errnos RefFS's errno table (reffs/README.md) gives the calls each operation makes,
 * the lookup of its path included. One never returned marks a rule no run has exercised;
 * which of them a pool can produce at all is tests/integration/reach_errnos.sh's business. */
#define LOOKUP ENOENT, ENOTDIR, ENAMETOOLONG
static const int reach_table[OP_COUNT][16] = {
    [OP_create_file]    = { LOOKUP, EEXIST, EPERM, EINVAL, ENOSPC },
    [OP_write_file]     = { LOOKUP, EISDIR, EINVAL, ENOSPC, EFBIG },
    [OP_truncate]       = { LOOKUP, EISDIR, EINVAL, EFBIG },
    [OP_fallocate_file] = { LOOKUP, EOPNOTSUPP, EINVAL, ENOSPC, EFBIG, EISDIR, ENODEV },
    [OP_chmod]          = { LOOKUP },
    [OP_chown_file]     = { LOOKUP },
    [OP_chgrp_file]     = { LOOKUP },
    [OP_unlink]         = { LOOKUP, EISDIR },
    [OP_mkdir]          = { LOOKUP, EEXIST, EMLINK, ENOSPC },
    [OP_rmdir]          = { LOOKUP, ENOTEMPTY, EINVAL },
    [OP_rename]         = { LOOKUP, EISDIR, EINVAL, ENOTEMPTY, EEXIST, EBUSY, EMLINK },
    [OP_link]           = { LOOKUP, EPERM, EEXIST, EMLINK },
    [OP_symlink]        = { LOOKUP, EEXIST, ENOSPC },
    [OP_setxattr]       = { LOOKUP, EEXIST, ENODATA, EINVAL, E2BIG, ERANGE, EOPNOTSUPP, EPERM, ENOSPC },
    [OP_removexattr]    = { LOOKUP, ENODATA, ERANGE, EOPNOTSUPP, EPERM },
};
#undef LOOKUP

/* Writes the errnos of op's table row that r never counted, each preceded by sep; returns how many. */
static int write_unseen(const struct reach *r, int op, FILE *f, const char *sep, const char *quote)
{
    int n = 0;
    for (int i = 0; i < 16 && reach_table[op][i]; i++) {
        int e = reach_table[op][i];
        if (e < REACH_MAX_ERRNO && r->err[op][e])
            continue;
        fprintf(f, "%s%s%s%s", n ? sep : "", quote, errno_name(e), quote);
        n++;
    }
    return n;
}

void reach_count(struct reach *r, enum op_id op, const struct op_result *res)
{
    r->tried[op]++;
    if (res->err == 0)
        r->ok[op]++;
    else if (res->err > 0 && res->err < REACH_MAX_ERRNO)
        r->err[op][res->err]++;
}

void reach_write_text(const struct reach *r, const int *weights, FILE *f)
{
    fprintf(f, "%-16s %10s %10s  %s  |  %s\n", "operation", "tried", "succeeded", "failed with",
            "never returned of RefFS's errno table");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!weights[op])
            continue;
        fprintf(f, "%-16s %10llu %10llu ", op_name(op), (unsigned long long)r->tried[op],
                (unsigned long long)r->ok[op]);
        for (int e = 1; e < REACH_MAX_ERRNO; e++)
            if (r->err[op][e])
                fprintf(f, " %s=%llu", errno_name(e), (unsigned long long)r->err[op][e]);
        fputs("  | ", f);
        write_unseen(r, op, f, " ", "");
        fputc('\n', f);
    }
}

void reach_write_json(const struct reach *r, FILE *f)
{
    fputc('{', f);
    for (int op = 0; op < OP_COUNT; op++) {
        fprintf(f, "%s\"%s\":{\"tried\":%llu,\"ok\":%llu,\"errors\":{", op ? "," : "",
                op_name(op), (unsigned long long)r->tried[op], (unsigned long long)r->ok[op]);
        int first = 1;
        for (int e = 1; e < REACH_MAX_ERRNO; e++) {
            if (!r->err[op][e])
                continue;
            fprintf(f, "%s\"%s\":%llu", first ? "" : ",", errno_name(e),
                    (unsigned long long)r->err[op][e]);
            first = 0;
        }
        fputs("},\"unseen\":[", f);
        write_unseen(r, op, f, ",", "\"");
        fputs("]}", f);
    }
    fputc('}', f);
}

int reach_print_unreached(const struct reach *r, const int *weights, FILE *f)
{
    int n = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!weights[op] || r->ok[op])
            continue;
        fprintf(f, "%s%s", n ? ", " : "never succeeded: ", op_name(op));
        n++;
    }
    if (n)
        fputc('\n', f);
    int shown = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!weights[op] || !r->tried[op])
            continue;
        fprintf(f, "%s%s ", shown ? "; " : "never returned (RefFS's errno table): ", op_name(op));
        if (!write_unseen(r, op, f, " ", ""))
            fputs("-", f);
        shown++;
    }
    if (shown)
        fputc('\n', f);
    return n;
}
