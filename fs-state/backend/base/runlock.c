/* A run's lock: held while the run lives, made and let go of by its processes, probed by a sweep. */
#include "backend/base/runlock.h"
#include "backend/base/common.h"
#include "tree/tree.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Only a sweep of a dead run with our id (its pid came round again) holds a lock exclusively,
 * and only while it removes what that run left. */
#define LOCK_WAIT_SECONDS 30
/* What is read of another process's environment; a longer one is taken for the run's. */
#define ENV_MAX (256 * 1024)

static void run_dir(const char *run_id, char *out, size_t len)
{
    snprintf(out, len, BK_SHM_DIR "/metis-%s", run_id);
}

static void lock_path(const char *run_id, char *out, size_t len)
{
    snprintf(out, len, BK_SHM_DIR "/metis-%s/lock", run_id);
}

/* 1 when fd is still the file named path: a sweep may have removed it before we locked it. */
static int still_named(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The lock file at path, locked shared: its descriptor, or -1 with errno (ENOENT: there is
 * none; EWOULDBLOCK: a sweep holds it; ESTALE: a sweep removed it meanwhile). */
static int join_lock(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int e = flock(fd, LOCK_SH | LOCK_NB) < 0 ? errno : still_named(fd, path) ? 0 : ESTALE;
    if (e == 0)
        return fd;
    close(fd);
    errno = e;
    return -1;
}

/* A new lock file at path, locked before any other process can see it: made under a name of
 * our own and linked into place (EEXIST: another process of the run made it first). */
static int make_lock(const char *dir, const char *path)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/.lock-%d", dir, (int)getpid());
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int e = flock(fd, LOCK_SH) < 0 || link(tmp, path) < 0 ? errno : 0;
    unlink(tmp);
    if (e == 0)
        return fd;
    close(fd);
    errno = e;
    return -1;
}

/* The run's directory, made or there already (and not a link someone put in its place). */
static int make_run_dir(const char *dir)
{
    struct stat st;
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* What a sweep of the same run id does for a moment: worth waiting for. */
static int sweep_in_the_way(int err)
{
    return err == ENOENT || err == EEXIST || err == ESTALE || err == EWOULDBLOCK;
}

int runlock_hold(const char *run_id, char *err, size_t errlen)
{
    char dir[PATH_MAX], path[PATH_MAX];
    double deadline = now_seconds() + LOCK_WAIT_SECONDS;
    run_dir(run_id, dir, sizeof dir);
    lock_path(run_id, path, sizeof path);
    for (;;) {
        if (make_run_dir(dir) < 0) {
            snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
            return -1;
        }
        int fd = join_lock(path);
        if (fd < 0 && errno == ENOENT)
            fd = make_lock(dir, path);
        if (fd >= 0)
            return fd;
        if (!sweep_in_the_way(errno) || now_seconds() > deadline) {
            snprintf(err, errlen, "cannot lock run %s (%s): %s", run_id, path,
                     errno == EWOULDBLOCK ? "a sweep holds it" : strerror(errno));
            return -1;
        }
        bk_sleep(0.01);
    }
}

void runlock_remove_if_free(const char *run_id)
{
    char dir[PATH_MAX], path[PATH_MAX];
    run_dir(run_id, dir, sizeof dir);
    lock_path(run_id, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, path)) {
        unlink(path);
        rmdir(dir);
    }
    close(fd);
}

void runlock_release(int fd, const char *run_id)
{
    if (fd < 0)
        return;
    close(fd);
    runlock_remove_if_free(run_id);
}

void runlock_drop_claim(int claim, const char *run_id)
{
    char path[PATH_MAX];
    if (claim < 0)
        return;
    lock_path(run_id, path, sizeof path);
    if (still_named(claim, path))
        unlink(path);
    close(claim);
}

/* ---- liveness ---- */

pid_t runlock_pid_of(const char *run_id)
{
    long pid = 0;
    if ((run_id[0] != 'm' && run_id[0] != 'r') || run_id[1] < '1' || run_id[1] > '9')
        return 0;
    for (const char *p = run_id + 1; *p; p++) {
        if (*p < '0' || *p > '9' || pid > INT_MAX / 10)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    return pid <= INT_MAX ? (pid_t)pid : 0;
}

int runlock_env_names(const char *env, size_t n, const char *run_id)
{
    static const char var[] = "METIS_RUN_ID=";
    for (size_t k = 0; k < n;) {
        size_t len = strnlen(env + k, n - k);
        if (len == strlen(var) + strlen(run_id) && strncmp(env + k, var, strlen(var)) == 0 &&
            strncmp(env + k + strlen(var), run_id, strlen(run_id)) == 0)
            return 1;
        k += len + 1;
    }
    return 0;
}

struct env_search {
    const char *run_id;
    char *env;
};

/* 1 (the search ends) when the /proc entry name is a process of the run that is not a FUSE
 * daemon: started with METIS_RUN_ID=<id>, or with an environment too long to read whole. */
static int works_for_run(void *ctx, const char *name)
{
    struct env_search *s = ctx;
    if (!bk_proc_other(name))
        return 0;
    size_t n = bk_proc_read(name, "environ", s->env, ENV_MAX);
    return (n == ENV_MAX - 1 || runlock_env_names(s->env, n, s->run_id)) &&
           !bk_proc_holds(name, "/dev/fuse");
}

static int process_works_for_run(const char *run_id)
{
    struct env_search s = { run_id, malloc(ENV_MAX) };
    if (!s.env)
        return 1;   /* cannot tell: the run may live */
    int found = tree_dir_names("/proc", works_for_run, &s) > 0;
    free(s.env);
    return found;
}

static enum run_liveness liveness_without_lock(const char *run_id)
{
    pid_t pid = runlock_pid_of(run_id);
    if (pid == 0)
        return RUN_UNKNOWN;
    if (pid != getpid() && (kill(pid, 0) == 0 || errno == EPERM))
        return RUN_LIVE;
    return process_works_for_run(run_id) ? RUN_LIVE : RUN_DEAD;
}

enum run_liveness runlock_probe(const char *run_id, int *claim)
{
    char path[PATH_MAX];
    *claim = -1;
    lock_path(run_id, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? liveness_without_lock(run_id) : RUN_LIVE;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 || !still_named(fd, path)) {
        close(fd);
        return RUN_LIVE;   /* held; or made anew since we opened it */
    }
    *claim = fd;
    return RUN_DEAD;
}
