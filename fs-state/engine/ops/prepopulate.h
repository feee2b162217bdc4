/* The initial state: the configured share of the name pool, made before the search starts. */
#ifndef METIS_PREPOPULATE_H
#define METIS_PREPOPULATE_H

#include <stddef.h>
#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"

/* The operations that make it, in order (malloc'ed; *n of them): directories first, then files
 * with a few bytes each. The same config and seed always give the same plan. */
int prepopulate_plan(const struct metis_config *cfg, const struct name_pool *pool,
                     struct op_args **ops, size_t *n);
/* Runs a plan on the file system at rootfd; an operation that fails (its parent was not drawn)
 * fails the same way everywhere, so failures are part of the plan. */
void prepopulate_run(int rootfd, const struct op_args *ops, size_t n);

#endif
