/* What a crash state of a recorded step must hold whatever was synced: untouched entries kept, nothing from nowhere, the operation all there or not at all. */
#include "engine/crash/crash_oracle.h"
#include "engine/crash/crash_listing.h"

#include <stdio.h>
#include <string.h>

#define PATH_ROOM 16384

/* "absent" or the line, for a message. */
static int shown_len(const char *l)
{
    return l ? (int)listing_line_len(l) : 6;
}

static const char *shown(const char *l)
{
    return l ? l : "absent";
}

/* Adds path (unless "" or there already) to out. */
static void name_one(struct crash_named *out, const char *path, size_t n)
{
    if (n == 0 || n >= CRASH_NAMED_ROOM || out->n == CRASH_NAMED_MAX)
        return;
    for (int k = 0; k < out->n; k++)
        if (strlen(out->path[k]) == n && strncmp(out->path[k], path, n) == 0)
            return;
    memcpy(out->path[out->n], path, n);
    out->path[out->n++][n] = 0;
}

/* path and its parent ("/" for a name in the root). */
static void name_with_parent(struct crash_named *out, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!path || !*path)
        return;
    name_one(out, path, strlen(path));
    if (slash)
        name_one(out, path, slash == path ? 1 : (size_t)(slash - path));
}

void crash_oracle_names(const char *path, const char *path2, struct crash_named *out)
{
    out->n = 0;
    name_with_parent(out, path);
    name_with_parent(out, path2);
}

static int is_named(const struct crash_named *named, const char *path)
{
    for (int k = 0; named && k < named->n; k++)
        if (strcmp(named->path[k], path) == 0)
            return 1;
    return 0;
}

/* The fields of line l after its path (" TYPE MODE NLINK ..."), and their length. */
static const char *fields_of(const char *l, size_t *n)
{
    const char *f = l + strcspn(l, " \n");
    *n = listing_line_len(l) - (size_t)(f - l);
    return f;
}

/* 1 when pre's line l may be another name of a named inode: a hard link (a link count above
 * 1) with every field of a named path's line in pre. The operation changes that inode's link
 * count, and a crash between its syncs may leave it counting an old name too. */
static int link_of_named(const char *pre, const struct crash_named *named, const char *l)
{
    size_t n, m;
    const char *f = fields_of(l, &n);
    size_t t = strcspn(f + 1, " ") + 1, mode = strcspn(f + t + 1, " ") + 1;
    const char *nl = f + t + mode + 1;
    if (f[t] != ' ' || f[t + mode] != ' ' || *nl == '-' || (nl[0] == '1' && nl[1] == ' '))
        return 0;
    for (int k = 0; named && k < named->n; k++) {
        const char *o = listing_find(pre, named->path[k]);
        const char *g = o ? fields_of(o, &m) : NULL;
        if (g && g != f && m == n && strncmp(g, f, n) == 0)
            return 1;
    }
    return 0;
}

int crash_oracle_kept(const char *pre, const char *post, const char *rec,
                      const struct crash_named *named, char *why, size_t len)
{
    char path[PATH_ROOM];
    for (const char *l = pre && *pre ? pre : NULL; l; l = listing_next(l)) {
        listing_path(l, path, sizeof path);
        const char *r = listing_find(rec, path);
        if (listing_same(l, listing_find(post, path)) && !is_named(named, path) &&
            !link_of_named(pre, named, l) && !listing_same(l, r)) {
            snprintf(why, len, "%s, untouched by the operation: before '%.*s', recovered '%.*s'",
                     path, shown_len(l), l, shown_len(r), shown(r));
            return 1;
        }
    }
    for (const char *l = rec && *rec ? rec : NULL; l; l = listing_next(l)) {
        listing_path(l, path, sizeof path);
        if (!listing_find(pre, path) && !listing_find(post, path)) {
            snprintf(why, len, "%s: recovered '%.*s', neither before nor after the operation",
                     path, shown_len(l), l);
            return 1;
        }
    }
    return 0;
}

/* 1 when path is in rec as in side; else 0 with path in miss. */
static int as_side(const char *rec, const char *side, const char *path, char *miss, size_t len)
{
    if (listing_same(listing_find(side, path), listing_find(rec, path)))
        return 1;
    snprintf(miss, len, "%s", path);
    return 0;
}

/* 1 when every changed path (lines differing between pre and post) and every named one is in
 * rec as in side; the first that is not in *miss. */
static int all_as(const char *pre, const char *post, const char *rec, const struct crash_named *named,
                  const char *side, char *miss, size_t len)
{
    char path[PATH_ROOM];
    for (int pass = 0; pass < 2; pass++)
        for (const char *l = pass ? post : pre; l && *l; l = listing_next(l)) {
            listing_path(l, path, sizeof path);
            const char *a = listing_find(pre, path), *b = listing_find(post, path);
            if (!listing_same(a, b) && !as_side(rec, side, path, miss, len))
                return 0;
        }
    for (int k = 0; named && k < named->n; k++)
        if (!as_side(rec, side, named->path[k], miss, len))
            return 0;
    return 1;
}

/* The type letter of a listing line (after the path), or 0 for none. */
static char type_of(const char *l)
{
    size_t n = l ? strcspn(l, " \n") : 0;
    return l && l[n] == ' ' ? l[n + 1] : 0;
}

/* A data operation's changed entries: absent, or of a type before or after. */
static int types_kept(const char *pre, const char *post, const char *rec, char *why, size_t len)
{
    char path[PATH_ROOM];
    for (const char *l = rec && *rec ? rec : NULL; l; l = listing_next(l)) {
        listing_path(l, path, sizeof path);
        const char *a = listing_find(pre, path), *b = listing_find(post, path);
        if (!listing_same(a, b) && type_of(l) != type_of(a) && type_of(l) != type_of(b)) {
            snprintf(why, len, "%s: recovered '%.*s', of a type neither before nor after",
                     path, shown_len(l), l);
            return 1;
        }
    }
    return 0;
}

int crash_oracle_atomic(const char *pre, const char *post, const char *rec,
                        const struct crash_named *named, int data_op, char *why, size_t len)
{
    char old[PATH_ROOM], new[PATH_ROOM];
    if (data_op)
        return types_kept(pre, post, rec, why, len);
    if (all_as(pre, post, rec, named, pre, old, sizeof old) ||
        all_as(pre, post, rec, named, post, new, sizeof new))
        return 0;
    const char *r = listing_find(rec, old), *n = listing_find(rec, new);
    snprintf(why, len, "the operation is half there: %s recovered '%.*s' (not as before), "
             "%s recovered '%.*s' (not as after)", old, shown_len(r), shown(r), new,
             shown_len(n), shown(n));
    return 1;
}
