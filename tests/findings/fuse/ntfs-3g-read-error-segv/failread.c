/* An LD_PRELOAD shim that makes a process's device reads fail the way a failing disk does: once the file $FAILREAD_ARM exists, its $FAILREAD_AT-th pread (0 first) and every later one fail with EIO. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static long reads_since_armed;

/* Whether this read is to fail: the arm file exists and the count has reached FAILREAD_AT. */
static int read_fails(void)
{
    const char *arm = getenv("FAILREAD_ARM");
    const char *at = getenv("FAILREAD_AT");
    if (!arm || access(arm, F_OK) != 0)
        return 0;
    return reads_since_armed++ >= (at ? atol(at) : 0);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t off)
{
    static ssize_t (*real_pread)(int, void *, size_t, off_t);
    if (!real_pread)
        real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    if (read_fails()) {
        errno = EIO;
        return -1;
    }
    return real_pread(fd, buf, count, off);
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
    return pread64(fd, buf, count, off);
}
