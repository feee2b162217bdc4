/* Run-owned tmpfs scratch space beside a fs's mount point: made, renewed and removed with the run. */
#include "backend/base/scratch.h"
#include "backend/base/backend_types.h"
#include "backend/base/common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int mount_tmpfs(struct backend *b, struct scratch *s)
{
    char data[128] = "mode=0755";
    size_t n = strlen(data);
    if (s->size)
        n += snprintf(data + n, sizeof data - n, ",size=%llu", (unsigned long long)s->size);
    if (s->inodes)
        snprintf(data + n, sizeof data - n, ",nr_inodes=%llu", (unsigned long long)s->inodes);
    if (mount("metis-scratch", s->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_SILENT, data) < 0)
        return bk_err(b, "scratch", "cannot mount a tmpfs (%s) on %s: %s", data, s->path,
                      strerror(errno));
    s->mounted = 1;
    return 0;
}

int scratch_mount(struct backend *b, struct scratch *s, const char *suffix, uint64_t size,
                  uint64_t inodes)
{
    if (snprintf(s->path, sizeof s->path, "%s.%s", b->mnt, suffix) >= (int)sizeof s->path)
        return bk_err(b, "scratch", "path of %s.%s too long", b->mnt, suffix);
    if (mkdir(s->path, 0700) < 0 && errno != EEXIST)
        return bk_err(b, "scratch", "cannot make %s: %s", s->path, strerror(errno));
    s->size = size;
    s->inodes = inodes;
    return mount_tmpfs(b, s);
}

int scratch_fresh(struct backend *b, struct scratch *s)
{
    if (s->mounted && bk_unmount(s->path, 2.0) < 0)
        return bk_err(b, "scratch", "%s is still in use: cannot start it afresh", s->path);
    s->mounted = 0;
    return mount_tmpfs(b, s);
}

int scratch_subdir(struct backend *b, struct scratch *s, const char *name, char *out, size_t len)
{
    if (snprintf(out, len, "%s/%s", s->path, name) >= (int)len)
        return bk_err(b, "scratch", "path of %s/%s too long", s->path, name);
    if (mkdir(out, 0755) < 0 && errno != EEXIST)
        return bk_err(b, "scratch", "cannot make %s: %s", out, strerror(errno));
    return 0;
}

void scratch_unmount(struct scratch *s)
{
    if (!s->path[0])
        return;
    if (s->mounted)
        bk_unmount(s->path, 2.0);
    s->mounted = 0;
    rmdir(s->path);
    s->path[0] = 0;
}
