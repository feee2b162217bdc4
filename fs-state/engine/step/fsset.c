/* Worker pool of fsset.h: a generation counter under one mutex hands each step's job to every worker. */
#include "engine/step/fsset.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define FSSET_MAX 16

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static pthread_t workers[FSSET_MAX];
static int nworkers, quitting;
static unsigned long generation;
static fsset_job cur_job;
static void *cur_ctx;
static int results[FSSET_MAX], finished[FSSET_MAX];

static void *worker_main(void *arg)
{
    int i = (int)(long)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (generation == seen && !quitting)
            pthread_cond_wait(&job_cv, &mu);
        if (quitting)
            break;
        seen = generation;
        fsset_job job = cur_job;
        void *ctx = cur_ctx;
        pthread_mutex_unlock(&mu);
        int rc = job(i, ctx);
        pthread_mutex_lock(&mu);
        if (seen == generation) {
            results[i] = rc;
            finished[i] = 1;
            pthread_cond_signal(&done_cv);
        }
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

int fsset_start(int n)
{
    if (n < 1 || n > FSSET_MAX)
        return -1;
    nworkers = n;
    for (int i = 0; i < n; i++)
        if (pthread_create(&workers[i], NULL, worker_main, (void *)(long)i) != 0)
            return -1;
    return 0;
}

static int all_finished(void)
{
    for (int i = 0; i < nworkers; i++)
        if (!finished[i])
            return 0;
    return 1;
}

static struct timespec deadline_in(double timeout)
{
    struct timespec deadline;
    if (timeout < 0)
        timeout = 0;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)timeout;
    deadline.tv_nsec += (long)((timeout - (long)timeout) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

/* The first unfinished worker past its own time limit (seconds since start), or -1. */
static int first_late(const double *timeouts, double elapsed)
{
    for (int i = 0; i < nworkers; i++)
        if (!finished[i] && elapsed >= timeouts[i])
            return i;
    return -1;
}

/* Seconds from start until the next unfinished worker's time limit. */
static double next_limit(const double *timeouts)
{
    double next = -1;
    for (int i = 0; i < nworkers; i++)
        if (!finished[i] && (next < 0 || timeouts[i] < next))
            next = timeouts[i];
    return next;
}

static double real_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int fsset_run(fsset_job job, void *ctx, const double *timeouts, int *late)
{
    double start = real_seconds();
    int over = -1;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nworkers; i++)
        finished[i] = 0;
    cur_job = job;
    cur_ctx = ctx;
    generation++;
    pthread_cond_broadcast(&job_cv);
    while (!all_finished() && (over = first_late(timeouts, real_seconds() - start)) < 0) {
        struct timespec deadline = deadline_in(start + next_limit(timeouts) - real_seconds());
        pthread_cond_timedwait(&done_cv, &mu, &deadline);
    }
    int out = 0;
    if (over >= 0) {
        if (late)
            *late = over;
        out = -1;
    } else {
        for (int i = 0; i < nworkers && !out; i++)
            if (results[i])
                out = i + 1;
    }
    pthread_mutex_unlock(&mu);
    return out;
}

/* ---- one file system, run inline under a watchdog ---- */

static struct {
    pthread_mutex_t mu;
    pthread_t thread;
    int started, busy, late;
    double start, limit;
    void (*unblock)(void *arg);
    void *arg;
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Polls instead of being signalled: a wake-up per job would cost what running inline saves. */
static void *watchdog_main(void *unused)
{
    const struct timespec tick = { 0, 100 * 1000 * 1000 };
    for (;;) {
        nanosleep(&tick, NULL);
        pthread_mutex_lock(&wd.mu);
        int fire = wd.busy && !wd.late && now_seconds() - wd.start >= wd.limit;
        void (*unblock)(void *) = wd.unblock;
        void *arg = wd.arg;
        if (fire)
            wd.late = 1;
        pthread_mutex_unlock(&wd.mu);
        if (fire && unblock)
            unblock(arg);
    }
    return unused;
}

int fsset_run_inline(fsset_job job, void *ctx, double timeout, int *late,
                     void (*unblock)(void *arg), void *arg)
{
    pthread_mutex_lock(&wd.mu);
    if (!wd.started && pthread_create(&wd.thread, NULL, watchdog_main, NULL) == 0) {
        pthread_detach(wd.thread);
        wd.started = 1;
    }
    wd.start = now_seconds();
    wd.limit = timeout;
    wd.unblock = unblock;
    wd.arg = arg;
    wd.late = 0;
    wd.busy = 1;
    pthread_mutex_unlock(&wd.mu);
    int rc = job(0, ctx);
    pthread_mutex_lock(&wd.mu);
    wd.busy = 0;
    int over = wd.late || now_seconds() - wd.start >= timeout;
    pthread_mutex_unlock(&wd.mu);
    if (over && late)
        *late = 0;
    return over ? -1 : rc ? 1 : 0;
}

int fsset_wait(double timeout)
{
    struct timespec deadline = deadline_in(timeout);
    int rc = 0;
    pthread_mutex_lock(&mu);
    while (!all_finished() && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&done_cv, &mu, &deadline);
    int done = all_finished();
    pthread_mutex_unlock(&mu);
    return done ? 0 : -1;
}

void fsset_stop(void)
{
    if (nworkers == 0)
        return;
    pthread_mutex_lock(&mu);
    quitting = 1;
    pthread_cond_broadcast(&job_cv);
    pthread_mutex_unlock(&mu);
    /* A worker stuck in a hung mount cannot be joined; the process exits around it. */
    nworkers = 0;
}
