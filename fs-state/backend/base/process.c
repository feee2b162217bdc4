/* What the backends share about processes: sleeping through signals, one CPU each, daemons started, and other processes found through /proc. */
#include "backend/base/backend_types.h"
#include "backend/base/process.h"
#include "tree/tree.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ---- other processes, found through /proc ---- */

struct fd_search {
    const char *path;
    char dir[300];              /* /proc/PID/fd */
};

/* 1 (the search ends) when the descriptor name of dir is open on path. */
static int fd_is_path(void *ctx, const char *name)
{
    struct fd_search *s = ctx;
    char link[PATH_MAX], target[PATH_MAX];
    snprintf(link, sizeof link, "%s/%s", s->dir, name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    return n > 0 && (target[n] = 0, strcmp(target, s->path) == 0);
}

int bk_proc_holds(const char *pid, const char *path)
{
    struct fd_search s = { .path = path };
    snprintf(s.dir, sizeof s.dir, "/proc/%s/fd", pid);
    return tree_dir_names(s.dir, fd_is_path, &s) > 0;
}

int bk_proc_other(const char *name)
{
    return name[0] >= '1' && name[0] <= '9' && atoi(name) != getpid();
}

struct path_user {
    const char *path;
    pid_t except;
};

/* 1 (the search ends) when the /proc entry name is another process holding path open. */
static int proc_uses_path(void *ctx, const char *name)
{
    const struct path_user *u = ctx;
    return bk_proc_other(name) && atoi(name) != u->except && bk_proc_holds(name, u->path);
}

int bk_file_in_use_except(const char *path, pid_t except)
{
    struct path_user u = { path, except };
    return tree_dir_names("/proc", proc_uses_path, &u) > 0;
}

int bk_file_in_use(const char *path)
{
    return bk_file_in_use_except(path, 0);
}

size_t bk_proc_read(const char *pid, const char *what, char *buf, size_t len)
{
    char path[300];
    size_t n = 0;
    ssize_t r;
    snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = 0;
    return n;
}

struct daemon_search {
    bk_arg_match_fn match;
    const void *ctx;
    pid_t found;
};

/* 1 when the /proc entry name is another process given an argument the search matches. */
static int given_matching_arg(struct daemon_search *d, const char *name)
{
    char args[8192];
    int hit = 0;
    if (!bk_proc_other(name))
        return 0;
    size_t n = bk_proc_read(name, "cmdline", args, sizeof args);
    for (size_t k = 0; k < n && !hit; k += strlen(args + k) + 1)
        hit = d->match(args + k, d->ctx);
    return hit;
}

/* 1 (the search ends) when the /proc entry name is a FUSE daemon (it holds /dev/fuse) that
 * was given an argument the search matches. */
static int serves_matching_mount(void *ctx, const char *name)
{
    struct daemon_search *d = ctx;
    if (!given_matching_arg(d, name) || !bk_proc_holds(name, "/dev/fuse"))
        return 0;
    d->found = atoi(name);
    return 1;
}

static int any_matching(void *ctx, const char *name)
{
    return given_matching_arg(ctx, name);
}

int bk_process_given(bk_arg_match_fn match, const void *ctx)
{
    struct daemon_search d = { match, ctx, 0 };
    return tree_dir_names("/proc", any_matching, &d) > 0;
}

static int pid_listed(const pid_t *pids, int n, pid_t pid)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == pid)
            return 1;
    return 0;
}

/* 1 (the search ends) when the /proc entry name is another process given a matching argument. */
static int first_matching(void *ctx, const char *name)
{
    struct daemon_search *d = ctx;
    if (!given_matching_arg(d, name))
        return 0;
    d->found = atoi(name);
    return 1;
}

/* SIGKILLs each process the /proc search finds, found again until it is gone (not our child:
 * nothing to wait on); 1 s at most. How many it killed. */
static int kill_found(struct daemon_search *d, int (*found)(void *, const char *))
{
    pid_t killed[64];
    int n = 0;
    for (int tries = 0; tries < 200 && tree_dir_names("/proc", found, d) > 0; tries++) {
        kill(d->found, SIGKILL);
        if (n < 64 && !pid_listed(killed, n, d->found))
            killed[n++] = d->found;
        bk_sleep(0.005);
    }
    return n;
}

int bk_kill_fuse_daemons(bk_arg_match_fn match, const void *ctx)
{
    struct daemon_search d = { match, ctx, 0 };
    return kill_found(&d, serves_matching_mount);
}

int bk_kill_given(bk_arg_match_fn match, const void *ctx)
{
    struct daemon_search d = { match, ctx, 0 };
    return kill_found(&d, first_matching);
}
