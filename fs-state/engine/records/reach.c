/* Reach table implementation: counting outcomes per file system and variant, and writing reach.txt and its JSON form. */
#include "engine/records/reach.h"
#include "lib/text/errnos.h"
#include "engine/vocab/opnames.h"
#include <errno.h>
#include <string.h>

/* The errnos RefFS's errno table (reffs/README.md) gives the calls each operation makes,
 * the lookup of its path included. One never returned marks a rule no run has exercised;
 * which of them a pool can produce at all is tests/integration/search/reach_errnos.sh's business. */
#define LOOKUP ENOENT, ENOTDIR, ENAMETOOLONG
#define REACH_create_file    LOOKUP, EEXIST, EPERM, EINVAL, ENOSPC
#define REACH_write_file     LOOKUP, EISDIR, EINVAL, ENOSPC, EFBIG
#define REACH_truncate       LOOKUP, EISDIR, EINVAL, EFBIG
#define REACH_fallocate_file LOOKUP, EOPNOTSUPP, EINVAL, ENOSPC, EFBIG, EISDIR, ENODEV
#define REACH_chmod          LOOKUP
#define REACH_chown_file     LOOKUP
#define REACH_chgrp_file     LOOKUP
#define REACH_unlink         LOOKUP, EISDIR
#define REACH_mkdir          LOOKUP, EEXIST, EMLINK, ENOSPC
#define REACH_rmdir          LOOKUP, ENOTEMPTY, EINVAL
#define REACH_rename         LOOKUP, EISDIR, EINVAL, ENOTEMPTY, EEXIST, EBUSY, EMLINK
#define REACH_link           LOOKUP, EPERM, EEXIST, EMLINK
#define REACH_symlink        LOOKUP, EEXIST, ENOSPC
#define REACH_setxattr       LOOKUP, EEXIST, ENODATA, EINVAL, E2BIG, ERANGE, EOPNOTSUPP, EPERM, ENOSPC
#define REACH_removexattr    LOOKUP, ENODATA, ERANGE, EOPNOTSUPP, EPERM
#define REACH_copy_range     LOOKUP, EISDIR, EINVAL, ENOSPC, EFBIG
#define REACH_mknod          LOOKUP, EEXIST, ENOSPC
#define REACH_open_unlink    LOOKUP, EISDIR, EINVAL, ENOSPC, EFBIG
#define REACH_utimes         LOOKUP
#define REACH_ERRNOS 16         /* room for the longest row and its terminating 0 */

/* One row per operation of METIS_OPS: one without its REACH_NAME does not compile. */
static const int reach_table[OP_COUNT][REACH_ERRNOS] = {
#define REACH_ROW(n) [OP_##n] = { REACH_##n },
    METIS_OPS(REACH_ROW)
#undef REACH_ROW
};

const int *reach_errnos(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? reach_table[op] : NULL;
}

static int nrows(void)
{
    int nv = op_variant_count();
    return OP_COUNT + (nv < REACH_MAX_VARIANTS ? nv : REACH_MAX_VARIANTS);
}

/* "create_file", or "fallocate_file/punch_hole" for a variant's row. */
static const char *row_name(int row, char *buf, size_t len)
{
    if (row < OP_COUNT)
        return op_name(row);
    int v = row - OP_COUNT;
    snprintf(buf, len, "%s/%s", op_name(op_variant_op(v)), op_variant_name(v));
    return buf;
}

static enum op_id row_op(int row)
{
    return row < OP_COUNT ? (enum op_id)row : op_variant_op(row - OP_COUNT);
}

/* Writes the errnos of op's table row that c never counted, each preceded by sep; returns how many. */
static int write_unseen(const struct reach_row *c, int op, FILE *f, const char *sep, const char *quote)
{
    int n = 0;
    for (int i = 0; i < REACH_ERRNOS && reach_table[op][i]; i++) {
        int e = reach_table[op][i];
        if (e < REACH_MAX_ERRNO && c->err[e])
            continue;
        fprintf(f, "%s%s%s%s", n ? sep : "", quote, errno_name(e), quote);
        n++;
    }
    return n;
}

static void count_row(struct reach_row *c, const struct op_result *res, int skipped)
{
    c->tried++;
    if (skipped)
        c->skipped++;
    else if (res->err == 0)
        c->ok++;
    else if (res->err > 0 && res->err < REACH_MAX_ERRNO)
        c->err[res->err]++;
}

void reach_count(struct reach *r, int fs, const char *fsname, const struct op_args *a,
                 const struct op_result *res, int skipped)
{
    if (fs < 0 || fs >= REACH_MAX_FS || (unsigned)a->op >= OP_COUNT)
        return;
    r->fsname[fs] = fsname;
    if (fs >= r->nfs)
        r->nfs = fs + 1;
    count_row(&r->row[fs][a->op], res, skipped);
    int v = op_variant_of(a);
    if (v >= 0 && v < REACH_MAX_VARIANTS)
        count_row(&r->row[fs][OP_COUNT + v], res, skipped);
}

static void text_row(const struct reach_row *c, int row, FILE *f)
{
    char name[64];
    fprintf(f, "%-26s %10llu %10llu ", row_name(row, name, sizeof name),
            (unsigned long long)c->tried, (unsigned long long)c->ok);
    if (c->skipped)
        fprintf(f, " skipped=%llu", (unsigned long long)c->skipped);
    for (int e = 1; e < REACH_MAX_ERRNO; e++)
        if (c->err[e])
            fprintf(f, " %s=%llu", errno_name(e), (unsigned long long)c->err[e]);
    fputs("  | ", f);
    if (row < OP_COUNT)
        write_unseen(c, row, f, " ", "");
    fputc('\n', f);
}

/* 1 when row's operation or variant is never drawn because a fs of the run lacks it. */
static int lacked_row(const struct reach *r, int row)
{
    if (row < OP_COUNT)
        return (r->lacked_ops >> row) & 1;
    return ((r->lacked_variants >> (row - OP_COUNT)) & 1) && !((r->lacked_ops >> row_op(row)) & 1);
}

static void lacked_text_row(int row, FILE *f)
{
    char name[64];
    fprintf(f, "%-26s %10d %10d  never drawn: lacked ([fs] lacks)\n",
            row_name(row, name, sizeof name), 0, 0);
}

/* One table per file system: every enabled operation, each variant it tried, and what lacks
 * declarations keep out of the draw. */
static void text_table(const struct reach *r, int fs, const int *weights, FILE *f)
{
    if (r->nfs > 1)
        fprintf(f, "%sreach of %s%s\n", fs ? "\n" : "", r->fsname[fs] ? r->fsname[fs] : "?",
                fs ? "" : " (the reference)");
    fprintf(f, "%-26s %10s %10s  %s  |  %s\n", "operation", "tried", "succeeded", "failed with",
            "never returned of RefFS's errno table");
    for (int row = 0; row < nrows(); row++) {
        const struct reach_row *c = &r->row[fs][row];
        if (lacked_row(r, row) && !c->tried)
            lacked_text_row(row, f);
        if (!weights[row_op(row)] || (row >= OP_COUNT && !c->tried))
            continue;
        text_row(c, row, f);
    }
}

void reach_write_text(const struct reach *r, const int *weights, FILE *f)
{
    for (int fs = 0; fs < (r->nfs ? r->nfs : 1); fs++)
        text_table(r, fs, weights, f);
    if (r->nfs > 1)
        fputs("\nskipped: not run on this fs, because a fs that lists it `unsupported` refused it\n", f);
}

static void json_counts(const struct reach_row *c, FILE *f)
{
    fprintf(f, "\"tried\":%llu,\"ok\":%llu,\"skipped\":%llu,\"errors\":{",
            (unsigned long long)c->tried, (unsigned long long)c->ok, (unsigned long long)c->skipped);
    int first = 1;
    for (int e = 1; e < REACH_MAX_ERRNO; e++) {
        if (!c->err[e])
            continue;
        fprintf(f, "%s\"%s\":%llu", first ? "" : ",", errno_name(e), (unsigned long long)c->err[e]);
        first = 0;
    }
    fputc('}', f);
}

static void json_row(const struct reach *r, int row, FILE *f)
{
    char name[64];
    fprintf(f, "\"%s\":{", row_name(row, name, sizeof name));
    json_counts(&r->row[0][row], f);
    fputs(",\"unseen\":[", f);
    if (row < OP_COUNT)
        write_unseen(&r->row[0][row], row, f, ",", "\"");
    fputs("],\"fs\":{", f);
    for (int fs = 0; fs < r->nfs; fs++) {
        fprintf(f, "%s\"%s\":{", fs ? "," : "", r->fsname[fs] ? r->fsname[fs] : "?");
        json_counts(&r->row[fs][row], f);
        fputc('}', f);
    }
    fputs("}}", f);
}

void reach_write_json(const struct reach *r, FILE *f)
{
    int n = 0;
    fputc('{', f);
    for (int row = 0; row < nrows(); row++) {
        int tried = 0;
        for (int fs = 0; fs < r->nfs; fs++)
            tried |= r->row[fs][row].tried > 0;
        if (row >= OP_COUNT && !tried)
            continue;
        fputs(n++ ? "," : "", f);
        json_row(r, row, f);
    }
    fputc('}', f);
}

int reach_print_unreached(const struct reach *r, const int *weights, FILE *f)
{
    char name[64];
    int n = 0, shown = 0;
    for (int row = 0; row < nrows(); row++) {
        const struct reach_row *c = &r->row[0][row];
        if (!weights[row_op(row)] || c->ok || (row >= OP_COUNT && !c->tried))
            continue;
        fprintf(f, "%s%s", n + shown ? ", " : "never succeeded: ", row_name(row, name, sizeof name));
        if (row < OP_COUNT)
            n++;
        else
            shown++;
    }
    if (n + shown)
        fputc('\n', f);
    shown = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!weights[op] || !r->row[0][op].tried)
            continue;
        fprintf(f, "%s%s ", shown ? "; " : "never returned (RefFS's errno table): ", op_name(op));
        if (!write_unseen(&r->row[0][op], op, f, " ", ""))
            fputs("-", f);
        shown++;
    }
    if (shown)
        fputc('\n', f);
    return n;
}
