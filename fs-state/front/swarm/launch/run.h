/* Primary side of the swarm: VTs through GNU parallel, interrupts, and collecting every host. */
#ifndef METIS_SWARM_RUN_H
#define METIS_SWARM_RUN_H

#include <signal.h>
#include "front/swarm/shared/swarm_types.h"

int swarm_run_vts(struct swarm *s);
void swarm_collect(struct swarm *s);
void swarm_install_signals(void);
extern volatile sig_atomic_t swarm_signal;

#endif
