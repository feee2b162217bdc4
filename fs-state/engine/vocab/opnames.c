/* Operation and variant names, spelled once (METIS_OPS, the variant table) so enums, configs and reports cannot drift. */
#include "engine/vocab/opnames.h"
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

static const char *const names[OP_COUNT] = {
#define OPNAME_STRING(n) #n,
    METIS_OPS(OPNAME_STRING)
#undef OPNAME_STRING
};

const char *op_name(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? names[op] : "?";
}

int op_lookup(const char *name)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* Each variant's operation, name and the value its draw gives (fallocate mode, S_IF* type,
 * open_unlink action, rename or setxattr flags). PUNCH_HOLE is drawn with KEEP_SIZE only: Linux refuses it alone. */
static const struct {
    enum op_id op;
    const char *name;
    unsigned value;
} variants[] = {
    { OP_fallocate_file, "allocate", 0 },
    { OP_fallocate_file, "keep_size", FALLOC_FL_KEEP_SIZE },
    { OP_fallocate_file, "punch_hole", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE },
    { OP_fallocate_file, "zero_range", FALLOC_FL_ZERO_RANGE },
    { OP_fallocate_file, "zero_range_keep", FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE },
    { OP_fallocate_file, "collapse", FALLOC_FL_COLLAPSE_RANGE },
    { OP_fallocate_file, "insert", FALLOC_FL_INSERT_RANGE },
    { OP_mknod, "fifo", S_IFIFO },
    { OP_mknod, "socket", S_IFSOCK },
    { OP_mknod, "chr", S_IFCHR },
    { OP_mknod, "blk", S_IFBLK },
    { OP_open_unlink, "fd_write", OU_WRITE },
    { OP_open_unlink, "fd_truncate", OU_TRUNCATE },
    { OP_rename, "plain", 0 },
    { OP_rename, "noreplace", RENAME_NOREPLACE },
    { OP_rename, "exchange", RENAME_EXCHANGE },
    { OP_setxattr, "either", 0 },
    { OP_setxattr, "create", XATTR_CREATE },
    { OP_setxattr, "replace", XATTR_REPLACE },
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

int op_variant_count(void)
{
    return NVARIANTS;
}

const char *op_variant_name(int v)
{
    return v >= 0 && v < NVARIANTS ? variants[v].name : "?";
}

enum op_id op_variant_op(int v)
{
    return v >= 0 && v < NVARIANTS ? variants[v].op : OP_COUNT;
}

unsigned op_variant_value(int v)
{
    return v >= 0 && v < NVARIANTS ? variants[v].value : 0;
}

int op_variant_lookup(const char *name)
{
    for (int v = 0; v < NVARIANTS; v++)
        if (strcmp(variants[v].name, name) == 0)
            return v;
    return -1;
}

int op_variant_find(enum op_id op, unsigned value)
{
    for (int v = 0; v < NVARIANTS; v++)
        if (variants[v].op == op && variants[v].value == value)
            return v;
    return -1;
}
