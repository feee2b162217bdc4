/* emit-c for crash states of a recorded block stream (crash_states = flushes or stream): the run.sh lines that record the last step and check each of its states as Metis did, and repro.c's oracle. */
#ifndef METIS_EMITC_STREAM_H
#define METIS_EMITC_STREAM_H

#include <stdio.h>
#include "emit.h"

/* 1 when fs c is crash-checked on the states of its recorded stream. */
int emitc_stream_mode(const struct metis_config *cfg, const struct fs_config *c);
/* repro.c's crash_oracle_cmd(argv) for "repro oracle PRE POST REC ATOMIC DATAOP [PATH [PATH2]]"
 * (PATH, PATH2: the names the operation gives): the engine's
 * crash oracle (crash_oracle.c, pasted) on three "list" files; exit 1 with the breach printed.
 * A stub that exits 2 when the fs under test is not crash-checked on recorded states. */
void emitc_stream_oracle(FILE *f, const struct emit *e);
/* run.sh's last step on kernel fs c, recorded, and the check of the states Metis checked
 * (metis-faultdev --states: the same enumeration, bound and order) in crash mode: each built,
 * recovered, checked by the format's checker, held to the oracle (untouched entries kept,
 * nothing from nowhere; the operation all or nothing while its syncs had not begun) and, once
 * the syncs returned, to what they promised; sets rc=1 when one fails. */
void emitc_stream_script(FILE *f, const struct emit *e, const struct fs_config *c, int mode);

#endif
