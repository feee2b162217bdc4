/* Reach table implementation: counting outcomes and writing reach.txt and its JSON form. */
#include "reach.h"
#include <string.h>

const char *errno_name(int err)
{
    if (err == 0)
        return "0";
    const char *n = strerrorname_np(err);
    return n ? n : "E?";
}

int errno_by_name(const char *name)
{
    for (int e = 1; e < REACH_MAX_ERRNO; e++) {
        const char *n = strerrorname_np(e);
        if (n && strcmp(n, name) == 0)
            return e;
    }
    return -1;
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
    fprintf(f, "%-16s %10s %10s  %s\n", "operation", "tried", "succeeded", "failed with");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!weights[op])
            continue;
        fprintf(f, "%-16s %10llu %10llu ", op_name(op), (unsigned long long)r->tried[op],
                (unsigned long long)r->ok[op]);
        for (int e = 1; e < REACH_MAX_ERRNO; e++)
            if (r->err[op][e])
                fprintf(f, " %s=%llu", errno_name(e), (unsigned long long)r->err[op][e]);
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
        fputs("}}", f);
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
    return n;
}
