/* Tree listing and comparison of standalone reproducers: metis-replay lists the reference's final tree with it, and emit-c copies this file into every program it writes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reprotree.h"

/* Libc only: this text (with buf.c, tree/walk.c and tree/line.c) is compiled into programs
 * that need nothing of Metis. */

#define RT_LINE_MAX 65536
#define RT_REPORT_MAX 20

static int rt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void rt_free(struct rt_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

/* What the walk's visitor fills: the tree and the line being written. */
struct rt_lister {
    struct rt_tree *t;
    struct tree_lister l;
    struct buf line;
};

/* One entry's line (contents read through the walk's fd), pushed onto the tree. */
static int rt_visit(void *ctx, const struct tree_entry *e)
{
    struct rt_lister *x = ctx;
    struct rt_tree *t = x->t;
    x->line.len = 0;
    if (tree_line(&x->l, e, &x->line) || buf_add(&x->line, "", 1) ||
        array_reserve(&t->v, &t->cap, t->n + 1, sizeof *t->v))
        return -1;
    if (!(t->v[t->n] = strdup(x->line.p)))
        return -1;
    t->n++;
    return 0;
}

/* Sorted by path: a space sorts before any byte a listed path keeps (blanks are escaped), so
 * whole lines sort as their paths do. */
int rt_list(int rootfd, const char *exclude, struct rt_tree *t)
{
    uint64_t fnv;
    struct tree_hash h = tree_fnv_hash;
    struct tree_opts o = { NULL, exclude, 0, 0 };
    struct rt_lister x = { .t = t, .l = { .o = &o, .h = &h } };
    struct tree_walk w = { .exclude = exclude, .visit = rt_visit, .ctx = &x };
    h.ctx = &fnv;
    int rc = tree_walk(&w, rootfd);
    int saved = errno;
    tree_walk_free(&w);
    tree_lister_free(&x.l);
    buf_free(&x.line);
    if (rc == 0 && t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, rt_cmp_str);
    errno = saved;
    return rc;
}

/* ---- comparison ---- */

/* The fields in tree.h's order (enum tree_field). */
enum { RT_F_PATH, RT_F_TYPE, RT_F_MODE, RT_F_NLINK, RT_F_UID, RT_F_GID, RT_F_SIZE, RT_F_DATA,
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
        p += strcspn(p, " ");
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
    if (!(ignore & TREE_IGNORE_MODE) && rt_differs(a, b, RT_F_MODE))
        return 4;
    if (!(ignore & TREE_IGNORE_OWNER) && (rt_differs(a, b, RT_F_UID) || rt_differs(a, b, RT_F_GID)))
        return 5;
    if (!(dir && (ignore & TREE_IGNORE_DIR_NLINK)) && rt_differs(a, b, RT_F_NLINK))
        return 6;
    if (rt_differs(a, b, RT_F_SIZE))
        return 7;
    if (rt_differs(a, b, RT_F_DATA))
        return a->f[RT_F_TYPE][0] == 'l' ? 9 : 8;
    if ((ignore & TREE_IGNORE_XATTRS) || !rt_differs(a, b, RT_F_XATTRS))
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
