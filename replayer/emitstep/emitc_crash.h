/* emit-c's crash-check part: the reproducer's per-step sync and the run.sh lines that recover a copy of the device and compare it. */
#ifndef METIS_EMITC_CRASH_H
#define METIS_EMITC_CRASH_H

#include <stdio.h>
#include "engine/config/config.h"
#include "trace/trace.h"

/* The crash mode run.sh checks fs c with after the last step (crashinfo.h; CRASH_OFF: none). */
int emitc_crash_mode(const struct metis_config *cfg, const struct fs_config *c);
/* repro.c's crash_sync(K): the sync Metis's crash check made after step K on fs fut (none
 * when off). */
void emitc_crash_sync(FILE *f, const struct trace *t, const struct metis_config *cfg,
                      const struct fs_config *fut);
/* run.sh's last step on fs c with its crash check in mode; sets rc=1 when the copy fails. */
void emitc_crash_script(FILE *f, const struct fs_config *c, int mode);

#endif
