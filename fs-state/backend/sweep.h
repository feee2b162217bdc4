/* The sweep of what runs left behind: every dead run's leftovers on this host, found wherever they are. */
#ifndef METIS_SWEEP_H
#define METIS_SWEEP_H

#include <stddef.h>

/* What a sweep of dead runs did, each part ready for a line of its own. */
struct sweep_report {
    int runs;                /* runs whose leftovers were removed */
    char removed[2048];      /* "m123 (1 daemon, 2 mounts, 1 loop device, 1 file, 2 directories),
                                m456 (...)"; "" when nothing was */
    char kept[1024];         /* "metis-X, ...": left alone, no lock file and an id that names
                                no process (runlock.h); "" when none */
    char failed[1024];       /* the first thing that could not be removed, and why; "" when none */
};

/* Removes the leftovers of every dead run on this host (runlock_probe says which runs are
 * dead; a live run's things are never touched): the FUSE daemons given a path of the run, the
 * mounts under any "metis-<id>" work directory (found in /proc/self/mountinfo), the loop
 * devices over files in /dev/shm/metis-<id>/, the files there and the emptied directories,
 * and every claim table (/dev/shm/metis-claims-*, lib/system/claims.h) no process holds.
 * Runs are found by those same traces. 0, or -1 when r->failed says what stayed. */
int sweep_dead_runs(struct sweep_report *r);

/* The run id of a mount point ".../metis-<id>/mnt-...", or of a loop device's backing file
 * "/dev/shm/metis-<id>/...", into id (len bytes); 0, or -1 when the path names no run. */
int sweep_run_of_mount(const char *mp, char *id, size_t len);
int sweep_run_of_backing_file(const char *file, char *id, size_t len);

#endif
