/* Loop devices for image-backed backends: attach an image to a free device, detach, sweep a run's. */
#include "backend/base/loopdev.h"
#include "backend/base/process.h"
#include "lib/system/helpers.h"
#include "tree/tree.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int loop_configure(int lfd, int fd, const char *file, unsigned flags)
{
    struct loop_config lc;
    memset(&lc, 0, sizeof lc);
    lc.fd = (unsigned)fd;
    lc.info.lo_flags = flags;
    snprintf((char *)lc.info.lo_file_name, sizeof lc.info.lo_file_name, "%s", file);
    if (ioctl(lfd, LOOP_CONFIGURE, &lc) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOTTY)
        return -1;
    /* kernels before 5.8 */
    if (ioctl(lfd, LOOP_SET_FD, fd) < 0)
        return -1;
    if (ioctl(lfd, LOOP_SET_STATUS64, &lc.info) < 0) {
        int e = errno;
        ioctl(lfd, LOOP_CLR_FD, 0);
        errno = e;
        return -1;
    }
    return 0;
}

static int loop_attach(int fd, const char *file, unsigned flags)
{
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0)
        return -1;
    for (int tries = 0; tries < 32; tries++) {
        int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
        char dev[32];
        if (nr < 0)
            break;
        snprintf(dev, sizeof dev, "/dev/loop%d", nr);
        int lfd = open(dev, O_RDWR | O_CLOEXEC);
        if (lfd < 0) {
            if (errno != ENOENT)
                break;
            usleep(1000);        /* the device node is still being made */
            continue;
        }
        int rc = loop_configure(lfd, fd, file, flags), e = errno;
        close(lfd);
        if (rc == 0) {
            close(ctl);
            return nr;
        }
        if (e != EBUSY) {       /* EBUSY: another process took it first */
            errno = e;
            break;
        }
    }
    int e = errno;
    close(ctl);
    errno = e;
    return -1;
}

int bk_loop_attach(int fd, const char *file)
{
    return loop_attach(fd, file, 0);
}

int bk_loop_attach_direct(int fd, const char *file)
{
    return loop_attach(fd, file, LO_FLAGS_DIRECT_IO);
}

int bk_loop_attach_readonly(int fd, const char *file)
{
    int nr = loop_attach(fd, file, LO_FLAGS_READ_ONLY | LO_FLAGS_DIRECT_IO);
    return nr >= 0 ? nr : loop_attach(fd, file, LO_FLAGS_READ_ONLY);
}

int bk_loop_detach(int nr)
{
    char dev[32];
    snprintf(dev, sizeof dev, "/dev/loop%d", nr);
    int lfd = open(dev, O_RDONLY | O_CLOEXEC);
    if (lfd < 0)
        return -1;
    int rc = ioctl(lfd, LOOP_CLR_FD, 0);
    if (rc < 0 && errno == EBUSY) {
        struct loop_info64 info;
        if (ioctl(lfd, LOOP_GET_STATUS64, &info) == 0) {
            info.lo_flags |= LO_FLAGS_AUTOCLEAR;   /* still mounted lazily: detach when released */
            rc = ioctl(lfd, LOOP_SET_STATUS64, &info);
        }
    }
    close(lfd);
    return rc;
}

int bk_loop_wait_detached(int nr, double timeout)
{
    char path[64];
    double end = now_seconds() + timeout;
    snprintf(path, sizeof path, "/sys/block/loop%d/loop/backing_file", nr);
    while (access(path, F_OK) == 0) {
        if (now_seconds() > end)
            return -1;
        bk_sleep(1e-3);
    }
    return 0;
}

int bk_loop_backing_file(const char *name, char *file, size_t len)
{
    char path[512];
    int nr;
    if (sscanf(name, "loop%d", &nr) != 1)
        return -1;
    snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int got = fgets(file, (int)len, f) != NULL;
    fclose(f);
    if (!got)
        return -1;
    file[strcspn(file, "\n")] = '\0';
    return nr;
}

struct loop_sweep {
    const char *prefix;
    int detached;
    char *err;
    size_t errlen;
};

/* Detaches the /sys/block entry name when it is a loop device backed by a file under prefix. */
static int loop_sweep_one(void *ctx, const char *name)
{
    struct loop_sweep *s = ctx;
    char file[4096];
    int nr = bk_loop_backing_file(name, file, sizeof file);
    if (nr < 0 || strncmp(file, s->prefix, strlen(s->prefix)) != 0)
        return 0;
    if (bk_loop_detach(nr) == 0)
        s->detached++;
    else if (s->err && !s->err[0])
        snprintf(s->err, s->errlen, "cannot detach /dev/loop%d (%s): %s", nr, file, strerror(errno));
    return 0;
}

int bk_loop_sweep(const char *prefix, char *err, size_t errlen)
{
    struct loop_sweep s = { prefix, 0, err, errlen };
    tree_dir_names("/sys/block", loop_sweep_one, &s);
    return s.detached;
}
