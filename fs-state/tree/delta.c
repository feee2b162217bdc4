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
            continue;
        }
        item_text((enum tree_diff)k, a, b, item, sizeof item);
        if (add_item(w, item) < 0)
            w->failed = 1;
        else if (!tree_delta_has(w->known, item))
            note_fresh(w, (enum tree_diff)k, a, b, counted++);
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
