/* A run's lock: held by every process that works under a run id while it lives, so that a sweep tells a dead run's leftovers from a live run's things. */
#ifndef METIS_RUNLOCK_H
#define METIS_RUNLOCK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The lock is an flock on /dev/shm/metis-<id>/lock. Each process of a run (bin/metis, each pan,
 * each metis-replay of the triage) holds it shared through a descriptor of its own, opened
 * close-on-exec so that no daemon or tool it starts holds it too; the kernel lets go of it when
 * the process dies, however it dies. A lock no process holds is a dead run's. A sweep takes it
 * exclusively before it removes anything, so two sweeps never work on the same run, and a
 * process that joins a run whose lock is being swept waits and then makes the lock anew.
 */

/* Holds run_id's lock (shared), making it and its directory when they are not there yet: the
 * descriptor, or -1 with a one-line message in err. */
int runlock_hold(const char *run_id, char *err, size_t errlen);
/* Lets go of the lock held through fd (-1: nothing held); the last holder removes the lock
 * file and its directory, when that is empty by then. */
void runlock_release(int fd, const char *run_id);
/* Removes run_id's lock file, and its directory if empty, when no process holds the lock: the
 * last step of a sweep of run_id. */
void runlock_remove_if_free(const char *run_id);

enum run_liveness {
    RUN_LIVE,       /* its lock is held, or (no lock file) a process of it may live */
    RUN_DEAD,       /* its lock is free, or (no lock file) no process of it lives */
    RUN_UNKNOWN     /* no lock file, and an id that names no process: never swept */
};
/* Whether the run lives. For RUN_DEAD, *claim is its lock taken exclusively (hold it while the
 * leftovers are removed, then runlock_drop_claim), or -1 when it has no lock file.
 *
 * A run without a lock file (one of a build older than the lock, or one starting up) counts as
 * dead only when its id is pid-named (metis run's "m<pid>", metis-replay's "r<pid>"), no
 * process has that pid (but the caller, which has made nothing yet), and no process other than
 * a FUSE daemon was started with METIS_RUN_ID=<id> (an older build's pan whose front end died
 * runs on and cleans up itself; its daemons carry the variable too, but hold /dev/fuse). */
enum run_liveness runlock_probe(const char *run_id, int *claim);
/* Removes the lock file a sweep claimed and lets go of it. */
void runlock_drop_claim(int claim, const char *run_id);

/* The pid a run id names ("m<pid>", "r<pid>"), or 0 when it names none. */
pid_t runlock_pid_of(const char *run_id);
/* 1 when the environment block env (n bytes, NUL-separated as /proc/PID/environ) defines
 * METIS_RUN_ID as run_id. */
int runlock_env_names(const char *env, size_t n, const char *run_id);

#endif
