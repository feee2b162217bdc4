/* emit-c's part for a history's restore calls: the one implementation of the calls, pasted into the program, and each call as a step that is shown, not judged. */
#ifndef METIS_EMITC_CALLS_H
#define METIS_EMITC_CALLS_H

#include <stdio.h>
#include "trace/trace.h"

/* The program's support of calls (once, when the trace has any): backend/logical/calls/rcalls.c and
 * lib/system/beneath.c as text, the mount's root for them, the line a call step prints, and
 * which calls the fs the program runs on makes (call_here). */
struct emit;
void emitc_calls_support(FILE *f, const struct emit *e);
/* "if (!call_here(FS...))": the statement after it runs on a fs that does not make call op in a
 * replay (trace_call_made_on; the program's call_here, which emitc_calls_support writes). */
void emitc_call_guard(FILE *f, const struct emit *e, const struct trace_op *op);
/* Call op as C statements that set the program's `long r` (errno kept from the call). */
void emitc_call(FILE *f, const struct trace_op *op);
/* A short one-line text of call op for the program's output and comments. */
void emitc_call_text(const struct trace_op *op, const char *fs, char *out, size_t len);

#endif
