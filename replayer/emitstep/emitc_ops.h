/* emit-c's per-operation part: one emitter per operation of METIS_OPS, writing the C statement of its syscall. */
#ifndef METIS_EMITC_OPS_H
#define METIS_EMITC_OPS_H

#include <stdio.h>
#include "engine/ops/ops.h"

/* Writes a's syscall as C statements that set the program's `long r` (errno kept from the call). */
typedef void emitc_op_fn(FILE *f, const struct op_args *a);
/* The emitter of op, or NULL when op is out of range. */
emitc_op_fn *emitc_emitter(enum op_id op);
/* Writes s as a C string literal, quotes included. */
void emitc_cstr(FILE *f, const char *s);

#endif
