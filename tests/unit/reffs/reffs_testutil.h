/* Helpers shared by the RefFS unit tests (tests/unit/reffs_*.c). */
#ifndef REFFS_TESTUTIL_H
#define REFFS_TESTUTIL_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include "reffs.h"

static inline struct reffs *t_fs(uint64_t capacity, uint64_t inodes)
{
    struct reffs_limits lim = { .capacity = capacity, .inodes = inodes };
    struct reffs *fs = reffs_create(&lim);
    cr_assert_not_null(fs);
    return fs;
}

static inline reffs_ino t_file(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct reffs_entry e;
    int r = reffs_mknod(fs, parent, name, S_IFREG | 0644, 0, 0, 0, &e);
    cr_assert_eq(r, 0, "mknod %s: %d", name, r);
    return e.st.st_ino;
}

static inline reffs_ino t_dir(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct reffs_entry e;
    int r = reffs_mkdir(fs, parent, name, 0755, 0, 0, &e);
    cr_assert_eq(r, 0, "mkdir %s: %d", name, r);
    return e.st.st_ino;
}

/* The inode number name resolves to, or 0. */
static inline reffs_ino t_lookup(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct reffs_entry e;
    return reffs_lookup(fs, parent, name, &e) ? 0 : e.st.st_ino;
}

static inline struct stat t_stat(struct reffs *fs, reffs_ino ino)
{
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, ino, &st), 0);
    return st;
}

static inline void t_write(struct reffs *fs, reffs_ino ino, const void *buf, size_t n, off_t off)
{
    cr_assert_eq(reffs_write(fs, ino, buf, n, off), (ssize_t)n);
}

static inline int t_truncate(struct reffs *fs, reffs_ino ino, off_t size)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_SIZE, .size = size };
    return reffs_setattr(fs, ino, &sa, NULL);
}

static inline int t_chmod(struct reffs *fs, reffs_ino ino, mode_t mode)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_MODE, .mode = mode };
    return reffs_setattr(fs, ino, &sa, NULL);
}

static inline int t_count_cb(void *ctx, const char *name, const struct stat *st, off_t next)
{
    (void)name; (void)st; (void)next;
    ++*(int *)ctx;
    return 0;
}

/* Number of entries readdir shows, "." and ".." included. */
static inline int t_count_entries(struct reffs *fs, reffs_ino dir)
{
    int n = 0;
    cr_assert_eq(reffs_readdir(fs, dir, 0, t_count_cb, &n), 0);
    return n;
}

static inline uint64_t t_bfree(struct reffs *fs)
{
    struct statvfs sv;
    cr_assert_eq(reffs_statfs(fs, &sv), 0);
    return sv.f_bfree;
}

/* ---- a textual dump of the whole tree, to compare states ---- */

struct t_dump {
    char *buf;
    size_t n, cap;
};

static inline void t_dump_add(struct t_dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void t_dump_add(struct t_dump *d, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (d->n + n + 1 > d->cap) {
        d->cap = (d->n + n + 1) * 2;
        d->buf = realloc(d->buf, d->cap);
    }
    memcpy(d->buf + d->n, line, n + 1);
    d->n += n;
}

struct t_dirlist {
    char names[256][256];
    reffs_ino inos[256];
    int n;
};

static inline int t_dirlist_cb(void *ctx, const char *name, const struct stat *st, off_t next)
{
    (void)next;
    struct t_dirlist *l = ctx;
    if (l->n < 256 && strcmp(name, ".") && strcmp(name, "..")) {
        snprintf(l->names[l->n], 256, "%s", name);
        l->inos[l->n++] = st->st_ino;
    }
    return 0;
}

static inline void t_dump_inode(struct reffs *fs, struct t_dump *d, const char *path, reffs_ino ino)
{
    struct stat st = t_stat(fs, ino);
    t_dump_add(d, "%s ino=%lu mode=%o nlink=%lu uid=%u gid=%u size=%ld blocks=%ld m=%ld.%ld c=%ld.%ld a=%ld.%ld\n",
               path, (unsigned long)st.st_ino, st.st_mode, (unsigned long)st.st_nlink, st.st_uid,
               st.st_gid, (long)st.st_size, (long)st.st_blocks, (long)st.st_mtim.tv_sec,
               st.st_mtim.tv_nsec, (long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
               (long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
    if (S_ISREG(st.st_mode) && st.st_size < (1 << 24)) {
        char *data = malloc(st.st_size + 1);
        cr_assert_eq(reffs_read(fs, ino, data, st.st_size, 0), st.st_size);
        uint64_t h = 1469598103934665603ULL;
        for (off_t i = 0; i < st.st_size; i++)
            h = (h ^ (unsigned char)data[i]) * 1099511628211ULL;
        free(data);
        t_dump_add(d, "  data %016llx\n", (unsigned long long)h);
    }
    if (S_ISLNK(st.st_mode)) {
        char t[4096];
        int n = reffs_readlink(fs, ino, t, sizeof t);
        t_dump_add(d, "  -> %.*s\n", n, t);
    }
    char names[4096];
    ssize_t ln = reffs_listxattr(fs, ino, names, sizeof names);
    for (ssize_t o = 0; o < ln; o += strlen(names + o) + 1) {
        char v[256];
        ssize_t vn = reffs_getxattr(fs, ino, names + o, v, sizeof v);
        t_dump_add(d, "  xattr %s=%.*s\n", names + o, (int)(vn > 0 ? vn : 0), v);
    }
}

static inline void t_dump_tree(struct reffs *fs, struct t_dump *d, const char *path, reffs_ino dir)
{
    t_dump_inode(fs, d, path, dir);
    struct t_dirlist *l = calloc(1, sizeof *l);
    cr_assert_eq(reffs_readdir(fs, dir, 0, t_dirlist_cb, l), 0);
    for (int i = 0; i < l->n; i++) {
        char sub[2048];
        snprintf(sub, sizeof sub, "%s/%s", path, l->names[i]);
        struct stat st = t_stat(fs, l->inos[i]);
        if (S_ISDIR(st.st_mode))
            t_dump_tree(fs, d, sub, l->inos[i]);
        else
            t_dump_inode(fs, d, sub, l->inos[i]);
    }
    free(l);
}

/* The dump of the whole tree and statfs; the caller frees it. */
static inline char *t_dump_fs(struct reffs *fs)
{
    struct t_dump d = { 0 };
    struct statvfs sv;
    reffs_statfs(fs, &sv);
    t_dump_add(&d, "statfs bfree=%lu ffree=%lu\n", (unsigned long)sv.f_bfree, (unsigned long)sv.f_ffree);
    t_dump_tree(fs, &d, "", REFFS_ROOT_INO);
    return d.buf;
}

/* A small varied tree: files with data, a sparse file, dirs, a symlink, a link, xattrs. */
static inline void t_populate(struct reffs *fs)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "dir");
    reffs_ino s = t_dir(fs, d, "sub");
    reffs_ino a = t_file(fs, REFFS_ROOT_INO, "a");
    t_write(fs, a, "alpha", 5, 0);
    reffs_ino b = t_file(fs, d, "b");
    t_write(fs, b, "bravo", 5, 100000);
    reffs_ino c = t_file(fs, s, "c");
    static char big[20000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)i;
    t_write(fs, c, big, sizeof big, 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, d, "link", "../a", 0, 0, &e), 0);
    cr_assert_eq(reffs_link(fs, a, s, "a2", &e), 0);
    cr_assert_eq(reffs_setxattr(fs, a, "user.colour", "blue", 4, 0), 0);
    cr_assert_eq(reffs_setxattr(fs, d, "trusted.t", "x", 1, 0), 0);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "fifo", S_IFIFO | 0600, 0, 7, 8, &e), 0);
}

#endif
