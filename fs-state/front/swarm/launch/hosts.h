/* Swarm hosts: the sshloginfile, a probe of each host for metis, its tools and room, and the check's table. */
#ifndef METIS_SWARM_HOSTS_H
#define METIS_SWARM_HOSTS_H

#include <stdio.h>
#include "front/swarm/shared/swarm_types.h"

int swarm_hosts_load(struct swarm *s, const char *path);
void swarm_tools_for(struct swarm *s);
int swarm_probe(struct swarm *s, const char *dir);
void swarm_check_print(const struct swarm *s, FILE *f);
int swarm_write_hosts(const struct swarm *s, const char *path);

#endif
