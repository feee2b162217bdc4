/* The known delta of a search path: attribute differences as a set, a step's differences held against its parent state's, the first new one named as a class names it. */
#include "delta.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEM_MAX 600            /* a kind and two values of at most 200 characters each */

/* The kinds a difference may be of and still leave the entry what it is. */
#define ATTR_KINDS ((1u << TREE_DIFF_MODE) | (1u << TREE_DIFF_OWNER) | (1u << TREE_DIFF_NLINK) | \
                    (1u << TREE_DIFF_XATTR_NAMES) | (1u << TREE_DIFF_XATTR_VALUE))

struct delta_walk {
    const struct tree_delta *known;
    struct tree_delta *now;
    struct state_diff *fresh;
    int structure, failed;
    size_t cap;
};

static int cmp_item(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int tree_delta_has(const struct tree_delta *d, const char *item)
{
    return d && d->n && bsearch(&item, d->item, d->n, sizeof *d->item, cmp_item) != NULL;
}

void tree_delta_free(struct tree_delta *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->item[i]);
    free(d->item);
    *d = (struct tree_delta){ 0 };
}

static long field_number(const struct tree_fields *e, enum tree_field f, int base)
{
    char v[32];
    snprintf(v, sizeof v, "%.*s", e->len[f] < 31 ? e->len[f] : 31, e->s[f]);
    return strtol(v, NULL, base);
}

/* A difference as the delta keeps it: what relates the two sides, so that a call that changes
 * the attribute alike on both (a chown clearing setuid, an unlink lowering the link count)
 * keeps the same difference: the mode bits that differ, how far apart the link counts are;
 * owners and xattrs as the pair of values. */
static void item_text(enum tree_diff k, const struct tree_fields *a, const struct tree_fields *b,
                      char *out, size_t len)
{
    char va[256], vb[256];
    if (k == TREE_DIFF_MODE) {
        snprintf(out, len, "mode\tbits %04lo", field_number(a, TREE_F_MODE, 8) ^
                 field_number(b, TREE_F_MODE, 8));
        return;
    }
    if (k == TREE_DIFF_NLINK) {
        snprintf(out, len, "nlink\t%+ld", field_number(b, TREE_F_NLINK, 10) -
                 field_number(a, TREE_F_NLINK, 10));
        return;
    }
    tree_diff_value(a, k, 200, va, sizeof va);
    tree_diff_value(b, k, 200, vb, sizeof vb);
    snprintf(out, len, "%s\t%s\t%s", tree_diff_name(k), va, vb);
}

static int add_item(struct delta_walk *w, const char *item)
{
    struct tree_delta *d = w->now;
    if (d->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        char **v = realloc(d->item, cap * sizeof *v);
        if (!v)
            return -1;
        d->item = v;
        w->cap = cap;
    }
    if (!(d->item[d->n] = strdup(item)))
        return -1;
    d->n++;
    return 0;
}

/* The first entry of the most telling new kind, as classify's note keeps it (a or b is NULL
 * for an entry on one side only). */
static void note_fresh(struct delta_walk *w, enum tree_diff k, const struct tree_fields *a,
                       const struct tree_fields *b, int counted)
{
    struct state_diff *f = w->fresh;
    const struct tree_fields *e = a ? a : b;
    if (!counted)
        f->nentries++;
    if (f->attr != TREE_DIFF_NONE && f->attr <= k)
        return;
    f->attr = k;
    snprintf(f->entry, sizeof f->entry, "%.*s", e->len[TREE_F_PATH], e->s[TREE_F_PATH]);
    tree_diff_value(a, k, CLASSIFY_DIGEST_SHOWN, f->ref, sizeof f->ref);
    tree_diff_value(b, k, CLASSIFY_DIGEST_SHOWN, f->other, sizeof f->other);
}

/* An attribute difference joins the delta, and is fresh unless known holds it; any other kind
 * makes the trees differ in structure, and is always fresh. */
/* One item joins the delta; it is fresh (of kind k) unless known holds it. */
static void take_item(struct delta_walk *w, enum tree_diff k, const char *item,
                      const struct tree_fields *a, const struct tree_fields *b, int *counted)
{
    if (add_item(w, item) < 0)
        w->failed = 1;
    else if (!tree_delta_has(w->known, item))
        note_fresh(w, k, a, b, (*counted)++);
}

/* The value of xattr name (n bytes) in list x ("[a=len:hash,b=len:hash]"), or NULL; *vn its
 * length. */
static const char *xattr_value(const struct tree_fields *x, const char *name, size_t n,
                               size_t *vn)
{
    const char *p = x->s[TREE_F_XATTRS], *end = p + x->len[TREE_F_XATTRS];
    for (p += p < end && *p == '['; p < end && *p != ']';) {
        size_t k = strcspn(p, "=,]");
        const char *v = p + k + (p[k] == '=');
        size_t m = p[k] == '=' ? strcspn(v, ",]") : 0;
        if (k == n && memcmp(p, name, n) == 0) {
            *vn = m;
            return v;
        }
        p = v + m;
        p += p < end && *p == ',';
    }
    return NULL;
}

/* Xattrs kept per name, so that a call on another name (both sides) keeps the difference:
 * "xattr-names<TAB>+NAME" (only the other fs has it), "-NAME" (only the reference), and
 * "xattr-value<TAB>NAME<TAB>REF<TAB>OTHER". */
static void xattr_side(struct delta_walk *w, const struct tree_fields *from,
                       const struct tree_fields *to, int other, int *counted,
                       const struct tree_fields *a, const struct tree_fields *b)
{
    const char *p = from->s[TREE_F_XATTRS], *end = p + from->len[TREE_F_XATTRS];
    for (p += p < end && *p == '['; p < end && *p != ']' && !w->failed;) {
        char item[ITEM_MAX];
        size_t k = strcspn(p, "=,]"), vn = 0, tn = 0;
        const char *v = p + k + (p[k] == '=');
        vn = p[k] == '=' ? strcspn(v, ",]") : 0;
        const char *t = xattr_value(to, p, k, &tn);
        if (!t)
            snprintf(item, sizeof item, "xattr-names\t%c%.*s", other ? '+' : '-', (int)k, p);
        if (!t)
            take_item(w, TREE_DIFF_XATTR_NAMES, item, a, b, counted);
        else if (!other && (tn != vn || memcmp(t, v, vn) != 0)) {
            snprintf(item, sizeof item, "xattr-value\t%.*s\t%.*s\t%.*s", (int)k, p, (int)vn, v,
                     (int)tn, t);
            take_item(w, TREE_DIFF_XATTR_VALUE, item, a, b, counted);
        }
        p = v + vn;
        p += p < end && *p == ',';
    }
}

static void visit(void *ctx, enum tree_diff most, const struct tree_fields *a,
                  const struct tree_fields *b, int best)
{
    struct delta_walk *w = ctx;
    unsigned kinds = a && b ? tree_diff_entry_kinds(a, b, 0) : 1u << most;
    int counted = 0;
    for (int k = 0; k < TREE_DIFF_COUNT && !w->failed; k++) {
        char item[ITEM_MAX];
        if (!(kinds & (1u << k)))
            continue;
        if (!(ATTR_KINDS & (1u << k))) {
            w->structure = 1;
            note_fresh(w, (enum tree_diff)k, a, b, counted++);
        } else if (k == TREE_DIFF_XATTR_NAMES || k == TREE_DIFF_XATTR_VALUE) {
            xattr_side(w, a, b, 0, &counted, a, b);
            xattr_side(w, b, a, 1, &counted, a, b);
        } else {
            item_text((enum tree_diff)k, a, b, item, sizeof item);
            take_item(w, (enum tree_diff)k, item, a, b, &counted);
        }
    }
}

/* Sorts the items and drops repeats, so that tree_delta_has can search them. */
static void settle(struct tree_delta *d)
{
    size_t m = 0;
    qsort(d->item, d->n, sizeof *d->item, cmp_item);
    for (size_t i = 0; i < d->n; i++) {
        if (m && strcmp(d->item[m - 1], d->item[i]) == 0)
            free(d->item[i]);
        else
            d->item[m++] = d->item[i];
    }
    d->n = m;
}

int tree_delta_compare(const char *ref, const char *other, const struct tree_delta *known,
                       struct tree_delta *now, struct state_diff *fresh)
{
    struct listing_lines a = { 0 }, b = { 0 };
    struct delta_walk w = { known, now, fresh, 0, 0, 0 };
    memset(now, 0, sizeof *now);
    memset(fresh, 0, sizeof *fresh);
    int rc = classify_lines(ref, &a, fresh) < 0 || classify_lines(other, &b, fresh) < 0 ? -1 : 0;
    int ndiff = rc < 0 ? 0 : tree_diff_listings(a.v, a.n, b.v, b.n, 0, visit, &w);
    free(a.v);
    free(b.v);
    if (rc < 0 || w.failed) {
        tree_delta_free(now);
        return -1;
    }
    if (!w.structure) {
        settle(now);
        return ndiff ? DELTA_ATTRS : DELTA_EQUAL;
    }
    tree_delta_free(now);
    return DELTA_STRUCTURE;
}
