/* Paths resolved below a mount's root and never outside it: openat2 with RESOLVE_BENEATH, for operations and restore calls alike (pasted into reproducers too). */
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int beneath_open(int rootfd, const char *rel, uint64_t flags, mode_t mode)
{
    if (!(flags & O_PATH))
        flags |= O_NONBLOCK;
    struct open_how how = {
        .flags = flags | O_CLOEXEC,
        .mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
}

int beneath_parent(int rootfd, const char *path, char *buf, size_t buflen, const char **last)
{
    snprintf(buf, buflen, "%s", path + 1);
    char *slash = strrchr(buf, '/');
    if (!slash) {
        *last = buf;
        return beneath_open(rootfd, ".", O_PATH | O_DIRECTORY, 0);
    }
    *slash = '\0';
    *last = slash + 1;
    return beneath_open(rootfd, buf, O_PATH | O_DIRECTORY, 0);
}

const char *beneath_fd_path(int fd, char *buf, size_t len)
{
    snprintf(buf, len, "/proc/self/fd/%d", fd);
    return buf;
}

long beneath_close(int fd, long ret)
{
    int saved = errno;
    if (fd >= 0)
        close(fd);
    errno = saved;
    return ret;
}
