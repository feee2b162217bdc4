/* The operations Metis drives and their names: the one list behind the config's [ops] keys, the log and the reports. */
#ifndef METIS_OPNAMES_H
#define METIS_OPNAMES_H

/* One line per operation: adding an operation is a line here plus its draw/exec/format in ops.c. */
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
    X(removexattr)

enum op_id {
#define METIS_OP_ENUM(n) OP_##n,
    METIS_OPS(METIS_OP_ENUM)
#undef METIS_OP_ENUM
    OP_COUNT
};

const char *op_name(enum op_id op);         /* "?" when out of range */
int op_lookup(const char *name);            /* -1 if unknown */

#endif
