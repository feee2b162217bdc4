/* bin/reffs: the thin FUSE 3 low-level daemon that mounts the RefFS library and serves its snapshot ioctls. */
#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reffs.h"
#include "reffs_ioctl.h"

#ifdef REFFS_MUTANT
#define PROG "reffs-mutant"
const char *reffs_mutation_list(int i, const char **rule);
#else
#define PROG "reffs"
#endif

/* Everything the kernel caches stays valid until we say otherwise: all changes go through us,
 * and restores and loads send explicit invalidations. */
#define CACHE_TIMEOUT 86400.0

struct daemon {
    struct reffs *fs;
    struct fuse_session *se;
    const char *mountpoint;  /* canonical, from fuse_parse_cmdline */
    size_t mountpoint_len;
    int debug;
    int zero_opendir;  /* the kernel opens directories without asking us (see op_init) */
    int zero_open;     /* -o noopen: the same for files */
    int nosnapshots;   /* -o nosnapshots: the snapshot ioctls are refused (ENOTTY) */
    uint64_t max_file; /* -o maxfilesize: EFBIG past it (0: RefFS's own limit) */
    int stale_replies; /* reffs-mutant -o stale_attr_replies: a test hook (op_setattr) */
};

static struct daemon *dm(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

static struct reffs *fs_of(fuse_req_t req)
{
    return dm(req)->fs;
}

/* ---- replies ---- */

static void reply_status(fuse_req_t req, int ret)
{
    fuse_reply_err(req, ret < 0 ? -ret : 0);
}

/* The kernel takes one lookup reference with each entry; if the reply never reaches it
 * (interrupted request), give the reference back so the library can free the inode. */
static void reply_entry(fuse_req_t req, int ret, const struct reffs_entry *re)
{
    if (ret < 0) {
        fuse_reply_err(req, -ret);
        return;
    }
    struct fuse_entry_param e = {
        .ino = re->st.st_ino,
        .generation = re->generation,
        .attr = re->st,
        .attr_timeout = CACHE_TIMEOUT,
        .entry_timeout = CACHE_TIMEOUT,
    };
    if (fuse_reply_entry(req, &e) != 0)
        reffs_forget(fs_of(req), re->st.st_ino, 1);
}

static void reply_stat(fuse_req_t req, int ret, const struct stat *st)
{
    if (ret < 0)
        fuse_reply_err(req, -ret);
    else
        fuse_reply_attr(req, st, CACHE_TIMEOUT);
}

/* ---- namespace ---- */

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    struct daemon *d = userdata;
    /* Every write must reach RefFS at once: Metis compares states right after each call. */
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    /* Root writes/chowns clear set-id bits the kernel way; RefFS leaves that to the kernel. */
    conn->want &= ~FUSE_CAP_HANDLE_KILLPRIV;
    if (conn->capable & FUSE_CAP_IOCTL_DIR)
        conn->want |= FUSE_CAP_IOCTL_DIR;
    if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
        conn->want |= FUSE_CAP_CACHE_SYMLINKS;
    /* The kernel then opens directories without asking us and keeps their listings. */
    d->zero_opendir = (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) != 0;
    /* Files need OPEN and RELEASE, as RefFS charges an unlinked file's space while it is
     * open, unless -o noopen trades that for two round trips less per open (the kernel's
     * lookup still keeps the file readable: lib/core/inode.c, held_by_kernel). */
    if (!(conn->capable & FUSE_CAP_NO_OPEN_SUPPORT))
        d->zero_open = 0;
    if (d->zero_open) {
        /* No OPEN reaches us, so the kernel must truncate for O_TRUNC with a SETATTR. */
        conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
    } else if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC) {
        conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
    }
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct reffs_entry e;
    int ret = reffs_lookup(fs_of(req), parent, name, &e);
    if (ret == -ENOENT) {
        /* A negative entry the kernel may cache; restores invalidate names they bring back. */
        struct fuse_entry_param neg = { .ino = 0, .entry_timeout = CACHE_TIMEOUT };
        fuse_reply_entry(req, &neg);
        return;
    }
    reply_entry(req, ret, &e);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    reffs_forget(fs_of(req), ino, nlookup);
    fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    for (size_t i = 0; i < count; i++)
        reffs_forget(fs_of(req), forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct stat st;
    int ret = reffs_getattr(fs_of(req), ino, &st);
    reply_stat(req, ret, &st);
}

static void set_time(struct timespec *dst, const struct timespec *src, int now)
{
    if (now) {
        dst->tv_sec = 0;
        dst->tv_nsec = UTIME_NOW;
    } else {
        *dst = *src;
    }
}

/* -o maxfilesize: files that may not end past it, as a file system with a small limit. */
static int past_max(fuse_req_t req, uint64_t end)
{
    return dm(req)->max_file && end > dm(req)->max_file;
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                       struct fuse_file_info *fi)
{
    struct reffs_setattr sa = { 0 };
    if ((to_set & FUSE_SET_ATTR_SIZE) && past_max(req, (uint64_t)attr->st_size)) {
        fuse_reply_err(req, EFBIG);
        return;
    }
    if (to_set & FUSE_SET_ATTR_MODE) {
        sa.valid |= REFFS_SET_MODE;
        sa.mode = attr->st_mode & 07777;
    }
    if (to_set & FUSE_SET_ATTR_UID) {
        sa.valid |= REFFS_SET_UID;
        sa.uid = attr->st_uid;
    }
    if (to_set & FUSE_SET_ATTR_GID) {
        sa.valid |= REFFS_SET_GID;
        sa.gid = attr->st_gid;
    }
    if (to_set & FUSE_SET_ATTR_SIZE) {
        sa.valid |= REFFS_SET_SIZE;
        sa.size = attr->st_size;
    }
    if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)) {
        sa.valid |= REFFS_SET_ATIME;
        set_time(&sa.atime, &attr->st_atim, to_set & FUSE_SET_ATTR_ATIME_NOW);
    }
    if (to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)) {
        sa.valid |= REFFS_SET_MTIME;
        set_time(&sa.mtime, &attr->st_mtim, to_set & FUSE_SET_ATTR_MTIME_NOW);
    }
    if (to_set & FUSE_SET_ATTR_CTIME) {
        sa.valid |= REFFS_SET_CTIME;
        sa.ctime = attr->st_ctim;
    }
    struct stat st, before;
    int stale = dm(req)->stale_replies && (sa.valid & REFFS_SET_MODE) &&
                reffs_getattr(fs_of(req), ino, &before) == 0;
    int ret = reffs_setattr(fs_of(req), ino, &sa, &st);
    /* The test hook: RefFS keeps the new mode, but the kernel caches the old one from the
     * reply for the attribute timeout (a day), as from a daemon whose cache is stale. */
    if (stale)
        st.st_mode = before.st_mode;
    reply_stat(req, ret, &st);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                     dev_t rdev)
{
    const struct fuse_ctx *c = fuse_req_ctx(req);
    struct reffs_entry e;
    int ret = reffs_mknod(fs_of(req), parent, name, mode, rdev, c->uid, c->gid, &e);
    reply_entry(req, ret, &e);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    const struct fuse_ctx *c = fuse_req_ctx(req);
    struct reffs_entry e;
    int ret = reffs_mkdir(fs_of(req), parent, name, mode & 07777, c->uid, c->gid, &e);
    reply_entry(req, ret, &e);
}

static void op_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name)
{
    const struct fuse_ctx *c = fuse_req_ctx(req);
    struct reffs_entry e;
    int ret = reffs_symlink(fs_of(req), parent, name, target, c->uid, c->gid, &e);
    reply_entry(req, ret, &e);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
    struct reffs_entry e;
    int ret = reffs_link(fs_of(req), ino, newparent, newname, &e);
    reply_entry(req, ret, &e);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    reply_status(req, reffs_unlink(fs_of(req), parent, name));
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    reply_status(req, reffs_rmdir(fs_of(req), parent, name));
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
                      fuse_ino_t newparent, const char *newname, unsigned int flags)
{
    reply_status(req, reffs_rename(fs_of(req), parent, name, newparent, newname, flags));
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    char buf[PATH_MAX + 1];
    int ret = reffs_readlink(fs_of(req), ino, buf, sizeof buf - 1);
    if (ret < 0) {
        fuse_reply_err(req, -ret);
        return;
    }
    if ((size_t)ret >= sizeof buf) {
        fuse_reply_err(req, ENAMETOOLONG);
        return;
    }
    buf[ret] = '\0';
    fuse_reply_readlink(req, buf);
}

/* ---- files ---- */

/* The kernel passes O_TRUNC on open (atomic_o_trunc) and expects the file system to truncate,
 * also for O_RDONLY|O_TRUNC, as Linux does. */
static int truncate_on_open(struct reffs *fs, fuse_ino_t ino, int flags)
{
    if (!(flags & O_TRUNC))
        return 0;
    struct reffs_setattr sa = { .valid = REFFS_SET_SIZE, .size = 0 };
    struct stat st;
    return reffs_setattr(fs, ino, &sa, &st);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct reffs *fs = fs_of(req);
    if (dm(req)->zero_open) {
        fuse_reply_err(req, ENOSYS);  /* the kernel stops sending OPEN and RELEASE */
        return;
    }
    int ret = reffs_open(fs, ino);
    if (ret == 0) {
        ret = truncate_on_open(fs, ino, fi->flags);
        if (ret < 0)
            reffs_release(fs, ino);
    }
    if (ret < 0) {
        fuse_reply_err(req, -ret);
        return;
    }
    fi->keep_cache = 1;
    if (fuse_reply_open(req, fi) != 0)
        reffs_release(fs, ino);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      struct fuse_file_info *fi)
{
    struct reffs *fs = fs_of(req);
    const struct fuse_ctx *c = fuse_req_ctx(req);
    struct reffs_entry re;
    int ret = reffs_mknod(fs, parent, name, S_IFREG | (mode & 07777), 0, c->uid, c->gid, &re);
    if (ret < 0) {
        fuse_reply_err(req, -ret);
        return;
    }
    /* With noopen no RELEASE may come for this file: do not count it as open. */
    ret = dm(req)->zero_open ? 0 : reffs_open(fs, re.st.st_ino);
    if (ret < 0) {
        reffs_forget(fs, re.st.st_ino, 1);
        fuse_reply_err(req, -ret);
        return;
    }
    struct fuse_entry_param e = {
        .ino = re.st.st_ino,
        .generation = re.generation,
        .attr = re.st,
        .attr_timeout = CACHE_TIMEOUT,
        .entry_timeout = CACHE_TIMEOUT,
    };
    fi->keep_cache = 1;
    if (fuse_reply_create(req, &e, fi) != 0) {
        if (!dm(req)->zero_open)
            reffs_release(fs, re.st.st_ino);
        reffs_forget(fs, re.st.st_ino, 1);
    }
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    reply_status(req, dm(req)->zero_open ? 0 : reffs_release(fs_of(req), ino));
}

/* Reads up to this size use the stack; the kernel's usual maximum (128 KiB) goes to the heap. */
#define STACK_READ_MAX (32 * 1024)

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    char stackbuf[STACK_READ_MAX];
    char *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    ssize_t n = reffs_read(fs_of(req), ino, buf, size, off);
    if (n < 0)
        fuse_reply_err(req, (int)-n);
    else
        fuse_reply_buf(req, buf, (size_t)n);
    if (buf != stackbuf)
        free(buf);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    uint64_t max = dm(req)->max_file;
    if (past_max(req, (uint64_t)off + 1)) {
        fuse_reply_err(req, EFBIG);
        return;
    }
    if (past_max(req, (uint64_t)off + size))
        size = (size_t)(max - (uint64_t)off);   /* short, as write(2) at the limit */
    ssize_t n = reffs_write_flags(fs_of(req), ino, buf, size, off, fi->flags);
    if (n < 0)
        fuse_reply_err(req, (int)-n);
    else
        fuse_reply_write(req, (size_t)n);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    if (past_max(req, (uint64_t)off + (uint64_t)len)) {
        fuse_reply_err(req, EFBIG);
        return;
    }
    reply_status(req, reffs_fallocate(fs_of(req), ino, mode, off, len));
}

/* The reply's count is 32 bits wide; Linux's MAX_RW_COUNT keeps it there, and a short count
 * is a valid answer the caller loops over. */
#define COPY_MAX 0x7ffff000

static void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                               struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                               struct fuse_file_info *fi_out, size_t len, int flags)
{
    ssize_t n = reffs_copy_range(fs_of(req), ino_in, off_in, ino_out, off_out,
                                 len < COPY_MAX ? len : COPY_MAX, (unsigned)flags);
    if (n < 0)
        fuse_reply_err(req, (int)-n);
    else
        fuse_reply_write(req, (size_t)n);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    reply_status(req, reffs_fsync(fs_of(req), ino));
}

/* ---- directories ---- */

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    if (dm(req)->zero_opendir) {
        fuse_reply_err(req, ENOSYS);  /* the kernel then caches listings by default */
        return;
    }
    /* The kernel may keep listings; changes through the mount and restores invalidate them. */
    fi->cache_readdir = 1;
    fi->keep_cache = 1;
    fuse_reply_open(req, fi);
}

struct dir_fill {
    fuse_req_t req;
    char *buf;
    size_t size, used;
};

static int fill_entry(void *ctx, const char *name, const struct stat *st, off_t next)
{
    struct dir_fill *d = ctx;
    size_t room = d->size - d->used;
    size_t need = fuse_add_direntry(d->req, d->buf + d->used, room, name, st, next);
    if (need > room)
        return 1;
    d->used += need;
    return 0;
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    struct dir_fill d = { .req = req, .buf = malloc(size), .size = size };
    if (!d.buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    int ret = reffs_readdir(fs_of(req), ino, off, fill_entry, &d);
    if (ret < 0)
        fuse_reply_err(req, -ret);
    else
        fuse_reply_buf(req, d.buf, d.used);
    free(d.buf);
}

/* ---- extended attributes, statfs, access ---- */

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                        size_t size, int flags)
{
    reply_status(req, reffs_setxattr(fs_of(req), ino, name, value, size, flags));
}

/* size 0 asks for the length only; otherwise the value or -ERANGE. */
static void reply_xattr_value(fuse_req_t req, ssize_t n, const char *buf, size_t size)
{
    if (n < 0)
        fuse_reply_err(req, (int)-n);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else
        fuse_reply_buf(req, buf, (size_t)n);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
    char stackbuf[4096];
    char *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    ssize_t n = reffs_getxattr(fs_of(req), ino, name, size ? buf : NULL, size);
    reply_xattr_value(req, n, buf, size);
    if (buf != stackbuf)
        free(buf);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    char stackbuf[4096];
    char *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    ssize_t n = reffs_listxattr(fs_of(req), ino, size ? buf : NULL, size);
    reply_xattr_value(req, n, buf, size);
    if (buf != stackbuf)
        free(buf);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    reply_status(req, reffs_removexattr(fs_of(req), ino, name));
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    struct statvfs sv;
    int ret = reffs_statfs(fs_of(req), &sv);
    if (ret < 0)
        fuse_reply_err(req, -ret);
    else
        fuse_reply_statfs(req, &sv);
}

static void op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
    reply_status(req, reffs_access(fs_of(req), ino, mask));
}

/* ---- snapshot ioctls ---- */

/* Invalidations the library reports while locked; sent to the kernel once it has unlocked. */
struct inval_item {
    reffs_ino ino;  /* the inode, or the parent of name */
    char *name;     /* NULL: invalidate the inode */
};
struct inval_queue {
    struct inval_item *items;
    size_t n, cap;
    int lost;       /* out of memory while queueing */
};

static void queue_push(struct inval_queue *q, reffs_ino ino, const char *name)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        struct inval_item *items = realloc(q->items, cap * sizeof *items);
        if (!items) {
            q->lost = 1;
            return;
        }
        q->items = items;
        q->cap = cap;
    }
    char *copy = NULL;
    if (name && !(copy = strdup(name))) {
        q->lost = 1;
        return;
    }
    q->items[q->n++] = (struct inval_item){ .ino = ino, .name = copy };
}

static void queue_inode(void *ctx, reffs_ino ino)
{
    queue_push(ctx, ino, NULL);
}

static void queue_entry(void *ctx, reffs_ino parent, const char *name)
{
    queue_push(ctx, parent, name);
}

/* Runs in the ioctl's thread before the reply: the caller sees the restored state at once.
 * -ENOENT only means the kernel did not cache that inode or name. */
static void queue_flush(struct daemon *d, struct inval_queue *q)
{
    for (size_t i = 0; i < q->n; i++) {
        struct inval_item *it = &q->items[i];
        int ret = it->name
            ? fuse_lowlevel_notify_inval_entry(d->se, it->ino, it->name, strlen(it->name))
            : fuse_lowlevel_notify_inval_inode(d->se, it->ino, 0, 0);
        if (ret < 0 && ret != -ENOENT && d->debug)
            fprintf(stderr, PROG ": invalidating %" PRIu64 "%s%s: %s\n", (uint64_t)it->ino,
                    it->name ? "/" : "", it->name ? it->name : "", strerror(-ret));
        free(it->name);
    }
    if (q->lost)
        fprintf(stderr, PROG ": out of memory queueing invalidations; kernel cache may be stale\n");
    free(q->items);
}

static int ioc_restore(struct daemon *d, uint64_t key)
{
    struct inval_queue q = { 0 };
    struct reffs_inval inval = { .inode = queue_inode, .entry = queue_entry, .ctx = &q };
    int ret = reffs_snapshot_restore(d->fs, key, &inval);
    queue_flush(d, &q);
    return ret;
}

/* The daemon writing or reading a file through its own mount would wait on itself. */
static int path_usable(struct daemon *d, const char *path)
{
    if (memchr(path, '\0', REFFS_IOC_PATH_MAX) == NULL || path[0] != '/')
        return -EINVAL;
    size_t n = d->mountpoint_len;
    if (strncmp(path, d->mountpoint, n) == 0 && (path[n] == '/' || path[n] == '\0'))
        return -EDEADLK;
    return 0;
}

/* Written beside the target and renamed over it, so a failed pickle leaves no partial file. */
static int ioc_pickle(struct daemon *d, const struct reffs_ioc_file *f)
{
    int ret = path_usable(d, f->path);
    if (ret < 0)
        return ret;
    char tmp[REFFS_IOC_PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", f->path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ret = reffs_pickle(d->fs, (f->flags & REFFS_IOC_ALL) != 0, f->key, fd);
    if (ret >= 0 && fchmod(fd, 0644) < 0)
        ret = -errno;
    if (close(fd) < 0 && ret >= 0)
        ret = -errno;
    if (ret >= 0 && rename(tmp, f->path) < 0)
        ret = -errno;
    if (ret < 0)
        unlink(tmp);
    return ret < 0 ? ret : 0;
}

static int ioc_load(struct daemon *d, struct reffs_ioc_file *f)
{
    int ret = path_usable(d, f->path);
    if (ret < 0)
        return ret;
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct inval_queue q = { 0 };
    struct reffs_inval inval = { .inode = queue_inode, .entry = queue_entry, .ctx = &q };
    uint64_t first = 0;
    ret = reffs_load(d->fs, fd, (f->flags & REFFS_IOC_RESTORE_AFTER) != 0, &inval, &first);
    close(fd);
    queue_flush(d, &q);
    f->key = first;
    return ret < 0 ? ret : 0;
}

/* Rewritten in place rather than renamed: the reader (Metis, between two operations) waits
 * for the reply, and this costs two syscalls less per read-back. */
static int ioc_dump(struct daemon *d, struct reffs_ioc_file *f)
{
    int ret = path_usable(d, f->path);
    if (ret < 0)
        return ret;
    void *buf;
    size_t len;
    if ((ret = reffs_dump(d->fs, &buf, &len)) < 0)
        return ret;
    int fd = open(f->path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    ret = fd < 0 ? -errno : 0;
    for (size_t done = 0; ret == 0 && done < len;) {
        ssize_t n = pwrite(fd, (char *)buf + done, len - done, (off_t)done);
        if (n <= 0)
            ret = n < 0 ? -errno : -EIO;
        else
            done += (size_t)n;
    }
    if (ret == 0 && ftruncate(fd, (off_t)len) < 0)
        ret = -errno;
    if (fd >= 0)
        close(fd);
    free(buf);
    f->key = len;
    return ret;
}

static int ioc_key_op(struct daemon *d, unsigned int cmd, uint64_t key)
{
    switch (cmd) {
    case REFFS_IOC_SAVE:
        return reffs_snapshot_save(d->fs, key);
    case REFFS_IOC_RESTORE:
        return ioc_restore(d, key);
    default:
        return reffs_snapshot_discard(d->fs, key);
    }
}

static void ioctl_key(fuse_req_t req, unsigned int cmd, const void *in, size_t in_size)
{
    struct reffs_ioc_key k;
    if (in_size < sizeof k) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    memcpy(&k, in, sizeof k);
    int ret = ioc_key_op(dm(req), cmd, k.key);
    if (ret < 0)
        fuse_reply_err(req, -ret);
    else
        fuse_reply_ioctl(req, 0, NULL, 0);
}

static void ioctl_file(fuse_req_t req, unsigned int cmd, const void *in, size_t in_size,
                       size_t out_size)
{
    struct reffs_ioc_file *f = malloc(sizeof *f);
    if (!f) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    int ret = -EINVAL;
    if (in_size >= sizeof *f) {
        memcpy(f, in, sizeof *f);
        ret = cmd == REFFS_IOC_PICKLE ? ioc_pickle(dm(req), f)
            : cmd == REFFS_IOC_DUMP   ? ioc_dump(dm(req), f)
                                      : ioc_load(dm(req), f);
    }
    if (ret < 0)
        fuse_reply_err(req, -ret);
    else if (cmd != REFFS_IOC_PICKLE && out_size >= sizeof *f)
        fuse_reply_ioctl(req, 0, f, sizeof *f);
    else
        fuse_reply_ioctl(req, 0, NULL, 0);
    free(f);
}

static void ioctl_stats(fuse_req_t req, size_t out_size)
{
    struct reffs_snap_stats s;
    if (out_size < sizeof(struct reffs_ioc_stats)) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    int ret = reffs_snapshot_stats(fs_of(req), &s);
    if (ret < 0) {
        fuse_reply_err(req, -ret);
        return;
    }
    struct reffs_ioc_stats out = { .count = s.count, .bytes = s.bytes };
    fuse_reply_ioctl(req, 0, &out, sizeof out);
}

static void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
                     struct fuse_file_info *fi, unsigned flags, const void *in_buf,
                     size_t in_bufsz, size_t out_bufsz)
{
    if (ino != REFFS_ROOT_INO || (flags & FUSE_IOCTL_COMPAT)) {
        fuse_reply_err(req, ENOTTY);
        return;
    }
    if (dm(req)->nosnapshots && (cmd == REFFS_IOC_SAVE || cmd == REFFS_IOC_RESTORE ||
                                 cmd == REFFS_IOC_DISCARD)) {
        fuse_reply_err(req, ENOTTY);
        return;
    }
    switch (cmd) {
    case REFFS_IOC_SAVE:
    case REFFS_IOC_RESTORE:
    case REFFS_IOC_DISCARD:
        ioctl_key(req, cmd, in_buf, in_bufsz);
        break;
    case REFFS_IOC_PICKLE:
    case REFFS_IOC_LOAD:
    case REFFS_IOC_DUMP:
        ioctl_file(req, cmd, in_buf, in_bufsz, out_bufsz);
        break;
    case REFFS_IOC_STATS:
        ioctl_stats(req, out_bufsz);
        break;
    default:
        fuse_reply_err(req, ENOTTY);
    }
}

static const struct fuse_lowlevel_ops reffs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .access = op_access,
    .create = op_create,
    .ioctl = op_ioctl,
    .fallocate = op_fallocate,
    .copy_file_range = op_copy_file_range,
};

/* ---- command line ---- */

struct reffs_cli {
    char *capacity;
    char *inodes;
    char *mutation;
    char *maxfilesize;
    int noopen;
    int nosnapshots;
    int stale_replies;
};

static const struct fuse_opt cli_spec[] = {
    { "capacity=%s", offsetof(struct reffs_cli, capacity), 0 },
    { "inodes=%s", offsetof(struct reffs_cli, inodes), 0 },
    { "mutation=%s", offsetof(struct reffs_cli, mutation), 0 },
    { "noopen", offsetof(struct reffs_cli, noopen), 1 },
    { "maxfilesize=%s", offsetof(struct reffs_cli, maxfilesize), 0 },
    { "nosnapshots", offsetof(struct reffs_cli, nosnapshots), 1 },
    { "stale_attr_replies", offsetof(struct reffs_cli, stale_replies), 1 },
    FUSE_OPT_END
};

static void usage(void)
{
    printf("usage: " PROG " [-f] [-d] [-s] [-o OPTIONS] MOUNTPOINT\n"
           "RefFS options:\n"
           "    -o capacity=BYTES      data capacity, K/M/G suffixes (default 1G)\n"
           "    -o inodes=N            maximum number of inodes (default 65536)\n"
           "    -o noopen              opens and closes of files skip the daemon (faster); an\n"
           "                           unlinked open file then stops counting in free space\n"
           "    -o maxfilesize=BYTES   files may not grow past this (EFBIG), K/M/G suffixes\n"
           "    -o nosnapshots         refuse the snapshot ioctls SAVE, RESTORE, DISCARD\n"
#ifdef REFFS_MUTANT
           "    -o mutation=NAME       enable a planted bug (NAME+NAME...: several at once);\n"
           "                           mutation=list lists them\n"
           "    -o stale_attr_replies  a chmod's reply carries the mode from before it (the\n"
           "                           kernel's attribute cache goes stale; a test hook)\n"
#endif
           "unmount with: fusermount3 -u MOUNTPOINT\n\n");
}

/* A positive decimal number with an optional K, M or G (binary) suffix. */
static int parse_size(const char *s, int suffixes, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || v == 0)
        return -1;
    unsigned shift = 0;
    if (suffixes && *end) {
        const char *units = "KMG";
        const char *u = strchr(units, *end);
        if (!u || end[1])
            return -1;
        shift = 10 * (unsigned)(u - units + 1);
        end++;
    }
    if (*end || (v << shift) >> shift != v)
        return -1;
    *out = v << shift;
    return 0;
}

#ifdef REFFS_MUTANT
static int print_mutations(void)
{
    const char *name, *rule = NULL;
    for (int i = 0; (name = reffs_mutation_list(i, &rule)) != NULL; i++)
        printf("%s\t%s\n", name, rule ? rule : "");
    return 0;
}

/* Matched as the library does: any case, with or without the MUT_ prefix. */
static int one_mutation_known(const char *want, size_t len)
{
    const char *name, *rule;
    for (int i = 0; (name = reffs_mutation_list(i, &rule)) != NULL; i++) {
        if (strlen(name) == len && strncasecmp(name, want, len) == 0)
            return 1;
        if (strncasecmp(name, "MUT_", 4) == 0 && strlen(name + 4) == len &&
            strncasecmp(name + 4, want, len) == 0)
            return 1;
    }
    return 0;
}

/* "NAME" or "NAME+NAME...": several mutations planted at once. */
static int mutation_known(const char *want)
{
    for (const char *p = want;; p++) {
        size_t n = strcspn(p, "+");
        if (n == 0 || !one_mutation_known(p, n))
            return 0;
        p += n;
        if (!*p)
            return 1;
    }
}
#endif

/* Fills limits from the RefFS options; prints the problem and returns -1 if they are bad. */
static int cli_limits(const struct reffs_cli *cli, struct reffs_limits *lim)
{
    if (cli->capacity && parse_size(cli->capacity, 1, &lim->capacity) < 0) {
        fprintf(stderr, PROG ": bad capacity '%s' (want a positive number with optional K/M/G)\n",
                cli->capacity);
        return -1;
    }
    if (cli->inodes && parse_size(cli->inodes, 0, &lim->inodes) < 0) {
        fprintf(stderr, PROG ": bad inodes '%s' (want a positive number)\n", cli->inodes);
        return -1;
    }
    if (!cli->mutation)
        return 0;
#ifdef REFFS_MUTANT
    if (!mutation_known(cli->mutation)) {
        fprintf(stderr, PROG ": unknown mutation '%s' (see -o mutation=list)\n", cli->mutation);
        return -1;
    }
    lim->mutation = cli->mutation;
    return 0;
#else
    fprintf(stderr, PROG ": option mutation= is only accepted by reffs-mutant\n");
    return -1;
#endif
}

static int run_loop(struct fuse_session *se, const struct fuse_cmdline_opts *co)
{
    if (co->singlethread)
        return fuse_session_loop(se);
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    if (!cfg)
        return -1;
    fuse_loop_cfg_set_clone_fd(cfg, (unsigned)co->clone_fd);
    if (co->max_idle_threads != UINT_MAX)  /* UINT_MAX: not given */
        fuse_loop_cfg_set_idle_threads(cfg, co->max_idle_threads);
    if (co->max_threads != UINT_MAX)
        fuse_loop_cfg_set_max_threads(cfg, co->max_threads);
    int ret = fuse_session_loop_mt(se, cfg);
    fuse_loop_cfg_destroy(cfg);
    return ret;
}

/* Mounts and serves until unmounted; returns the exit status. */
static int serve(struct fuse_args *args, const struct fuse_cmdline_opts *co, struct daemon *d)
{
    d->se = fuse_session_new(args, &reffs_ops, sizeof reffs_ops, d);
    if (!d->se)
        return 2;  /* libfuse has named the unknown option */
    int status = 1;
    if (fuse_set_signal_handlers(d->se) != 0)
        goto out_session;
    if (fuse_session_mount(d->se, co->mountpoint) != 0)
        goto out_signals;
    if (fuse_daemonize(co->foreground) != 0)
        goto out_unmount;
    status = run_loop(d->se, co) < 0 ? 1 : 0;
out_unmount:
    fuse_session_unmount(d->se);
out_signals:
    fuse_remove_signal_handlers(d->se);
out_session:
    fuse_session_destroy(d->se);
    return status;
}

/* Parses the command line and mounts; returns the exit status. */
static int run_cli(struct fuse_args *args, const struct reffs_cli *cli)
{
#ifdef REFFS_MUTANT
    if (cli->mutation && strcmp(cli->mutation, "list") == 0)
        return print_mutations();
#endif
    struct reffs_limits lim = { 0 };
    uint64_t max_file = 0;
    if (cli_limits(cli, &lim) < 0)
        return 2;
#ifndef REFFS_MUTANT
    if (cli->stale_replies) {
        fprintf(stderr, PROG ": option stale_attr_replies is only accepted by reffs-mutant\n");
        return 2;
    }
#endif
    if (cli->maxfilesize && parse_size(cli->maxfilesize, 1, &max_file) < 0) {
        fprintf(stderr, PROG ": bad maxfilesize '%s' (want a positive number with optional "
                "K/M/G)\n", cli->maxfilesize);
        return 2;
    }
    /* Before fuse_parse_cmdline, so that it adds no subtype of its own. */
    if (fuse_opt_add_arg(args, "-odefault_permissions,fsname=reffs,subtype=reffs") != 0)
        return 1;
    struct fuse_cmdline_opts co = { 0 };
    if (fuse_parse_cmdline(args, &co) != 0) {
        free(co.mountpoint);
        return 2;
    }
    int status = 0;
    if (co.show_help) {
        usage();
        fuse_cmdline_help();
        fuse_lowlevel_help();
    } else if (co.show_version) {
        printf(PROG " %s (libfuse %s)\n", METIS_VERSION, fuse_pkgversion());
    } else if (!co.mountpoint) {
        fprintf(stderr, PROG ": no mount point given (usage: " PROG " [-f] [-d] [-s] [-o OPTIONS] MOUNTPOINT)\n");
        status = 2;
    } else {
        struct daemon d = { .mountpoint = co.mountpoint, .mountpoint_len = strlen(co.mountpoint),
                            .debug = co.debug, .zero_open = cli->noopen,
                            .nosnapshots = cli->nosnapshots, .max_file = max_file,
                            .stale_replies = cli->stale_replies };
        d.fs = reffs_create(&lim);
        if (!d.fs) {
            fprintf(stderr, PROG ": cannot create the file system: %s\n", strerror(errno));
            status = 1;
        } else {
            status = serve(args, &co, &d);
            reffs_destroy(d.fs);
        }
    }
    free(co.mountpoint);
    return status;
}

static int run(struct fuse_args *args)
{
    struct reffs_cli cli = { 0 };
    if (fuse_opt_parse(args, &cli, cli_spec, NULL) != 0)
        return 2;
    int status = run_cli(args, &cli);
    free(cli.capacity);
    free(cli.maxfilesize);
    free(cli.inodes);
    free(cli.mutation);
    return status;
}

int main(int argc, char *argv[])
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    int status = run(&args);
    fuse_opt_free_args(&args);
    return status;
}
