/* emit-c for crash states of a recorded block stream (crash_states = flushes or stream): the run.sh lines that record the last step and check the state at every flush. */
#ifndef METIS_EMITC_STREAM_H
#define METIS_EMITC_STREAM_H

#include <stdio.h>
#include "emit.h"

/* 1 when fs c is crash-checked on the states of its recorded stream. */
int emitc_stream_mode(const struct metis_config *cfg, const struct fs_config *c);
/* run.sh's last step on kernel fs c, recorded, and the check of its state at every flush in
 * crash mode; sets rc=1 when one fails. The reproducer builds the persistence points only
 * (not the dropped writes and prefixes of crash_states = stream) and holds them to the checker
 * and the sync's promise (not to the untouched-entries and all-or-nothing rules). */
void emitc_stream_script(FILE *f, const struct emit *e, const struct fs_config *c, int mode);

#endif
