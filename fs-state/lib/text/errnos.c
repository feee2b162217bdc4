/* Errno names from glibc's own table, so they match what strace and the kernel headers say. */
#include "errnos.h"
#include <string.h>

const char *errno_name(int err)
{
    if (err == 0)
        return "0";
    const char *n = strerrorname_np(err);
    return n ? n : "E?";
}

int errno_by_name(const char *name)
{
    for (int e = 1; e < ERRNO_MAX; e++) {
        const char *n = strerrorname_np(e);
        if (n && strcmp(n, name) == 0)
            return e;
    }
    return -1;
}
