/* Worker side of the swarm: the VT wrapper (--vt-job) and the per-host finishing job (--finish). */
#ifndef METIS_SWARM_JOB_H
#define METIS_SWARM_JOB_H

int swarm_vt_job(int argc, char **argv);
int swarm_finish_job(int argc, char **argv);

#endif
