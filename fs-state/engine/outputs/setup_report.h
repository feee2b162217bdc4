/* What set-up adapted to on a target, recorded as classes of their own before the first operation. */
#ifndef METIS_SETUP_REPORT_H
#define METIS_SETUP_REPORT_H

#include "engine/runstate/engine_types.h"

/* Each note of the last set-up (e->g.setup) as a hit of its class at operation 0: logged
 * (`setup 0 fs=X attr=A reference=V value=W`, then its `class` record), counted as a
 * discrepancy, told on stderr and given a detail file when new. The run goes on from the
 * adapted state. */
void setup_report(struct engine *e);

#endif
