/* Backend front door (open/close/sweep), run_cmd, and the helpers the backend types share. */
#include "backend.h"
#include "backend_impl.h"
#include "imgstore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SHM_DIR "/dev/shm"
#define BLOCK 4096

double bk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bk_err(struct backend *b, const char *step, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->err, sizeof b->err, "fs %s: %s: %s", b->cfg->name, step, msg);
    return -1;
}

double bk_setup_timeout(const struct backend *b)
{
    return b->cfg->op_timeout > 30 ? b->cfg->op_timeout : 30;
}

static void sleep_seconds(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Run ids and fs names become path components: only [A-Za-z0-9._-], not "." or "..". */
static int safe_name(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (; *s; s++)
        if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

static const struct backend_ops *ops_for(enum fs_type t)
{
    switch (t) {
    case FS_KERNEL: return &backend_kernel_ops;
    case FS_REFFS:  return &backend_reffs_ops;
    case FS_FUSE:   return &backend_fuse_ops;
    }
    return NULL;
}

int bk_walk(struct backend *b, const struct abstract_opts *o, unsigned char *out, FILE *listing)
{
    int n = abstract_state(b->rootfd, o, out, listing);
    if (n < 0)
        return bk_err(b, "read-back", "walking the tree failed: %s", strerror(-n));
    return n;
}

int backend_read_back(struct backend *b, const struct abstract_opts *o, unsigned char *out,
                      FILE *listing)
{
    return b->ops->read_back ? b->ops->read_back(b, o, out, listing) : bk_walk(b, o, out, listing);
}

/* Mount points live in <base>/metis-<run_id>/mnt-<fs>; images in /dev/shm/metis-<run_id>/<fs>.img.
 * Both name the run in a path component of their own, so a sweep can never match another run. */
struct backend *backend_open(const struct fs_config *cfg, const char *run_id, const char *workdir)
{
    char base[PATH_MAX] = "/tmp";
    if (!cfg || !run_id || !safe_name(run_id) || !safe_name(cfg->name) || !ops_for(cfg->type)) {
        fprintf(stderr, "metis: backend: bad run id or fs name (%s / %s): use [A-Za-z0-9._-]\n",
                run_id ? run_id : "(null)", cfg ? cfg->name : "(null)");
        return NULL;
    }
    if (workdir && *workdir && !realpath(workdir, base))
        snprintf(base, sizeof base, "/tmp");
    struct backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->ops = ops_for(cfg->type);
    b->cfg = cfg;
    b->rootfd = -1;
    snprintf(b->run_id, sizeof b->run_id, "%s", run_id);
    if (snprintf(b->mnt, sizeof b->mnt, "%s/metis-%s/mnt-%s", base, run_id, cfg->name) >=
        (int)sizeof b->mnt) {
        fprintf(stderr, "metis: backend %s: work directory path too long\n", cfg->name);
        free(b);
        return NULL;
    }
    snprintf(b->image, sizeof b->image, SHM_DIR "/metis-%s/%s.img", run_id, cfg->name);
    return b;
}

void backend_close(struct backend *b)
{
    if (!b)
        return;
    b->ops->teardown(b);
    free(b->priv);
    free(b);
}

/* ---- mount points ---- */

/* Makes the run directory and the mount point (parents made by whoever shares them). */
int bk_make_mnt(struct backend *b)
{
    char dir[sizeof b->mnt];
    snprintf(dir, sizeof dir, "%s", b->mnt);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || (mkdir(b->mnt, 0755) < 0 && errno != EEXIST))
        return bk_err(b, "setup", "cannot make mount point %s: %s", b->mnt, strerror(errno));
    return 0;
}

/* Removes the mount point and the run directories if nothing else is left in them. */
void bk_remove_mnt(struct backend *b)
{
    char dir[sizeof b->mnt];
    rmdir(b->mnt);
    snprintf(dir, sizeof dir, "%s", b->mnt);
    *strrchr(dir, '/') = 0;
    rmdir(dir);
    snprintf(dir, sizeof dir, SHM_DIR "/metis-%s", b->run_id);
    rmdir(dir);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_mountinfo(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
}

/* Calls fn on every mount point (field 5 of mountinfo); stops when fn returns non-zero. */
static int each_mount(int (*fn)(const char *mp, void *ctx), void *ctx)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], mp[4096];
    int rc = 0;
    if (!f)
        return -1;
    while (!rc && fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1) {
            unescape_mountinfo(mp);
            rc = fn(mp, ctx);
        }
    fclose(f);
    return rc;
}

static int is_path(const char *mp, void *ctx)
{
    return strcmp(mp, ctx) == 0;
}

static int exit_code(int status);

/* mountinfo rather than stat: stat of a FUSE mount whose daemon hangs would hang too. */
int bk_is_mounted(const char *path)
{
    return each_mount(is_path, (void *)path) == 1;
}

int bk_wait_mounted(const char *path, int want, double timeout, pid_t *pid, int *status)
{
    double end = bk_now() + timeout, pause = 50e-6;
    int st;
    for (;;) {
        if (bk_is_mounted(path) == want)
            return 0;
        if (*pid > 0 && waitpid(*pid, &st, WNOHANG) == *pid) {
            *pid = 0;
            *status = exit_code(st);
            return bk_is_mounted(path) == want ? 0 : -1;
        }
        if (bk_now() > end)
            return -1;
        sleep_seconds(pause);
        if (pause < 5e-3)
            pause *= 2;
    }
}

int bk_unmount(const char *path, double timeout)
{
    double end = bk_now() + timeout;
    for (;;) {
        if (umount2(path, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL || errno == ENOENT)
            return 0;
        if (errno != EBUSY || bk_now() > end)
            break;
        sleep_seconds(1e-3);
    }
    umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
    return -1;
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

static int exit_code(int status)
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
            return r == pid ? exit_code(status) : 0;
        }
        double left = end - bk_now();
        if (left <= 0)
            break;
        if (pfd >= 0) {
            struct pollfd p = { pfd, POLLIN, 0 };
            poll(&p, 1, (int)(left * 1000) + 1);
        } else {
            sleep_seconds(left < 1e-3 ? left : 1e-3);
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
    return r < 0 ? -1 : exit_code(status);
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

/* ---- commands ---- */

void bk_bin_dir(char *out, size_t outlen)
{
    const char *env = getenv("METIS_BIN");
    char exe[PATH_MAX];
    ssize_t n;
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
    } else if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        exe[n] = 0;
        *strrchr(exe, '/') = 0;
        snprintf(out, outlen, "%s", exe);
    } else {
        snprintf(out, outlen, ".");
    }
}

int bk_subst(const struct backend *b, const char *tmpl, char *out, size_t outlen)
{
    char bin[PATH_MAX];
    size_t used = 0;
    bk_bin_dir(bin, sizeof bin);
    for (const char *p = tmpl; *p; ) {
        const char *val = NULL;
        size_t skip = 0;
        if (strncmp(p, "{mnt}", 5) == 0)
            val = b->mnt, skip = 5;
        else if (strncmp(p, "{img}", 5) == 0)
            val = b->image, skip = 5;
        else if (strncmp(p, "{bin}", 5) == 0)
            val = bin, skip = 5;
        size_t len = val ? strlen(val) : 1;
        if (used + len + 1 > outlen)
            return -1;
        memcpy(out + used, val ? val : p, len);
        used += len;
        p += val ? skip : 1;
    }
    out[used] = 0;
    return 0;
}

/* ---- images ---- */

int bimage_create(struct backend *b, struct backend_image *im, uint64_t size)
{
    char dir[sizeof b->image];
    snprintf(dir, sizeof dir, SHM_DIR "/metis-%s", b->run_id);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return bk_err(b, "setup", "cannot make %s: %s", dir, strerror(errno));
    im->fd = open(b->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (im->fd < 0)
        return bk_err(b, "setup", "cannot create image %s: %s%s", b->image, strerror(errno),
                      errno == EEXIST ? " (left by a crashed run with this run id? sweep it)" : "");
    im->size = size;
    if (ftruncate(im->fd, (off_t)size) < 0)
        return bk_err(b, "setup", "cannot size image %s to %llu bytes: %s", b->image,
                      (unsigned long long)size, strerror(errno));
    im->store = imgstore_new(size, BLOCK);
    if (!im->store)
        return bk_err(b, "setup", "out of memory for the image store");
    return 0;
}

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

/* Quiet and force flags per mkfs; xfs needs the fstests variables to accept small devices. */
static void mkfs_command(struct backend *b, const char *fstype, uint64_t size, char *cmd,
                         size_t len)
{
    const char *opts = b->cfg->mkfs_opts, *env = "", *flags = "";
    if (strncmp(fstype, "ext", 3) == 0)
        flags = "-q -F";
    else if (strcmp(fstype, "xfs") == 0)
        flags = "-q -f", env = "TEST_DIR=/tmp TEST_DEV=/dev/null QA_CHECK_FS=xfs ";
    else if (strcmp(fstype, "btrfs") == 0)
        flags = size < (1ULL << 30) && !has_word(opts, "-M") && !has_word(opts, "--mixed")
                    ? "-q -f -M" : "-q -f";
    else if (strcmp(fstype, "f2fs") == 0)
        flags = "-q -f";
    snprintf(cmd, len, "%smkfs.%s %s %s %s", env, fstype, flags, opts, b->image);
}

int bimage_mkfs(struct backend *b, const char *fstype, uint64_t size)
{
    char cmd[2048], out[512];
    mkfs_command(b, fstype, size, cmd, sizeof cmd);
    int rc = run_cmd(bk_setup_timeout(b), out, sizeof out, "%s", cmd);
    if (rc == 0)
        return 0;
    char *nl = strchr(out, '\n');
    if (nl && nl[1])
        *nl = ';';     /* keep the message on one line; the first two lines say the most */
    if ((nl = strchr(out, '\n')))
        *nl = 0;
    return bk_err(b, "mkfs", "'%s' %s %d%s%s", cmd, rc == 124 ? "timed out after" : "exited with",
                  rc == 124 ? (int)bk_setup_timeout(b) : rc, *out ? ": " : "", out);
}

int bimage_save(struct backend *b, struct backend_image *im, uint64_t id)
{
    if (imgstore_save(im->store, id, im->fd) < 0)
        return bk_err(b, "save", "state %llu from %s: %s", (unsigned long long)id, b->image,
                      strerror(errno));
    return 0;
}

int bimage_restore(struct backend *b, struct backend_image *im, uint64_t id)
{
    if (imgstore_restore(im->store, id, im->fd) < 0)
        return bk_err(b, "restore", "state %llu: %s", (unsigned long long)id,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

int bimage_export(struct backend *b, struct backend_image *im, uint64_t id, const char *dir,
                  char *out, size_t outlen)
{
    if (snprintf(out, outlen, "%s/%s-%llu.img", dir, b->cfg->name, (unsigned long long)id) >=
        (int)outlen)
        return bk_err(b, "export", "path too long under %s", dir);
    if (imgstore_write_file(im->store, id, out) < 0)
        return bk_err(b, "export", "state %llu to %s: %s", (unsigned long long)id, out,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

void bimage_destroy(struct backend *b, struct backend_image *im)
{
    if (im->fd >= 0) {
        close(im->fd);
        im->fd = -1;
        unlink(b->image);
    }
    imgstore_free(im->store);
    im->store = NULL;
}

/* ---- root fd ---- */

int bk_open_root(struct backend *b)
{
    if (b->rootfd >= 0)
        return 0;
    b->rootfd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (b->rootfd < 0)
        return bk_err(b, "begin", "cannot open %s: %s", b->mnt, strerror(errno));
    return 0;
}

void bk_close_root(struct backend *b)
{
    if (b->rootfd >= 0)
        close(b->rootfd);
    b->rootfd = -1;
}

/* ---- sweep ---- */

struct sweep_ctx {
    char needle[128];
    char found[64][1024];
    int n;
};

static int collect_run_mounts(const char *mp, void *ctx)
{
    struct sweep_ctx *s = ctx;
    if (strstr(mp, s->needle) && s->n < 64)
        snprintf(s->found[s->n++], sizeof s->found[0], "%s", mp);
    return 0;
}

static void remove_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_MAX];
    if (!d)
        return;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
                unlink(path) < 0)
                rmdir(path);
    closedir(d);
    rmdir(dir);
}

void backend_sweep(const char *run_id)
{
    static struct sweep_ctx s;
    char path[PATH_MAX];
    if (!run_id || !safe_name(run_id))
        return;
    snprintf(s.needle, sizeof s.needle, "/metis-%s/mnt-", run_id);
    for (int pass = 0; pass < 4; pass++) {
        s.n = 0;
        each_mount(collect_run_mounts, &s);
        if (s.n == 0)
            break;
        for (int i = s.n - 1; i >= 0; i--)   /* the latest mounts (deepest) first */
            if (umount2(s.found[i], UMOUNT_NOFOLLOW) < 0)
                umount2(s.found[i], MNT_DETACH | UMOUNT_NOFOLLOW);
        for (int i = 0; i < s.n; i++) {
            rmdir(s.found[i]);
            *strrchr(s.found[i], '/') = 0;
            rmdir(s.found[i]);
        }
    }
    snprintf(path, sizeof path, SHM_DIR "/metis-%s/", run_id);
    bk_loop_sweep(path);
    path[strlen(path) - 1] = 0;
    remove_dir_files(path);
    snprintf(path, sizeof path, "/tmp/metis-%s", run_id);
    remove_dir_files(path);   /* only empty mount points remain there: rmdir */
}

int bk_setup_failed(struct backend *b, void (*teardown)(struct backend *))
{
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    teardown(b);
    memcpy(b->err, err, sizeof err);
    return -1;
}
