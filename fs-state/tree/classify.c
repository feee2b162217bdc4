/* Listing comparison for Metis's classes: checks and sorts two trees' listing lines, and keeps the first entry of the most telling kind tree/diff.c finds. */
#include "classify.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A line that is no listing line: named by its path when it has one, else whole. */
static int refuse(const char *line, int n, struct state_diff *d)
{
    int path = (int)strcspn(line, " \n");
    if (path > 0 && line[path] == ' ')
        n = path;
    snprintf(d->entry, sizeof d->entry, "%.*s", n < 500 ? n : 500, line);
    return -1;
}

/* The listing's lines in text order, each checked (empty lines are none). */
static int cut_lines(const char *text, struct listing_lines *l, struct state_diff *d)
{
    size_t most = 1;
    for (const char *c = text; *c; c++)
        most += *c == '\n';
    if (!(l->v = malloc(most * sizeof *l->v)))
        return snprintf(d->entry, sizeof d->entry, "(out of memory)"), -1;
    for (const char *p = text; *p;) {
        int n = (int)strcspn(p, "\n");
        struct tree_fields f;
        if (n && tree_fields_split(p, &f) < 0)
            return refuse(p, n, d);
        if (n)
            l->v[l->n++] = p;
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* By path, which comes first on a line and ends at its first space. */
static int cmp_path(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    size_t na = strcspn(a, " \n"), nb = strcspn(b, " \n");
    int c = memcmp(a, b, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

/* Keeps the first entry (in path order) of the most telling kind seen so far. */
static void note(void *ctx, enum tree_diff k, const struct tree_fields *r,
                 const struct tree_fields *o, int best)
{
    struct state_diff *d = ctx;
    const struct tree_fields *e = r ? r : o;
    if (!best)
        return;
    d->attr = k;
    snprintf(d->entry, sizeof d->entry, "%.*s", e->len[TREE_F_PATH], e->s[TREE_F_PATH]);
    tree_diff_value(r, k, CLASSIFY_DIGEST_SHOWN, d->ref, sizeof d->ref);
    tree_diff_value(o, k, CLASSIFY_DIGEST_SHOWN, d->other, sizeof d->other);
}

int classify_lines(const char *text, struct listing_lines *l, struct state_diff *d)
{
    memset(l, 0, sizeof *l);
    if (cut_lines(text, l, d) < 0)
        return -1;
    qsort(l->v, l->n, sizeof *l->v, cmp_path);
    return 0;
}

/* Nothing is ignored here: the walk already wrote an ignored attribute as "-" on both sides. */
int classify_listings(const char *ref, const char *other, struct state_diff *d)
{
    struct listing_lines a = {0}, b = {0};
    memset(d, 0, sizeof *d);
    int rc = classify_lines(ref, &a, d) < 0 || classify_lines(other, &b, d) < 0 ? -1 : 0;
    if (rc == 0)
        d->nentries = tree_diff_listings(a.v, a.n, b.v, b.n, 0, note, d);
    free(a.v);
    free(b.v);
    return rc < 0 ? -1 : d->attr != TREE_DIFF_NONE;
}
