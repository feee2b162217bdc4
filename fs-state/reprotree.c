/* Tree listing and comparison of standalone reproducers: metis-replay lists the reference's final tree with it, and emit-c copies this file into every program it writes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "reprotree.h"
#include "tree/diff.h"

/* Libc only: this text is compiled into programs that need nothing of Metis. */

#define RT_LINE_MAX 65536
#define RT_REPORT_MAX 20
#define RT_VALUE_SHOWN 200      /* characters of a digest or target a message shows */

static uint64_t rt_fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Appends s with bytes a listing cannot hold (blanks, control bytes, backslash) as \xHH. */
static size_t rt_escape(char *out, size_t len, size_t n, const char *s, size_t slen)
{
    for (size_t i = 0; i < slen && n + 5 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == '\\' || c == 0x7f)
            n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n < len ? n : len - 1] = '\0';
    return n;
}

static int rt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int rt_push(struct rt_tree *t, const char *line)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    if (!(t->v[t->n] = strdup(line)))
        return -1;
    t->n++;
    return 0;
}

void rt_free(struct rt_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

/* "[name=len:hash,...]" of fd's xattrs, sorted by name. */
static size_t rt_xattrs(int fd, char *out, size_t len, size_t n)
{
    static char names[65536], val[65536];
    char *sorted[1024];
    ssize_t total = flistxattr(fd, names, sizeof names);
    size_t k = 0, shown = 0;
    for (ssize_t i = 0; i < total && k < 1024; i += (ssize_t)strlen(names + i) + 1)
        sorted[k++] = names + i;
    qsort(sorted, k, sizeof *sorted, rt_cmp_str);
    n += (size_t)snprintf(out + n, len - n, "[");
    for (size_t i = 0; i < k && n + 64 < len; i++) {
        ssize_t v = fgetxattr(fd, sorted[i], val, sizeof val);
        if (v < 0)
            continue;           /* listed but gone: absent, as Metis counts it */
        if (shown++)
            out[n++] = ',';
        n = rt_escape(out, len, n, sorted[i], strlen(sorted[i]));
        n += (size_t)snprintf(out + n, len - n, "=%zd:%016llx", v,
                              (unsigned long long)rt_fnv(val, (size_t)v, 0xcbf29ce484222325ull));
    }
    return n + (size_t)snprintf(out + n, len - n, "]");
}

static uint64_t rt_contents(int fd)
{
    static char buf[65536];
    uint64_t h = 0xcbf29ce484222325ull;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        h = rt_fnv(buf, (size_t)r, h);
    return h;
}

static char rt_type(mode_t m)
{
    return S_ISREG(m) ? 'f' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISFIFO(m) ? 'p'
         : S_ISSOCK(m) ? 's' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : '?';
}

/* The line of one entry; fd is open on files and directories (-1 otherwise). */
static int rt_entry(struct rt_tree *t, const char *path, const struct stat *st, long nlink_adj,
                    int fd, const char *target, size_t tlen)
{
    static char line[RT_LINE_MAX];
    const size_t len = sizeof line - 64;    /* room for the fixed fields after the path */
    char type = rt_type(st->st_mode);
    size_t n = rt_escape(line, len, 0, path, strlen(path));
    n += (size_t)snprintf(line + n, sizeof line - n, "\t%c\t%04o\t%u\t%u\t%ld\t", type,
                          (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid,
                          (unsigned)st->st_gid, (long)st->st_nlink - nlink_adj);
    if (type == 'd')
        n += (size_t)snprintf(line + n, sizeof line - n, "-\t");
    else
        n += (size_t)snprintf(line + n, sizeof line - n, "%lld\t", (long long)st->st_size);
    if (type == 'f')
        n += (size_t)snprintf(line + n, sizeof line - n, "%016llx",
                              (unsigned long long)rt_contents(fd));
    else if (type == 'l')
        n = rt_escape(line, len, n, target, tlen);
    else
        n += (size_t)snprintf(line + n, sizeof line - n, "-");
    n += (size_t)snprintf(line + n, sizeof line - n, "\t");
    if (fd >= 0)
        rt_xattrs(fd, line, sizeof line, n);
    else
        snprintf(line + n, sizeof line - n, "-");
    return rt_push(t, line);
}

static int rt_excluded(const char *const *exclude, const char *name)
{
    for (int i = 0; exclude && exclude[i]; i++)
        if (strcmp(exclude[i], name) == 0)
            return 1;
    return 0;
}

static int rt_dir(struct rt_tree *t, int dfd, const char *path, const char *const *exclude);

/* One name below directory dfd (path is the directory's, "" for the root). */
static int rt_child(struct rt_tree *t, int dfd, const char *path, const char *name)
{
    char full[8192], target[8192];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", path, name);
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (S_ISLNK(st.st_mode)) {
        ssize_t k = readlinkat(dfd, name, target, sizeof target);
        return k < 0 ? -1 : rt_entry(t, full, &st, 0, -1, target, (size_t)k);
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return rt_entry(t, full, &st, 0, -1, NULL, 0);
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                               (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
    if (fd < 0)
        return -1;
    int rc = rt_entry(t, full, &st, 0, fd, NULL, 0);
    if (rc == 0 && S_ISDIR(st.st_mode))
        rc = rt_dir(t, fd, full, NULL);
    close(fd);
    return rc;
}

/* Every entry below dfd; exclude (at the root only) names the entries left out. */
static int rt_dir(struct rt_tree *t, int dfd, const char *path, const char *const *exclude)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    int rc = 0;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            !rt_excluded(exclude, e->d_name))
            rc = rt_child(t, dfd, path, e->d_name);
    closedir(d);
    return rc;
}

/* Excluded directories at the root still count in its link count: take them out. */
static long rt_excluded_dirs(int rootfd, const char *const *exclude)
{
    struct stat st;
    long n = 0;
    for (int i = 0; exclude && exclude[i]; i++) {
        int again = 0;          /* a name listed twice is one directory */
        for (int k = 0; k < i; k++)
            again |= strcmp(exclude[k], exclude[i]) == 0;
        n += !again && fstatat(rootfd, exclude[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISDIR(st.st_mode);
    }
    return n;
}

/* Sorted by path: a tab sorts before any byte a listed path keeps, so whole lines sort as
 * their paths do. */
int rt_list(int rootfd, const char *const *exclude, struct rt_tree *t)
{
    struct stat st;
    if (fstat(rootfd, &st) < 0 ||
        rt_entry(t, "/", &st, rt_excluded_dirs(rootfd, exclude), rootfd, NULL, 0) < 0 ||
        rt_dir(t, rootfd, "", exclude) < 0)
        return -1;
    qsort(t->v, t->n, sizeof *t->v, rt_cmp_str);
    return 0;
}

/* ---- comparison (tree/diff.c ranks) ---- */

/* Where this file's lines keep each field (tab-separated, the owner before the link count)
 * until they take tree.h's listing format. */
static const struct tree_layout rt_layout = {
    '\t', { TREE_F_PATH, TREE_F_TYPE, TREE_F_MODE, TREE_F_UID, TREE_F_GID, TREE_F_NLINK,
            TREE_F_SIZE, TREE_F_DATA, TREE_F_XATTRS },
};

struct rt_report {
    int count;
    char *first;
    size_t len;
};

/* One differing entry: printed (up to RT_REPORT_MAX), and kept in first when it is the most
 * telling so far. */
static void rt_note(void *ctx, enum tree_diff k, const struct tree_fields *ref,
                    const struct tree_fields *got, int best)
{
    struct rt_report *r = ctx;
    const struct tree_fields *e = ref ? ref : got;
    char msg[1500], a[512], b[512];
    tree_diff_value(got, k, RT_VALUE_SHOWN, b, sizeof b);
    tree_diff_value(ref, k, RT_VALUE_SHOWN, a, sizeof a);
    snprintf(msg, sizeof msg, "%.*s: %s: here %s, reference %s", e->len[TREE_F_PATH],
             e->s[TREE_F_PATH], tree_diff_name(k), b, a);
    if (++r->count <= RT_REPORT_MAX)
        printf("tree: %s  DIFFERS FROM THE REFERENCE\n", msg);
    if (best)
        snprintf(r->first, r->len, "%s", msg);
}

int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len)
{
    struct rt_report r = { 0, first, len };
    first[0] = '\0';
    tree_diff_listings(ref, nref, (const char *const *)got->v, got->n, &rt_layout, ignore,
                       rt_note, &r);
    if (r.count > RT_REPORT_MAX)
        printf("tree: ... %d differing entries in all\n", r.count);
    return r.count;
}
