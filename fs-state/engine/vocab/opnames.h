/* The operations Metis drives and their names: the one list behind the config's [ops] keys, the log and the reports. */
#ifndef METIS_OPNAMES_H
#define METIS_OPNAMES_H

/* One line per operation. Every per-operation table is built from this list and finds its
 * entry by the operation's name, so adding an operation is a line here plus, named after it:
 * draw_NAME, exec_NAME and FIELDS_NAME (its text form) in ops.c, REACH_NAME in reach.c,
 * POOL_NAME in replayer/trace/check.c and emit_NAME in replayer/emitstep/emitc_ops.c. A missing one does not
 * compile; its [ops] key comes from its name (config_keys.c), and tests/unit/ops/metis_optable.c
 * checks every table again. */
#define METIS_OPS(X) \
    X(create_file)   \
    X(write_file)    \
    X(truncate)      \
    X(fallocate_file)\
    X(chmod)         \
    X(chown_file)    \
    X(chgrp_file)    \
    X(unlink)        \
    X(mkdir)         \
    X(rmdir)         \
    X(rename)        \
    X(link)          \
    X(symlink)       \
    X(setxattr)      \
    X(removexattr)   \
    X(copy_range)    \
    X(mknod)         \
    X(open_unlink)   \
    X(utimes)

enum op_id {
#define METIS_OP_ENUM(n) OP_##n,
    METIS_OPS(METIS_OP_ENUM)
#undef METIS_OP_ENUM
    OP_COUNT
};

const char *op_name(enum op_id op);         /* "?" when out of range */
int op_lookup(const char *name);            /* -1 if unknown */

/* Variants: the kinds of one operation that file systems support apart and the reach table
 * counts apart: a fallocate mode, a mknod file type, what open_unlink does through its fd,
 * rename's flags (plain, noreplace, exchange), setxattr's (either, create, replace). Classes are
 * signed by them, so one cause found through several variants stays apart only where the
 * variants differ.
 * Ids are 0 .. op_variant_count()-1, in the order of the config's choices; a name is unique
 * among variants and operations, so `unsupported = collapse,mknod` can mix both. */
int op_variant_count(void);
const char *op_variant_name(int v);         /* "?" when out of range */
enum op_id op_variant_op(int v);
unsigned op_variant_value(int v);           /* fallocate mode, S_IF* type, OU_* action or flags */
int op_variant_lookup(const char *name);    /* -1 if unknown */
int op_variant_find(enum op_id op, unsigned value);   /* -1 if no variant of op has value */

/* open_unlink's actions: its flags field. */
enum { OU_WRITE = 0, OU_TRUNCATE = 1 };

#endif
