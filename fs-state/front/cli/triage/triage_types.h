/* The triage's settings (struct triage), apart from its functions so its helpers share them without including triage.h. */
#ifndef METIS_TRIAGE_TYPES_H
#define METIS_TRIAGE_TYPES_H

#include <signal.h>
#include <sys/types.h>

struct triage {
    const char *out;            /* the run directory */
    const char *bindir;         /* where metis (and metis-replay) live */
    const char *run_id;         /* the run's id: the replays reuse it, so a sweep finds them */
    double seconds;             /* shrink_seconds: 0 writes classes.txt only */
    double max_seconds;         /* shrink_max_seconds: what the floors may add up to */
    volatile sig_atomic_t *stop;/* set by the front end's signal handler */
    volatile pid_t *child;      /* the replay running now, for the handler to stop */
    int have_known;             /* --known: classes.txt marks each class new or known */
};

#endif
