/* emit-c's concurrent step: the C of a program that issues the last step's calls at once and holds them against the reference's serial orders. */
#ifndef METIS_EMITC_TOGETHER_H
#define METIS_EMITC_TOGETHER_H

#include <stdio.h>
#include "emit.h"

/* Writes together_try(): the calls at once, a thread each released by a barrier, then 1 when no
 * serial order's outcome and tree on the reference is what they did (0 without a concurrent
 * step at the end). */
void emitc_together(FILE *f, const struct emit *e);

#endif
