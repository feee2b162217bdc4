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

/* Libc only: this text is compiled into programs that need nothing of Metis. */

#define RT_LINE_MAX 65536
#define RT_REPORT_MAX 20

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

/* ---- comparison ---- */

enum { RT_F_PATH, RT_F_TYPE, RT_F_MODE, RT_F_UID, RT_F_GID, RT_F_NLINK, RT_F_SIZE, RT_F_DATA,
       RT_F_XATTRS, RT_NF };

/* The kinds of difference, most telling first (as Metis's discrepancy classes name them). */
static const char *const rt_kind_name[] = {
    "", "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
    "xattr-names", "xattr-value",
};

struct rt_fields {
    char buf[RT_LINE_MAX];
    const char *f[RT_NF];
};

static void rt_split(const char *line, struct rt_fields *x)
{
    snprintf(x->buf, sizeof x->buf, "%s", line);
    char *p = x->buf;
    for (int k = 0; k < RT_NF; k++) {
        x->f[k] = p;
        p += strcspn(p, "\t");
        if (*p)
            *p++ = '\0';
    }
}

/* The xattr names of "[a=1:h,b=2:h]" without the values. */
void rt_xnames(const char *x, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = x + (*x == '['); *p && *p != ']' && n + 1 < len;) {
        size_t k = strcspn(p, "=,]");
        n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? "," : "", (int)k, p);
        p += k;
        p += strcspn(p, ",]");
        p += *p == ',';
    }
}

static int rt_differs(const struct rt_fields *a, const struct rt_fields *b, int k)
{
    return strcmp(a->f[k], b->f[k]) != 0;
}

/* The most telling kind in which entry b (here) differs from a (the reference), 0 if none. */
static int rt_kind(const struct rt_fields *a, const struct rt_fields *b, unsigned ignore)
{
    int dir = a->f[RT_F_TYPE][0] == 'd';
    char na[4096], nb[4096];
    if (rt_differs(a, b, RT_F_TYPE))
        return 3;
    if (!(ignore & RT_IGNORE_MODE) && rt_differs(a, b, RT_F_MODE))
        return 4;
    if (!(ignore & RT_IGNORE_OWNER) && (rt_differs(a, b, RT_F_UID) || rt_differs(a, b, RT_F_GID)))
        return 5;
    if (!(dir && (ignore & RT_IGNORE_DIR_NLINK)) && rt_differs(a, b, RT_F_NLINK))
        return 6;
    if (rt_differs(a, b, RT_F_SIZE))
        return 7;
    if (rt_differs(a, b, RT_F_DATA))
        return a->f[RT_F_TYPE][0] == 'l' ? 9 : 8;
    if ((ignore & RT_IGNORE_XATTRS) || !rt_differs(a, b, RT_F_XATTRS))
        return 0;
    rt_xnames(a->f[RT_F_XATTRS], na, sizeof na);
    rt_xnames(b->f[RT_F_XATTRS], nb, sizeof nb);
    return strcmp(na, nb) ? 10 : 11;
}

/* The attribute of kind k as the message shows it. */
static const char *rt_value(const struct rt_fields *x, int k, char *buf, size_t len)
{
    static const int field[] = { 0, RT_F_TYPE, RT_F_TYPE, RT_F_TYPE, RT_F_MODE, RT_F_UID,
                                 RT_F_NLINK, RT_F_SIZE, RT_F_DATA, RT_F_DATA, RT_F_XATTRS,
                                 RT_F_XATTRS };
    if (!x)
        return "(none)";
    if (k == 5)
        snprintf(buf, len, "%s:%s", x->f[RT_F_UID], x->f[RT_F_GID]);
    else if (k == 10)
        rt_xnames(x->f[RT_F_XATTRS], buf, len);
    else
        snprintf(buf, len, "%.200s", x->f[field[k]]);
    return buf;
}

static void rt_say(const struct rt_fields *ref, const struct rt_fields *got, int k, char *out,
                   size_t len)
{
    char a[512], b[512];
    snprintf(out, len, "%s: %s: here %s, reference %s", (ref ? ref : got)->f[RT_F_PATH],
             rt_kind_name[k], rt_value(got, k, b, sizeof b), rt_value(ref, k, a, sizeof a));
}

/* One differing entry: printed (up to RT_REPORT_MAX), and kept in first when it is the most
 * telling so far. */
static void rt_note(const struct rt_fields *ref, const struct rt_fields *got, int k, int *best,
                    int *count, char *first, size_t len)
{
    char msg[1500];
    rt_say(ref, got, k, msg, sizeof msg);
    if (++*count <= RT_REPORT_MAX)
        printf("tree: %s  DIFFERS FROM THE REFERENCE\n", msg);
    if (*best == 0 || k < *best) {
        *best = k;
        snprintf(first, len, "%s", msg);
    }
}

int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len)
{
    static struct rt_fields a, b;
    int best = 0, count = 0;
    first[0] = '\0';
    for (size_t i = 0, j = 0; i < nref || j < got->n;) {
        if (i < nref)
            rt_split(ref[i], &a);
        if (j < got->n)
            rt_split(got->v[j], &b);
        int c = i == nref ? 1 : j == got->n ? -1 : strcmp(a.f[RT_F_PATH], b.f[RT_F_PATH]);
        int k = c < 0 ? 1 : c > 0 ? 2 : rt_kind(&a, &b, ignore);
        if (k)
            rt_note(c <= 0 ? &a : NULL, c >= 0 ? &b : NULL, k, &best, &count, first, len);
        i += c <= 0;
        j += c >= 0;
    }
    if (count > RT_REPORT_MAX)
        printf("tree: ... %d differing entries in all\n", count);
    return count;
}
