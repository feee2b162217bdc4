/* The one walk of a mounted tree (getdents64, no symlink followed): every listing, digest and recorded tree of Metis and its reproducers is made from it; also the one reader of plain directories. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tree.h"

static int tree_walk_dir(struct tree_walk *w, int dfd, size_t plen, int is_root);

/* Per thread, as each file system is read back by a worker of its own. */
static _Thread_local int tree_fresh_attrs;

void tree_walk_fresh_attrs(int on)
{
    tree_fresh_attrs = on;
}

static void tree_stat_of_statx(const struct statx *x, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_dev = makedev(x->stx_dev_major, x->stx_dev_minor);
    st->st_ino = x->stx_ino;
    st->st_mode = x->stx_mode;
    st->st_nlink = x->stx_nlink;
    st->st_uid = x->stx_uid;
    st->st_gid = x->stx_gid;
    st->st_rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor);
    st->st_size = (off_t)x->stx_size;
    st->st_blksize = (blksize_t)x->stx_blksize;
    st->st_blocks = (blkcnt_t)x->stx_blocks;
    st->st_atim = (struct timespec){ x->stx_atime.tv_sec, x->stx_atime.tv_nsec };
    st->st_mtim = (struct timespec){ x->stx_mtime.tv_sec, x->stx_mtime.tv_nsec };
    st->st_ctim = (struct timespec){ x->stx_ctime.tv_sec, x->stx_ctime.tv_nsec };
}

/* fstatat, or past the attribute cache when asked: with AT_STATX_FORCE_SYNC the FUSE kernel
 * module asks the daemon instead of answering from what an earlier reply said (a local file
 * system ignores the flag). name "" with AT_EMPTY_PATH: dfd itself. */
static int tree_stat(int dfd, const char *name, int flags, struct stat *st)
{
    struct statx x;
    if (!tree_fresh_attrs)
        return fstatat(dfd, name, st, flags);
    if (statx(dfd, name, flags | AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &x))
        return -1;
    tree_stat_of_statx(&x, st);
    return 0;
}

static int tree_is_dot(const char *nm)
{
    return nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0'));
}

/* An excluded root entry that is a directory still counts in the root's link count. */
static int tree_excluded_dir(int dfd, const struct dirent64 *d)
{
    struct stat st;
    return d->d_type == DT_DIR ||
           (d->d_type == DT_UNKNOWN && tree_stat(dfd, d->d_name, AT_SYMLINK_NOFOLLOW, &st) == 0 &&
            S_ISDIR(st.st_mode));
}

typedef int tree_dirent_fn(void *ctx, int dfd, const struct dirent64 *d);

/* Hands every entry of dfd but . and .. to fn until fn returns non-zero (returned); 0 at the
 * end, -1 with errno when reading fails. A directory is read a few entries at a time: the file
 * system must then resume the listing at a position it handed out, which is where readdir
 * bugs live (a FUSE daemon that loses or repeats the entry after a cookie), and a pool's
 * directories are too small to need a second read otherwise. A buffer too small for the next
 * entry (EINVAL: a long name) is doubled. */
static int tree_each_dirent(int dfd, tree_dirent_fn *fn, void *ctx)
{
    char dbuf[16384] __attribute__((aligned(8)));
    size_t want = 128;
    for (;;) {
        ssize_t n = getdents64(dfd, dbuf, want);
        if (n < 0 && errno == EINVAL && want < sizeof dbuf) {
            want *= 2;
            continue;
        }
        if (n <= 0)
            return (int)n;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(dbuf + off);
            off += d->d_reclen;
            int rc = tree_is_dot(d->d_name) ? 0 : fn(ctx, dfd, d);
            if (rc)
                return rc;
        }
    }
}

struct tree_collect {
    struct tree_walk *w;
    int is_root;
    long excluded_dirs;
};

/* Pushes one name onto the name stack; counts the root's excluded directories. */
static int tree_collect_name(void *ctx, int dfd, const struct dirent64 *d)
{
    struct tree_collect *c = ctx;
    if (c->is_root && tree_excluded(c->w->exclude, d->d_name)) {
        c->excluded_dirs += tree_excluded_dir(dfd, d);
        return 0;
    }
    char t = (char)d->d_type;
    return buf_add(&c->w->names, &t, 1) || buf_add(&c->w->names, d->d_name, strlen(d->d_name) + 1)
               ? -1 : 0;
}

struct tree_names {
    int (*fn)(void *ctx, const char *name);
    void *ctx;
};

static int tree_pass_name(void *ctx, int dfd, const struct dirent64 *d)
{
    struct tree_names *t = ctx;
    (void)dfd;
    return t->fn(t->ctx, d->d_name);
}

int tree_dir_names(const char *path, int (*fn)(void *ctx, const char *name), void *ctx)
{
    struct tree_names t = { fn, ctx };
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = tree_each_dirent(fd, tree_pass_name, &t);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int tree_open_child(int dfd, const char *name, int flags)
{
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM)    /* O_NOATIME needs ownership or CAP_FOWNER */
        fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

/* A regular file or directory: opened, visited (a file's fd may be kept), a directory walked. */
static int tree_visit_open(struct tree_walk *w, int dfd, const char *name, int dir, size_t plen)
{
    struct tree_entry e = { .path = w->path, .fd = -1 };
    e.fd = tree_open_child(dfd, name, dir ? O_RDONLY | O_DIRECTORY
                                          : O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (e.fd < 0)
        return -1;
    int rc = tree_stat(e.fd, "", AT_EMPTY_PATH, &e.st) ? -1 : w->visit(w->ctx, &e);
    if (rc == 1 && S_ISREG(e.st.st_mode))
        return 0;               /* the visitor keeps the fd */
    if (rc == 0 && S_ISDIR(e.st.st_mode))
        rc = tree_walk_dir(w, e.fd, plen, 0);
    int saved = errno;
    close(e.fd);
    errno = saved;
    return rc < 0 ? -1 : 0;
}

/* Regular files and directories are opened (contents, xattrs, recursion); the rest stat'ed. */
static int tree_visit(struct tree_walk *w, int dfd, const char *name, unsigned char dtype,
                      size_t plen)
{
    struct tree_entry e = { .path = w->path, .fd = -1 };
    char target[TREE_PATH_MAX];
    int statted = dtype == DT_UNKNOWN;  /* a file system that gives no type: stat once here */
    if (statted) {
        if (tree_stat(dfd, name, AT_SYMLINK_NOFOLLOW, &e.st))
            return -1;
        dtype = S_ISREG(e.st.st_mode) ? DT_REG : S_ISDIR(e.st.st_mode) ? DT_DIR : DT_LNK;
    }
    if (dtype == DT_REG || dtype == DT_DIR)
        return tree_visit_open(w, dfd, name, dtype == DT_DIR, plen);
    if (!statted && tree_stat(dfd, name, AT_SYMLINK_NOFOLLOW, &e.st))
        return -1;
    if (S_ISLNK(e.st.st_mode)) {
        ssize_t n = readlinkat(dfd, name, target, sizeof target);
        if (n < 0)
            return -1;
        e.target = target;
        e.tlen = (size_t)n;
    }
    return w->visit(w->ctx, &e) < 0 ? -1 : 0;
}

/* The root's own entry, once its names (and so its excluded directories) are known. */
static int tree_visit_root(struct tree_walk *w, int dfd, long excluded_dirs)
{
    struct tree_entry e = { .path = "/", .fd = dfd, .nlink_adj = excluded_dirs };
    return tree_stat(dfd, "", AT_EMPTY_PATH, &e.st) || w->visit(w->ctx, &e) < 0 ? -1 : 0;
}

/* Walks the names below dfd; w->path holds the directory's path (plen bytes, "" for the root). */
static int tree_walk_dir(struct tree_walk *w, int dfd, size_t plen, int is_root)
{
    size_t start = w->names.len;
    struct tree_collect c = { w, is_root, 0 };
    if (tree_each_dirent(dfd, tree_collect_name, &c) ||
        (is_root && tree_visit_root(w, dfd, c.excluded_dirs)))
        return -1;
    size_t end = w->names.len;
    for (size_t i = start; i < end;) {
        unsigned char dtype = (unsigned char)w->names.p[i];
        char name[256 + 1];     /* copied out: recursion may move the name stack */
        snprintf(name, sizeof name, "%s", w->names.p + i + 1);
        size_t nlen = strlen(name);
        i += nlen + 2;
        if (plen + 1 + nlen >= sizeof w->path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        w->path[plen] = '/';
        memcpy(w->path + plen + 1, name, nlen + 1);
        if (tree_visit(w, dfd, name, dtype, plen + 1 + nlen))
            return -1;
        w->path[plen] = '\0';
    }
    w->names.len = start;
    return 0;
}

int tree_walk(struct tree_walk *w, int rootfd)
{
    w->names.len = 0;
    w->path[0] = '\0';
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = tree_walk_dir(w, fd, 0, 1);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

void tree_walk_free(struct tree_walk *w)
{
    buf_free(&w->names);
}
