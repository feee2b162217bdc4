/* Listing comparison: parses two trees' listing lines and names the first entry and attribute that differ. */
#include "classify.h"
#include "reprotree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields of a listing line, in the order abstract.c writes them. */
enum { F_PATH, F_TYPE, F_MODE, F_NLINK, F_UID, F_GID, F_SIZE, F_DATA, F_XATTRS, F_COUNT };

struct lent {
    char *f[F_COUNT];
};

struct listing {
    char *text;                 /* a copy, cut into fields in place */
    struct lent *v;
    size_t n;
};

static const char *const attr_names[CLS_COUNT] = {
    "-", "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
    "xattr-names", "xattr-value",
};

const char *cls_attr_name(enum cls_attr a)
{
    return a >= 0 && a < CLS_COUNT ? attr_names[a] : "?";
}

int cls_attr_by_name(const char *name)
{
    for (int a = 0; a < CLS_COUNT; a++)
        if (strcmp(name, attr_names[a]) == 0)
            return a;
    return -1;
}

/* Cuts one line into its fields; the xattrs are the rest of the line. */
static int split_line(char *line, struct lent *e)
{
    char *p = line;
    for (int k = 0; k < F_XATTRS; k++) {
        char *sp = strchr(p, ' ');
        if (!sp || sp == p)
            return -1;
        *sp = '\0';
        e->f[k] = p;
        p = sp + 1;
    }
    e->f[F_XATTRS] = p;
    return *p ? 0 : -1;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const struct lent *)a)->f[F_PATH], ((const struct lent *)b)->f[F_PATH]);
}

static int parse(const char *text, struct listing *l, struct state_diff *d)
{
    size_t lines = 1;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    l->text = strdup(text);
    l->v = calloc(lines, sizeof *l->v);
    l->n = 0;
    if (!l->text || !l->v)
        return snprintf(d->entry, sizeof d->entry, "(out of memory)"), -1;
    for (char *save = NULL, *line = strtok_r(l->text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (split_line(line, &l->v[l->n]) < 0)
            return snprintf(d->entry, sizeof d->entry, "%.500s", line), -1;
        l->n++;
    }
    qsort(l->v, l->n, sizeof *l->v, cmp_path);
    return 0;
}

static void listing_free(struct listing *l)
{
    free(l->text);
    free(l->v);
}

/* ---- one entry against the other ---- */

static enum cls_attr xattr_kind(const char *a, const char *b)
{
    char na[1024], nb[1024];
    rt_xnames(a, na, sizeof na);
    rt_xnames(b, nb, sizeof nb);
    return strcmp(na, nb) ? CLS_XATTR_NAMES : CLS_XATTR_VALUE;
}

/* The most telling attribute in which two entries of the same path differ, CLS_NONE if none. */
static enum cls_attr entry_kind(const struct lent *r, const struct lent *o)
{
    const char *const *a = (const char *const *)r->f, *const *b = (const char *const *)o->f;
    if (strcmp(a[F_TYPE], b[F_TYPE]))
        return CLS_TYPE;
    if (strcmp(a[F_MODE], b[F_MODE]))
        return CLS_MODE;
    if (strcmp(a[F_UID], b[F_UID]) || strcmp(a[F_GID], b[F_GID]))
        return CLS_OWNER;
    if (strcmp(a[F_NLINK], b[F_NLINK]))
        return CLS_NLINK;
    if (strcmp(a[F_SIZE], b[F_SIZE]))
        return CLS_SIZE;
    if (strcmp(a[F_DATA], b[F_DATA]))
        return a[F_TYPE][0] == 'l' ? CLS_TARGET : CLS_CONTENT;
    if (strcmp(a[F_XATTRS], b[F_XATTRS]))
        return xattr_kind(a[F_XATTRS], b[F_XATTRS]);
    return CLS_NONE;
}

/* The attribute of e as the report shows it (digests shortened to 12 hex digits). */
static void attr_text(const struct lent *e, enum cls_attr k, char *out, size_t len)
{
    if (!e) {
        snprintf(out, len, "(none)");
        return;
    }
    const char *const *f = (const char *const *)e->f;
    switch (k) {
    case CLS_MISSING: case CLS_EXTRA: case CLS_TYPE:
        snprintf(out, len, "%s", f[F_TYPE]); break;
    case CLS_MODE: snprintf(out, len, "%s", f[F_MODE]); break;
    case CLS_OWNER: snprintf(out, len, "%s:%s", f[F_UID], f[F_GID]); break;
    case CLS_NLINK: snprintf(out, len, "%s", f[F_NLINK]); break;
    case CLS_SIZE: snprintf(out, len, "%s", f[F_SIZE]); break;
    case CLS_CONTENT: case CLS_TARGET: snprintf(out, len, "%.12s", f[F_DATA]); break;
    case CLS_XATTR_NAMES: rt_xnames(f[F_XATTRS], out, len); break;
    default: snprintf(out, len, "%.*s", (int)len - 1, f[F_XATTRS]); break;
    }
}

/* Keeps the first entry (in path order) of the most telling kind seen so far. */
static void note(struct state_diff *d, enum cls_attr k, const struct lent *r, const struct lent *o)
{
    d->nentries++;
    if (d->attr != CLS_NONE && d->attr <= k)
        return;
    d->attr = k;
    snprintf(d->entry, sizeof d->entry, "%s", (r ? r : o)->f[F_PATH]);
    attr_text(r, k, d->ref, sizeof d->ref);
    attr_text(o, k, d->other, sizeof d->other);
}

int classify_listings(const char *ref, const char *other, struct state_diff *d)
{
    struct listing a = {0}, b = {0};
    memset(d, 0, sizeof *d);
    int rc = parse(ref, &a, d) < 0 || parse(other, &b, d) < 0 ? -1 : 0;
    for (size_t i = 0, j = 0; rc == 0 && (i < a.n || j < b.n);) {
        int c = i == a.n ? 1 : j == b.n ? -1 : strcmp(a.v[i].f[F_PATH], b.v[j].f[F_PATH]);
        if (c < 0) {
            note(d, CLS_MISSING, &a.v[i++], NULL);
        } else if (c > 0) {
            note(d, CLS_EXTRA, NULL, &b.v[j++]);
        } else {
            enum cls_attr k = entry_kind(&a.v[i], &b.v[j]);
            if (k != CLS_NONE)
                note(d, k, &a.v[i], &b.v[j]);
            i++, j++;
        }
    }
    listing_free(&a);
    listing_free(&b);
    if (rc < 0)
        d->attr = CLS_NONE;
    return rc < 0 ? -1 : d->attr != CLS_NONE;
}
