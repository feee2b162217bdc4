/* emit-c: a standalone C reproducer and its shell wrapper, written from a (minimal) trace. */
#ifndef METIS_EMITC_H
#define METIS_EMITC_H

#include <stddef.h>
#include "config.h"
#include "ops.h"

/* One operation of the initial state the engine's prepopulate() makes. */
struct prepop_op {
    struct op_args args;
    int only_if_created;        /* the write that follows a create runs only if it succeeded */
};

/* The operations prepopulate() runs for cfg, in its order; *n of them, malloc'ed. -1 when
 * the pool cannot be built. */
int emitc_prepopulate_ops(const struct metis_config *cfg, struct prepop_op **ops, size_t *n);

#endif
