/* Restore calls run confined below a mount's root: the one implementation a logical restore, a replay and every reproducer (which get this file as text) run. */
#include "backend/logical/calls/rcalls.h"
#include "lib/system/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The path relative to the root, "." for the root itself. */
static const char *rc_rel(const char *path)
{
    return path[1] ? path + 1 : ".";
}

/* Calls on a name in its parent directory. */
static long rc_in_parent(int rootfd, const struct rcall *c)
{
    char buf[4096];
    const char *last;
    int dfd = beneath_parent(rootfd, c->path, buf, sizeof buf, &last);
    long r = -1;
    if (dfd < 0)
        return -1;
    if (c->kind == RC_UNLINK || c->kind == RC_RMDIR)
        r = unlinkat(dfd, last, c->kind == RC_RMDIR ? AT_REMOVEDIR : 0);
    else if (c->kind == RC_MKDIR)
        r = mkdirat(dfd, last, (mode_t)c->mode);
    else if (c->kind == RC_SYMLINK)
        r = symlinkat(c->path2, dfd, last);
    else if (c->kind == RC_MKNOD)
        r = mknodat(dfd, last, (mode_t)c->mode, 0);
    else
        errno = EINVAL;
    return beneath_close(dfd, r);
}

/* A hard link at path to the file path2 names. */
static long rc_link(int rootfd, const struct rcall *c)
{
    char to_buf[4096], from_buf[4096];
    const char *to_last, *from_last;
    int to = beneath_parent(rootfd, c->path, to_buf, sizeof to_buf, &to_last);
    int from = to < 0 ? -1
                      : beneath_parent(rootfd, c->path2, from_buf, sizeof from_buf, &from_last);
    long r = from < 0 ? -1 : linkat(from, from_last, to, to_last, 0);
    beneath_close(from, 0);
    return beneath_close(to, r);
}

/* Every byte, again after a short write; the length, or -1. */
static long rc_write_all(int fd, const struct rcall *c)
{
    size_t done = 0;
    while (done < c->len) {
        ssize_t n = pwrite(fd, c->data + done, c->len - done, (off_t)(c->off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return (long)done;
}

static int rc_open_flags(enum rcall_kind k)
{
    if (k == RC_CREATE)
        return O_WRONLY | O_CREAT | O_EXCL;
    return k == RC_SETXATTR || k == RC_REMOVEXATTR ? O_RDONLY : O_WRONLY;
}

/* Calls through a descriptor of the file, opened for the call and closed after it. */
static long rc_through_fd(int rootfd, const struct rcall *c)
{
    int fd = beneath_open(rootfd, rc_rel(c->path), (uint64_t)(rc_open_flags(c->kind) | O_NOFOLLOW),
                          (mode_t)c->mode);
    long r = 0;
    if (fd < 0)
        return -1;
    if (c->kind == RC_WRITE)
        r = rc_write_all(fd, c);
    else if (c->kind == RC_TRUNCATE)
        r = ftruncate(fd, (off_t)c->size);
    else if (c->kind == RC_PUNCH)
        r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)c->off,
                      (off_t)c->size);
    else if (c->kind == RC_SETXATTR)
        r = fsetxattr(fd, c->xname, c->data, c->len, 0);
    else if (c->kind == RC_REMOVEXATTR)
        r = fremovexattr(fd, c->xname);
    return beneath_close(fd, r);
}

/* Owner and mode of the inode the path names, never of what a symlink points to. */
static long rc_on_inode(int rootfd, const struct rcall *c)
{
    char proc[64];
    int fd = beneath_open(rootfd, rc_rel(c->path), O_PATH | O_NOFOLLOW, 0);
    if (fd < 0)
        return -1;
    long r = c->kind == RC_CHOWN
                 ? fchownat(fd, "", c->uid, c->gid, AT_EMPTY_PATH)
                 : chmod(beneath_fd_path(fd, proc, sizeof proc), (mode_t)c->mode);
    return beneath_close(fd, r);
}

long rcall_exec(int rootfd, const struct rcall *c)
{
    switch (c->kind) {
    case RC_UNLINK: case RC_RMDIR: case RC_MKDIR: case RC_SYMLINK: case RC_MKNOD:
        return rc_in_parent(rootfd, c);
    case RC_LINK:
        return rc_link(rootfd, c);
    case RC_CREATE: case RC_WRITE: case RC_TRUNCATE: case RC_PUNCH: case RC_SETXATTR:
    case RC_REMOVEXATTR:
        return rc_through_fd(rootfd, c);
    case RC_CHOWN: case RC_CHMOD:
        return rc_on_inode(rootfd, c);
    default:
        errno = EINVAL;
        return -1;
    }
}
