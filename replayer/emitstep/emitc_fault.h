/* emit-c for fault steps: the reproducer's run of a step on the faulty device, the daemon's source beside it, and the run.sh lines that arm it, mount the fs again and judge it. */
#ifndef METIS_EMITC_FAULT_H
#define METIS_EMITC_FAULT_H

#include <stdio.h>
#include "emit.h"

/* The fault of the trace's last step when run.sh checks it on fs c (NULL: none): Metis's
 * finding is at the last step, and earlier fault steps changed nothing (their clean run is
 * what the search went on from). */
const struct fault_spec *emitc_fault_last(const struct emit *e, const struct fs_config *c);
/* repro.c's fault_call(K): step K's call, a syncfs, and how both answered against the fs's
 * clean run ("acknowledged", "failed", "unexplained"). */
void emitc_fault_call(FILE *f, const struct emit *e);
/* DIR/faultdev.c: bin/metis-faultdev's source, for run.sh to build when Metis is not there. */
int emitc_fault_source(const char *dir, char *err, size_t errlen);
/* run.sh's last step on fs c (kernel, or an image-backed FUSE fs whose case defines fmount IMG)
 * with Metis's fault check of it; sets rc=1 when it fails. */
void emitc_fault_script(FILE *f, const struct emit *e, const struct fs_config *c);

#endif
