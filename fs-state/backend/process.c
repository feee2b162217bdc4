/* What the backends share about their threads: sleeping through signals, one CPU each. */
#include "backend.h"
#include "common.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

void bk_sleep(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* ---- CPUs ---- */

/* CPUs a backend of this process has taken for its thread and daemon. */
static pthread_mutex_t cpu_mu = PTHREAD_MUTEX_INITIALIZER;
static cpu_set_t cpus_taken;

/* The current CPU, or the first allowed one no other backend has taken: two file systems
 * pinned to one CPU would take turns instead of working side by side. */
static int pick_cpu(const cpu_set_t *allowed)
{
    int cpu = sched_getcpu();
    if (cpu >= 0 && CPU_ISSET(cpu, allowed) && !CPU_ISSET(cpu, &cpus_taken))
        return cpu;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed) && !CPU_ISSET(c, &cpus_taken))
            return c;
    return cpu;
}

void bk_pin_cpu(void)
{
    cpu_set_t allowed, one;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) != 0)
        return;
    pthread_mutex_lock(&cpu_mu);
    int cpu = pick_cpu(&allowed);
    if (cpu >= 0) {
        CPU_SET(cpu, &cpus_taken);
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    }
    pthread_mutex_unlock(&cpu_mu);
}

pid_t bk_spawn(char *const argv[], int logfd)
{
    struct spawn_how how = { .in = "/dev/null", .out_fd = logfd,
                             .flags = SPAWN_SEARCH_PATH | SPAWN_OWN_GROUP |
                                      (logfd < 0 ? SPAWN_QUIET : 0) };
    return spawn_start(argv, &how);
}
