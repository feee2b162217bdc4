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
#include "diff.h"

/* Libc only: this text (with buf.c, tree/walk.c and tree/line.c) is compiled into programs
 * that need nothing of Metis. */

#define RT_REPORT_MAX 20
#define RT_VALUE_SHOWN 200      /* characters of a digest or target a message shows */

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
 * whole lines sort as their paths do. Read past a FUSE daemon's attribute cache, as the engine
 * reads a difference again before it makes a class of it. */
int rt_list(int rootfd, const char *exclude, struct rt_tree *t)
{
    uint64_t fnv;
    struct tree_hash h = tree_fnv_hash;
    struct tree_opts o = { NULL, exclude, 0, 0 };
    struct rt_lister x = { .t = t, .l = { .o = &o, .h = &h } };
    struct tree_walk w = { .exclude = exclude, .visit = rt_visit, .ctx = &x };
    h.ctx = &fnv;
    tree_walk_fresh_attrs(1);
    int rc = tree_walk(&w, rootfd);
    int saved = errno;
    tree_walk_fresh_attrs(0);
    tree_walk_free(&w);
    tree_lister_free(&x.l);
    buf_free(&x.line);
    if (rc == 0 && t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, rt_cmp_str);
    errno = saved;
    return rc;
}

/* ---- comparison (tree/diff.c ranks) ---- */

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
    tree_diff_listings(ref, nref, (const char *const *)got->v, got->n, ignore,
                       rt_note, &r);
    if (r.count > RT_REPORT_MAX)
        printf("tree: ... %d differing entries in all\n", r.count);
    return r.count;
}
