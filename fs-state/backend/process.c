/* Child processes of the backends: spawning in their own group, waiting with time limits, run_cmd. */
#include "backend.h"
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double bk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/* ---- processes ---- */

static int spawn_io(posix_spawn_file_actions_t *fa, int outfd)
{
    posix_spawn_file_actions_init(fa);
    posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    if (outfd >= 0) {
        posix_spawn_file_actions_adddup2(fa, outfd, 1);
        posix_spawn_file_actions_adddup2(fa, outfd, 2);
    } else {
        posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(fa, 1, 2);
    }
    return 0;
}

/* Own process group, so a timeout can kill the command and everything it started. */
static pid_t spawn_with(char *const argv[], int outfd, int search)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, deflt;
    pid_t pid;
    static const int reset[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM,
                                 SIGUSR1, SIGUSR2 };
    spawn_io(&fa, outfd);
    posix_spawnattr_init(&at);
    sigemptyset(&none);
    sigemptyset(&deflt);
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&deflt, reset[i]);   /* the engine may ignore or catch these */
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &deflt);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                  POSIX_SPAWN_SETSIGDEF);
    int rc = search ? posix_spawnp(&pid, argv[0], &fa, &at, argv, environ)
                    : posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

pid_t bk_spawn(char *const argv[], int logfd)
{
    return spawn_with(argv, logfd, 1);
}

int bk_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int pidfd_of(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int bk_wait_pid(pid_t pid, double timeout)
{
    int status, pfd = pidfd_of(pid);
    double end = bk_now() + timeout;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            if (pfd >= 0)
                close(pfd);
            return r == pid ? bk_exit_code(status) : 0;
        }
        double left = end - bk_now();
        if (left <= 0)
            break;
        if (pfd >= 0) {
            struct pollfd p = { pfd, POLLIN, 0 };
            poll(&p, 1, (int)(left * 1000) + 1);
        } else {
            bk_sleep(left < 1e-3 ? left : 1e-3);
        }
    }
    if (pfd >= 0)
        close(pfd);
    return -1;
}

void bk_stop_pid(pid_t pid, double timeout)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    if (bk_wait_pid(pid, timeout) == -1) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

/* Appends what the pipe holds to out: 1 if data came, 2 if none yet, 0 at EOF or error. */
static int drain(int fd, char *out, size_t outlen, size_t *used)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 2 : 0;
    if (n > 0 && out && *used + 1 < outlen) {
        size_t k = (size_t)n < outlen - 1 - *used ? (size_t)n : outlen - 1 - *used;
        memcpy(out + *used, buf, k);
        *used += k;
        out[*used] = 0;
    }
    return n > 0;
}

/* Collects output until the command exits (not until EOF: a daemon it started may keep the pipe). */
static int collect(pid_t pid, int rfd, double timeout, char *out, size_t outlen)
{
    size_t used = 0;
    int status = 0, pfd = pidfd_of(pid), open_pipe = 1;
    double end = bk_now() + timeout;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
        double left = end - bk_now();
        if (left <= 0)
            break;
        struct pollfd p[2];
        nfds_t np = 0;
        if (open_pipe)
            p[np++] = (struct pollfd){ rfd, POLLIN, 0 };
        if (pfd >= 0)
            p[np++] = (struct pollfd){ pfd, POLLIN, 0 };
        poll(p, np, pfd >= 0 ? (int)(left * 1000) + 1 : 2);
        if (open_pipe && p[0].revents)
            open_pipe = drain(rfd, out, outlen, &used) != 0;
    }
    if (pfd >= 0)
        close(pfd);
    if (r == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        return 124;
    }
    fcntl(rfd, F_SETFL, O_NONBLOCK);
    while (open_pipe && drain(rfd, out, outlen, &used) == 1)
        ;
    return r < 0 ? -1 : bk_exit_code(status);
}

int run_cmd(double timeout, char *out, size_t outlen, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (out && outlen)
        out[0] = 0;
    if (n < 0 || n >= (int)sizeof cmd)
        return -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    pid_t pid = spawn_with(argv, p[1], 0);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    int rc = collect(pid, p[0], timeout > 0 ? timeout : 1e9, out, outlen);
    close(p[0]);
    if (out && outlen) {
        size_t len = strlen(out);
        while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
            out[--len] = 0;
    }
    return rc;
}
