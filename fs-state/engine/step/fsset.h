/* Runs one job on every file system at once, one worker thread per file system, with a time limit. */
#ifndef METIS_FSSET_H
#define METIS_FSSET_H

typedef int (*fsset_job)(int fs_index, void *ctx);

/* Starts n workers; even one gets its own thread, so a hung file system cannot hang Metis. */
int fsset_start(int n);
/* Runs job(i, ctx) for every i in parallel, worker i within timeouts[i] seconds; returns 0
 * when all returned 0, the first failing index + 1 otherwise, or -1 as soon as a worker passed
 * its time limit (*late is set to it, the lowest index when several did). */
int fsset_run(fsset_job job, void *ctx, const double *timeouts, int *late);
/* After a time limit passed: waits up to timeout seconds for the late workers to return from
 * that job (their calls unblocked, e.g. by aborting a hung mount); 0 once all are idle. */
int fsset_wait(double timeout);
/* The same for a run of one file system whose hang can be broken (a daemon's mount): job(0,
 * ctx) runs on the calling thread, which saves two thread wake-ups per call. A watchdog thread
 * (started at the first call, waking 10 times a second) calls unblock(arg) once the job is
 * past timeout seconds, so that the job returns; it then counts as late (-1, *late = 0). */
int fsset_run_inline(fsset_job job, void *ctx, double timeout, int *late,
                     void (*unblock)(void *arg), void *arg);
void fsset_stop(void);

#endif
