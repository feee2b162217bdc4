/* Reach table: per operation, how often it was tried, succeeded, and failed with each errno. */
#ifndef METIS_REACH_H
#define METIS_REACH_H

#include <stdint.h>
#include <stdio.h>
#include "errnos.h"
#include "ops.h"

#define REACH_MAX_ERRNO ERRNO_MAX

struct reach {
    uint64_t tried[OP_COUNT];
    uint64_t ok[OP_COUNT];
    uint64_t err[OP_COUNT][REACH_MAX_ERRNO];
};

void reach_count(struct reach *r, enum op_id op, const struct op_result *res);
void reach_write_text(const struct reach *r, const int *weights, FILE *f);
void reach_write_json(const struct reach *r, FILE *f);
/* Lists the enabled operations that never succeeded; returns how many. */
int reach_print_unreached(const struct reach *r, const int *weights, FILE *f);

#endif
