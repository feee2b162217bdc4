/* A bounded config's swarm: the VTs' shares of one space united, and the bound they verified together. */
#ifndef METIS_SWARM_BOUNDED_H
#define METIS_SWARM_BOUNDED_H

#include <stdio.h>
#include "front/swarm/shared/swarm_types.h"

/* 1 when the swarm's config is search = bounded: its VTs split the first two transitions. */
int swarm_is_bounded(const struct swarm *s);
/* The swarm's verdict from its VTs' summaries and states (their union counted once):
 * "verified together: N states, ..." or what kept it from one. */
void swarm_bounded_verdict(const struct swarm *s, char *buf, size_t len);
/* ,"bounded":{...} for the swarm's summary.json (nothing for other configs). */
void swarm_bounded_json(const struct swarm *s, FILE *f);

#endif
