/* State-aware path draws: existing entries of the type an operation can use, or missing pool names whose directory exists. */
#include "engine/input/choose.h"
#include "engine/input/view.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Candidates a draw of a new name looks at, from a random start in the pool's order: enough
 * for any pool a search fills, without scanning thousands of names per draw. */
#define NEW_SCAN 64

static int is_root(const struct view_entry *e)
{
    return e->path[0] == '/' && e->path[1] == '\0';
}

/* A non-directory with two or more names: the inode link and unlink rules are about. */
static int is_shared(const struct view_entry *e)
{
    return !S_ISDIR(e->mode) && e->nlink >= 2;
}

static int fits(const struct view_entry *e, enum path_want w)
{
    switch (w) {
    case PW_FILE:
    case PW_LINK_SRC:
        return S_ISREG(e->mode);
    case PW_NONDIR:
        return !is_root(e) && !S_ISDIR(e->mode);
    case PW_DIR:
        return !is_root(e) && S_ISDIR(e->mode);
    default:
        return !is_root(e);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is path one of the pool's names? Entries a rename carried below the pool's depth are not:
 * draws keep to the pool, as the sizing rule and metis-replay's trace check expect. */
static int in_pool(struct input *in, const char *path)
{
    const struct name_pool *p = &in->pool;
    if (!in->pool_sorted) {
        size_t n = (size_t)p->ndirs + (size_t)p->nfiles;
        if (!(in->pool_sorted = malloc((n ? n : 1) * sizeof *in->pool_sorted)))
            return 0;
        memcpy(in->pool_sorted, p->dirs, (size_t)p->ndirs * sizeof *p->dirs);
        memcpy(in->pool_sorted + p->ndirs, p->files, (size_t)p->nfiles * sizeof *p->files);
        qsort(in->pool_sorted, n, sizeof *in->pool_sorted, cmp_str);
    }
    return bsearch(&path, in->pool_sorted, (size_t)p->ndirs + (size_t)p->nfiles,
                   sizeof *in->pool_sorted, cmp_str) != NULL;
}

/* Names in path below the root: "/" 0, "/d0" 1, "/d0/f0" 2. */
static int levels(const char *path)
{
    int n = 0;
    for (const char *c = path; *c; c++)
        n += *c == '/';
    return path[0] == '/' && path[1] == '\0' ? 0 : n;
}

/* How many levels the deepest entry below path lies under it (0: a file, an empty directory). */
static int height(const struct tree_view *v, const char *path)
{
    size_t len = strlen(path);
    int top = levels(path), h = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *p = v->e[i].path;
        int below = strncmp(p, path, len) == 0 && p[len] == '/' ? levels(p) - top : 0;
        h = below > h ? below : h;
    }
    return h;
}

/* A directory with no entry below it: the one an rmdir removes. */
static int is_empty_dir(const struct tree_view *v, const struct view_entry *e)
{
    return S_ISDIR(e->mode) && height(v, e->path) == 0;
}

/* The entries a favoured draw of kind w goes to: inodes with several names, or for rmdir
 * empty directories. */
static int favoured(const struct tree_view *v, const struct view_entry *e, enum path_want w)
{
    return w == PW_DIR ? is_empty_dir(v, e) : is_shared(e);
}

/* Marks the view's entries a draw of kind w may take (favoured ones only, if asked); their
 * count. */
static size_t mark(struct input *in, enum path_want w, int only_favoured, unsigned char *ok)
{
    const struct tree_view *v = in->view;
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct view_entry *e = &v->e[i];
        ok[i] = fits(e, w) && (!only_favoured || favoured(v, e, w)) && in_pool(in, e->path);
        n += ok[i];
    }
    return n;
}

static const char *nth(const struct tree_view *v, const unsigned char *ok, uint64_t k)
{
    for (size_t i = 0; i < v->n; i++)
        if (ok[i] && k-- == 0)
            return v->e[i].path;
    return NULL;
}

static const char *pick_existing(struct input *in, enum path_want w)
{
    const struct tree_view *v = in->view;
    unsigned char ok[v->n + 1], shared[v->n + 1];
    size_t n = mark(in, w, 0, ok);
    if (n == 0)
        return NULL;
    int favour = w == PW_NONDIR || w == PW_LINK_SRC || w == PW_RENAME_SRC || w == PW_DIR;
    size_t m = favour ? mark(in, w, 1, shared) : 0;
    /* Half of these draws go to inodes that already have several names: a third link, or the
     * unlink of one of three, takes several steps on one inode that uniform draws rarely make.
     * Half of rmdir's go to empty directories: a long search fills the pool's directories, and
     * then nearly every rmdir met ENOTEMPTY and none removed one (README, "Search power"). */
    int only = m > 0 && rng_below(&in->rng, 2) == 0;
    return only ? nth(v, shared, rng_below(&in->rng, m)) : nth(v, ok, rng_below(&in->rng, n));
}

/* Does path's directory exist in the view while path itself does not? */
static int creatable(const struct tree_view *v, const char *path)
{
    char parent[METIS_PATH_MAX];
    size_t n = (size_t)(strrchr(path, '/') - path);
    if (n >= sizeof parent)
        return 0;
    memcpy(parent, n ? path : "/", n ? n : 1);
    parent[n ? n : 1] = '\0';
    const struct view_entry *d = view_find(v, parent);
    return d && S_ISDIR(d->mode) && !view_find(v, path);
}

/* Only pool names are created, so the sizing rule's count of files still holds. */
static const char *pick_new(struct input *in, int files, int dirs)
{
    const struct name_pool *p = &in->pool;
    uint64_t nd = dirs ? (uint64_t)p->ndirs : 0, n = nd + (files ? (uint64_t)p->nfiles : 0);
    if (n == 0)
        return NULL;
    uint64_t start = rng_below(&in->rng, n);
    for (uint64_t j = 0; j < n && j < NEW_SCAN; j++) {
        uint64_t k = (start + j) % n;
        const char *c = k < nd ? p->dirs[k] : p->files[k - nd];
        if (creatable(in->view, c))
            return c;
    }
    return NULL;
}

const char *choose_path(struct input *in, enum path_want w)
{
    double share = in->cfg->pool.existing;
    if (!in->view || share <= 0 || rng_unit(&in->rng) >= share)
        return NULL;
    switch (w) {
    case PW_NEW_FILE:
        return pick_new(in, 1, 0);
    case PW_NEW_DIR:
        return pick_new(in, 0, 1);
    case PW_NEW_ANY:
        return pick_new(in, 1, 1);
    case PW_RENAME_DST:
        return rng_below(&in->rng, 2) ? pick_existing(in, PW_ENTRY) : pick_new(in, 1, 1);
    default:
        return pick_existing(in, w);
    }
}

const struct view_entry *choose_regular(const struct input *in, const char *path)
{
    const struct view_entry *e = in->view ? view_find(in->view, path) : NULL;
    return e && S_ISREG(e->mode) ? e : NULL;
}

static int keeps_to_pool(const struct tree_view *v, int room, const char *src, int src_height,
                         const char *dst, int exchange)
{
    return levels(dst) + src_height <= room && (!exchange || levels(src) + height(v, dst) <= room);
}

const char *choose_rename_dst(struct input *in, const char *src, const char *dst, int exchange)
{
    const struct tree_view *v = in->view;
    const struct name_pool *p = &in->pool;
    int room = in->cfg->pool.depth + 1;
    if (!v)
        return dst;
    int hs = height(v, src);
    if (keeps_to_pool(v, room, src, hs, dst, exchange))
        return dst;
    uint64_t n = (uint64_t)p->ndirs + (uint64_t)p->nfiles, start = rng_below(&in->rng, n);
    for (uint64_t j = 0; j < n && j < NEW_SCAN; j++) {
        uint64_t k = (start + j) % n;
        const char *c = k < (uint64_t)p->ndirs ? p->dirs[k] : p->files[k - p->ndirs];
        if (keeps_to_pool(v, room, src, hs, c, exchange))
            return c;
    }
    return src;                 /* renaming onto itself moves nothing */
}
