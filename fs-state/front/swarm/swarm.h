/* Swarm verification (`metis swarm`): the command's entry point; each part of the swarm has its own header. */
#ifndef METIS_SWARM_H
#define METIS_SWARM_H

/* The fuzz harnesses of the hosts file and of the classes merge reach them through this header. */
#include "front/swarm/launch/hosts.h"
#include "front/swarm/results/swarm_classes.h"

/* `metis swarm ...`: argv[0] is "swarm". Returns the exit status. */
int swarm_main(int argc, char **argv);

#endif
