/* Child processes: started with posix_spawn, waited for with time limits, their output captured. */
#include "spawner.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Signals a Metis program may ignore or catch: a child must not inherit an ignored one. */
static const int reset_signals[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD,
                                     SIGALRM, SIGUSR1, SIGUSR2 };

static void spawn_streams(posix_spawn_file_actions_t *fa, const struct spawn_how *how)
{
    if (how->in)
        posix_spawn_file_actions_addopen(fa, 0, how->in, O_RDONLY, 0);
    if (how->flags & SPAWN_QUIET) {
        posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(fa, 1, 2);
    } else if (how->out_fd > 0) {
        posix_spawn_file_actions_adddup2(fa, how->out_fd, 1);
        posix_spawn_file_actions_adddup2(fa, how->out_fd, 2);
    } else {
        if (how->flags & SPAWN_OUT_TO_ERR)
            posix_spawn_file_actions_adddup2(fa, 2, 1);
        else if (how->out)
            posix_spawn_file_actions_addopen(fa, 1, how->out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (how->err)
            posix_spawn_file_actions_addopen(fa, 2, how->err, O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
}

static void spawn_signals(posix_spawnattr_t *at, unsigned flags)
{
    sigset_t mask, deflt;
    sigemptyset(&mask);
    sigemptyset(&deflt);
    for (size_t i = 0; i < sizeof reset_signals / sizeof reset_signals[0]; i++)
        sigaddset(&deflt, reset_signals[i]);
    if (flags & SPAWN_HOLD_STOPS) {
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
    }
    short sflags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    posix_spawnattr_setsigmask(at, &mask);
    posix_spawnattr_setsigdefault(at, &deflt);
    if (flags & SPAWN_OWN_GROUP) {
        posix_spawnattr_setpgroup(at, 0);
        sflags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(at, sflags);
}

pid_t spawn_start(char *const argv[], const struct spawn_how *how)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    spawn_streams(&fa, how);
    spawn_signals(&at, how->flags);
    int rc = how->flags & SPAWN_SEARCH_PATH ? posix_spawnp(&pid, argv[0], &fa, &at, argv, environ)
                                            : posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

int spawn_status(int wstatus)
{
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

int spawn_wait(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return spawn_status(status);
}

/* A descriptor that becomes readable when pid exits, so that waits need not poll; -1 if the
 * kernel has none (then the waits poll every millisecond). */
static int pidfd_of(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void pause_for_exit(int pfd, double left)
{
    if (pfd >= 0) {
        struct pollfd p = { pfd, POLLIN, 0 };
        poll(&p, 1, (int)(left * 1000) + 1);
    } else {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

int spawn_wait_for(pid_t pid, double timeout)
{
    int status, pfd = pidfd_of(pid), rc = -1;
    double end = now_seconds() + timeout;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            rc = r == pid ? spawn_status(status) : 0;
            break;
        }
        double left = end - now_seconds();
        if (left <= 0)
            break;
        pause_for_exit(pfd, left);
    }
    if (pfd >= 0)
        close(pfd);
    return rc;
}

void spawn_stop(pid_t pid, double grace)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    if (spawn_wait_for(pid, grace) == -1) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

int spawn_wait_limited(pid_t pid, const struct spawn_limits *l)
{
    int status = 0;
    double termed = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return spawn_status(status);
        if (r < 0 && errno != EINTR)
            return -1;
        double now = now_seconds();
        int due = (l->stop && *l->stop) || (l->deadline > 0 && now > l->deadline);
        if (!termed && due) {
            /* To the group: a shell runs its TERM trap (a reproducer's clean-up) only once its
             * foreground command ends, and that command may be the one that hangs. */
            kill(-pid, SIGTERM);
            kill(pid, SIGTERM);
            termed = now;
        } else if (termed && now > termed + l->grace) {
            kill(-pid, SIGKILL);
        }
        usleep(50000);
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

/* Collects output until the command exits or the timeout passes (then SPAWN_TIMED_OUT, its group killed). */
static int collect(pid_t pid, int rfd, double timeout, char *out, size_t outlen)
{
    size_t used = 0;
    int status = 0, pfd = pidfd_of(pid), open_pipe = 1;
    double end = now_seconds() + timeout;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
        double left = end - now_seconds();
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
        return SPAWN_TIMED_OUT;
    }
    fcntl(rfd, F_SETFL, O_NONBLOCK);
    while (open_pipe && drain(rfd, out, outlen, &used) == 1)
        ;
    return r < 0 ? -1 : spawn_status(status);
}

int spawn_capture(char *const argv[], double timeout, char *out, size_t outlen)
{
    int p[2];
    if (out && outlen)
        out[0] = 0;
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    struct spawn_how how = { .in = "/dev/null", .out_fd = p[1], .flags = SPAWN_OWN_GROUP };
    pid_t pid = spawn_start(argv, &how);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    int rc = collect(pid, p[0], timeout > 0 ? timeout : 1e9, out, outlen);
    close(p[0]);
    return rc;
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
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int rc = spawn_capture(argv, timeout, out, outlen);
    if (out && outlen) {
        size_t len = strlen(out);
        while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
            out[--len] = 0;
    }
    return rc;
}
