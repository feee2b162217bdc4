/* The faulty device of a kernel fs or an image-backed FUSE fs: its metis-faultdev daemon, the direct-I/O loop device over the daemon's file (kernel), and the arm and disarm commands. */
#include "backend/device/faultdev.h"
#include "backend/base/common.h"
#include "faultdev_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct faultdev {
    struct backend *b;
    pid_t pid;
    int ctlfd, imgfd, loopnr;
    char mnt[PATH_MAX], log[PATH_MAX], dev[32], file[PATH_MAX + 8];
};

static int ferr(struct faultdev *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ferr(struct faultdev *f, const char *fmt, ...)
{
    char msg[860];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_err(f->b, "faulty device", "%s", msg);
}

static int start_daemon(struct faultdev *f)
{
    char bin[PATH_MAX], tail[300];
    bk_program_path("metis-faultdev", bin, sizeof bin);
    char *argv[] = { bin, f->b->image, f->mnt, NULL };
    if (mkdir(f->mnt, 0755) < 0 && errno != EEXIST)
        return ferr(f, "cannot make %s: %s", f->mnt, strerror(errno));
    int logfd = open(f->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    f->pid = bk_spawn(argv, logfd);
    if (logfd >= 0)
        close(logfd);
    if (f->pid < 0)
        return ferr(f, "cannot start %s: %s", bin, strerror(errno));
    int status = -1;
    if (bk_wait_mounted(f->mnt, 1, bk_setup_timeout(f->b), &f->pid, &status) == 0 && f->pid > 0)
        return 0;
    bk_log_tail(f->log, tail, sizeof tail);
    return ferr(f, "%s did not stay mounted: %s", bin, tail[0] ? tail : "(no message)");
}

/* The daemon's file on a loop device of its own, with direct I/O: else the loop device would
 * go through the file's page cache, and a failed write would only show at writeback. */
static int attach_loop(struct faultdev *f)
{
    char path[PATH_MAX + 8], dio[8] = "";
    f->imgfd = open(f->file, O_RDWR | O_DIRECT | O_CLOEXEC);
    if (f->imgfd < 0)
        return ferr(f, "cannot open %s: %s", f->file, strerror(errno));
    if ((f->loopnr = bk_loop_attach_direct(f->imgfd, f->file)) < 0)
        return ferr(f, "cannot attach %s to a loop device with direct I/O: %s", f->file,
                    strerror(errno));
    snprintf(f->dev, sizeof f->dev, "/dev/loop%d", f->loopnr);
    snprintf(path, sizeof path, "/sys/block/loop%d/loop/dio", f->loopnr);
    FILE *s = fopen(path, "re");
    int got = s && fgets(dio, sizeof dio, s);
    if (s)
        fclose(s);
    return got && dio[0] == '1' ? 0 : ferr(f, "%s: direct I/O is off (%s)", f->dev, path);
}

static int open_control(struct faultdev *f)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/" FAULTDEV_CTL_NAME, f->mnt);
    f->ctlfd = open(path, O_RDWR | O_CLOEXEC);
    return f->ctlfd < 0 ? ferr(f, "cannot open %s: %s", path, strerror(errno)) : 0;
}

struct faultdev *faultdev_open(struct backend *b, int with_loop)
{
    struct faultdev *f = calloc(1, sizeof *f);
    if (!f) {
        bk_err(b, "faulty device", "out of memory");
        return NULL;
    }
    *f = (struct faultdev){ .b = b, .pid = -1, .ctlfd = -1, .imgfd = -1, .loopnr = -1 };
    snprintf(f->mnt, sizeof f->mnt, BK_SHM_DIR "/metis-%s/mnt-%s.faultdev", b->run_id,
             b->cfg->name);
    snprintf(f->log, sizeof f->log, "%s.faultdev.log", b->mnt);
    snprintf(f->file, sizeof f->file, "%s/" FAULTDEV_IMAGE_NAME, f->mnt);
    if (start_daemon(f) == 0 && (!with_loop || attach_loop(f) == 0) && open_control(f) == 0)
        return f;
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    faultdev_close(f);
    memcpy(b->err, err, sizeof err);
    return NULL;
}

const char *faultdev_device(const struct faultdev *f)
{
    return f->dev;
}

const char *faultdev_file(const struct faultdev *f)
{
    return f->file;
}

pid_t faultdev_pid(const struct faultdev *f)
{
    return f ? f->pid : -1;
}

static int command(struct faultdev *f, const char *text)
{
    size_t n = strlen(text);
    if (pwrite(f->ctlfd, text, n, 0) == (ssize_t)n)
        return 0;
    return ferr(f, "'%s' refused: %s", text, strerror(errno));
}

int faultdev_arm(struct faultdev *f, const char *text)
{
    return command(f, text);
}

static int read_counts(struct faultdev *f, struct faultdev_counts *c)
{
    char line[FAULTDEV_STATUS_MAX];
    int armed;
    ssize_t n = pread(f->ctlfd, line, sizeof line - 1, 0);
    line[n > 0 ? n : 0] = '\0';
    if (sscanf(line, "armed=%d reads=%llu writes=%llu fsyncs=%llu matched=%llu failed=%llu "
               "lost=%llu", &armed, (unsigned long long *)&c->reads,
               (unsigned long long *)&c->writes, (unsigned long long *)&c->fsyncs,
               (unsigned long long *)&c->matched, (unsigned long long *)&c->failed,
               (unsigned long long *)&c->lost) == 7)
        return 0;
    return ferr(f, "unreadable counters '%.100s'", line);
}

int faultdev_record(struct faultdev *f, const char *how)
{
    char text[64];
    snprintf(text, sizeof text, "record %s", how);
    return command(f, text);
}

#define LOG_CHUNK (1 << 17)

/* A log read in chunks of a FUSE read's usual size, grown by doubling. */
static int read_all(struct faultdev *f, int fd, const char *path, char **out, size_t *len)
{
    size_t cap = 0;
    for (;;) {
        if (*len + LOG_CHUNK > cap) {
            cap = cap ? 2 * cap : 8 * LOG_CHUNK;
            char *p = realloc(*out, cap);
            if (!p)
                return ferr(f, "out of memory for the block log");
            *out = p;
        }
        ssize_t n = pread(fd, *out + *len, LOG_CHUNK, (off_t)*len);
        if (n <= 0)
            return n < 0 ? ferr(f, "reading %s: %s", path, strerror(errno)) : 0;
        *len += (size_t)n;
    }
}

int faultdev_read_log(struct faultdev *f, char **out, size_t *len)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/" FAULTDEV_LOG_NAME, f->mnt);
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ferr(f, "cannot open %s: %s", path, strerror(errno));
    int rc = read_all(f, fd, path, out, len);
    close(fd);
    return rc;
}

int faultdev_disarm(struct faultdev *f, struct faultdev_counts *c)
{
    return command(f, "disarm") < 0 ? -1 : read_counts(f, c);
}

/* The daemon exits once unmounted; one that does not is killed. A mount the loop device still
 * holds a file of is left for the sweep: unmounted lazily, its file's path would become "/img",
 * which names no run, and the loop device could no longer be found. */
static void stop_daemon(struct faultdev *f, int loop_free)
{
    int st;
    if (!loop_free)
        return;
    if (bk_is_mounted(f->mnt))
        bk_unmount(f->mnt, 2.0);
    if (f->pid <= 0)
        return;
    double end = now_seconds() + 2.0;
    while (waitpid(f->pid, &st, WNOHANG) == 0) {
        if (now_seconds() > end) {
            kill(-f->pid, SIGKILL);
            waitpid(f->pid, &st, 0);
            break;
        }
        bk_sleep(1e-3);
    }
    f->pid = -1;
}

void faultdev_close(struct faultdev *f)
{
    if (!f)
        return;
    if (f->ctlfd >= 0)
        close(f->ctlfd);
    if (f->loopnr >= 0)
        bk_loop_detach(f->loopnr);
    if (f->imgfd >= 0)
        close(f->imgfd);
    stop_daemon(f, f->loopnr < 0 || bk_loop_wait_detached(f->loopnr, 3.0) == 0);
    rmdir(f->mnt);
    free(f);
}
