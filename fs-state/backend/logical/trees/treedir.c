/* Recorded trees written out as a directory and read back in: the saved states of file systems that have no image (a tmpfs, a FUSE fs's backing directories). */
#define _XOPEN_SOURCE 700       /* nftw */
#include "backend/logical/trees/treedir.h"
#include "backend/base/common.h"
#include "backend/logical/trees/logical_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_tree(const struct ft_tree *a, const struct ft_tree *b)
{
    return a->dlen == b->dlen && memcmp(a->digest, b->digest, (size_t)a->dlen) == 0 &&
           ft_same_links(a, b);
}

/* The difference from what dirfd holds (an empty directory) to t, then a second recording:
 * a call the directory's fs refused (an xattr namespace, a device node) shows there. */
int td_fill(struct ft_store *st, int dirfd, const struct ft_tree *t, char *err, size_t errlen)
{
    struct lg_counts n = { 0, 0, 0, 0 };
    struct ft_tree *empty = ft_record(st, dirfd, NULL), *got = NULL;
    int rc = -1;
    if (!empty)
        snprintf(err, errlen, "reading the empty directory: %s", strerror(errno));
    else if (logical_apply(dirfd, empty, t, 0, &n, NULL, err, errlen) == 0 &&
             !(got = ft_record(st, dirfd, t)))
        snprintf(err, errlen, "reading it back: %s", strerror(errno));
    else if (got && !same_tree(got, t))
        ft_first_difference(st, t, "saved", got, "written", err, errlen);
    else if (got)
        rc = 0;
    ft_unref(st, empty);
    ft_unref(st, got);
    return rc;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int td_write(struct ft_store *st, const struct ft_tree *t, const char *path, char *err,
             size_t errlen)
{
    if (access(path, F_OK) == 0 && nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
        return snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno)), -1;
    if (mkdir(path, 0700) < 0)
        return snprintf(err, errlen, "cannot make %s: %s", path, strerror(errno)), -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno)), -1;
    int rc = td_fill(st, fd, t, err, errlen);
    close(fd);
    return rc;
}

struct ft_tree *td_read(struct ft_store *st, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct ft_tree *t = fd < 0 ? NULL : ft_record(st, fd, NULL);
    if (!t)
        snprintf(err, errlen, "cannot read the directory %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return t;
}

int td_export(struct backend *b, struct ft_store *st, const struct ft_tree *t, uint64_t id,
              const char *path)
{
    char why[700];
    return td_write(st, t, path, why, sizeof why) < 0
               ? bk_err(b, "export", "state %llu: %s", (unsigned long long)id, why) : 0;
}

struct ft_tree *td_import(struct backend *b, struct ft_store *st, const char *path)
{
    char why[700];
    struct ft_tree *t = td_read(st, path, why, sizeof why);
    if (!t)
        bk_err(b, "import", "%s", why);
    return t;
}
