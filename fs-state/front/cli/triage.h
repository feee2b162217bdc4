/* After a run that found discrepancies: each class's first example shrunk and made a self-checking reproducer (metis-replay), and classes.txt. */
#ifndef METIS_TRIAGE_H
#define METIS_TRIAGE_H

#include <signal.h>
#include <sys/types.h>

struct triage {
    const char *out;            /* the run directory */
    const char *bindir;         /* where metis (and metis-replay) live */
    const char *run_id;         /* the run's id: the replays reuse it, so a sweep finds them */
    double seconds;             /* shrink_seconds: 0 writes classes.txt only */
    volatile sig_atomic_t *stop;/* set by the front end's signal handler */
    volatile pid_t *child;      /* the replay running now, for the handler to stop */
    int have_known;             /* --known: classes.txt marks each class new or known */
};

/* Shrinks the classes of out/summary.json in the order found, sharing t->seconds among them,
 * writes each one's trace (class-K.trace) and reproducer (class-K-repro/) beside its detail
 * file, adds what it made to summary.json and writes and prints classes.txt (with a known
 * file, also when no class was found: its known classes not seen). 0, or -1 when interrupted. */
int triage_run(const struct triage *t);
/* How many classes out/summary.json lists (0 without the file). */
int triage_classes_found(const char *out);

#endif
