/* The canonical digest of a listing: each entry hashed bottom up from its line without the path, its name's kind and its children's digests in sorted order, so that renamings of interchangeable names give one digest. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "tree.h"
#include "lib/text/buf.h"

struct node {
    const char *path, *rest;        /* the line split at its first blank, NUL-terminated */
    int depth, parent;              /* parent -1: the root, or an entry whose parent is missing */
    unsigned char d[EVP_MAX_MD_SIZE];
};

struct canon {
    struct node *v;
    size_t n;
    int *by_path, *by_depth, *children;
    int *grouped;                   /* the nodes but the root, by parent (-1 first) */
    size_t *start;                  /* parent p's children: grouped[start[p + 1] .. start[p + 2]) */
    const struct tree_canon_kinds *k;
    const EVP_MD *md;
    EVP_MD_CTX *ctx;
    unsigned dlen;
    struct buf text;                /* one node's hashed text */
};

static int depth_of(const char *path)
{
    int d = 0;
    for (const char *p = path; *p; p++)
        d += *p == '/';
    return strcmp(path, "/") == 0 ? 0 : d;
}

/* Splits text's lines (modified in place) into nodes. */
static int split_lines(struct canon *c, char *text)
{
    size_t cap = 0;
    for (char *line = text, *end; *line; line = end) {
        end = strchr(line, '\n');
        end = end ? (*end = '\0', end + 1) : line + strlen(line);
        char *blank = strchr(line, ' ');
        if (!blank)
            continue;
        *blank = '\0';
        if (array_reserve(&c->v, &cap, c->n + 1, sizeof *c->v))
            return -1;
        c->v[c->n++] = (struct node){ .path = line, .rest = blank + 1, .depth = depth_of(line) };
    }
    return 0;
}

/* The sorts' context is the canon (qsort_r): read-backs of several file systems make their
 * keys at once, each in its own thread. */
static int cmp_path(const void *a, const void *b, void *ctx)
{
    const struct node *v = ((const struct canon *)ctx)->v;
    return strcmp(v[*(const int *)a].path, v[*(const int *)b].path);
}

/* Deepest first, so that an entry's children are done before it; then by parent, so that
 * each directory's children lie together. */
static int cmp_depth(const void *a, const void *b, void *ctx)
{
    const struct node *v = ((const struct canon *)ctx)->v;
    const struct node *x = &v[*(const int *)a], *y = &v[*(const int *)b];
    if (x->depth != y->depth)
        return y->depth - x->depth;
    return (x->parent > y->parent) - (x->parent < y->parent);
}

/* The node whose path is path's parent, or -1. */
static int find_parent(struct canon *c, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || strcmp(path, "/") == 0)
        return -1;
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    char want[TREE_PATH_MAX * 4];
    if (len >= sizeof want)
        return -1;
    memcpy(want, path, len);
    want[len] = '\0';
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(c->v[c->by_path[mid]].path, want);
        if (r == 0)
            return c->by_path[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int is_root(const struct node *v)
{
    return strcmp(v->path, "/") == 0;
}

/* Each node's children side by side (a counting sort on the parent). */
static int group_by_parent(struct canon *c)
{
    c->grouped = malloc((c->n + 1) * sizeof *c->grouped);
    c->start = calloc(c->n + 3, sizeof *c->start);
    size_t *next = calloc(c->n + 3, sizeof *next);
    if (!c->grouped || !c->start || !next) {
        free(next);
        return errno = ENOMEM, -1;
    }
    for (size_t i = 0; i < c->n; i++)
        if (!is_root(&c->v[i]))
            c->start[c->v[i].parent + 2]++;
    for (size_t b = 1; b < c->n + 3; b++)
        c->start[b] += c->start[b - 1];
    memcpy(next, c->start, (c->n + 3) * sizeof *next);
    for (size_t i = 0; i < c->n; i++)
        if (!is_root(&c->v[i]))
            c->grouped[next[c->v[i].parent + 1]++] = (int)i;
    free(next);
    return 0;
}

/* Parents, then the child order: every directory's children side by side. */
static int link_nodes(struct canon *c)
{
    c->by_path = malloc((c->n + 1) * sizeof *c->by_path);
    c->by_depth = malloc((c->n + 1) * sizeof *c->by_depth);
    c->children = malloc((c->n + 1) * sizeof *c->children);
    if (!c->by_path || !c->by_depth || !c->children)
        return errno = ENOMEM, -1;
    for (size_t i = 0; i < c->n; i++)
        c->by_path[i] = c->by_depth[i] = (int)i;
    qsort_r(c->by_path, c->n, sizeof *c->by_path, cmp_path, c);
    for (size_t i = 0; i < c->n; i++)
        c->v[i].parent = find_parent(c, c->v[i].path);
    qsort_r(c->by_depth, c->n, sizeof *c->by_depth, cmp_depth, c);
    return group_by_parent(c);
}

static const char *label_of(const struct canon *c, const char *path)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < c->k->n[k]; i++)
            if (strcmp(c->k->names[k][i], name) == 0)
                return k ? "\001d" : "\001f";
    return path[0] == '/' && !path[1] ? "\001/" : name;
}

static int cmp_digest(const void *a, const void *b, void *ctx)
{
    const struct canon *c = ctx;
    return memcmp(c->v[*(const int *)a].d, c->v[*(const int *)b].d, c->dlen);
}

/* Hashes label, rest and the children's digests (sorted) into out. */
static int hash_node(struct canon *c, const char *label, const char *rest, const int *kids,
                     size_t nkids, unsigned char *out)
{
    c->text.len = 0;
    if (buf_add(&c->text, label, strlen(label) + 1) || buf_add(&c->text, rest, strlen(rest) + 1))
        return -1;
    for (size_t i = 0; i < nkids; i++)
        if (buf_add(&c->text, c->v[kids[i]].d, c->dlen))
            return -1;
    unsigned n = 0;
    return EVP_DigestInit_ex(c->ctx, c->md, NULL) &&
           EVP_DigestUpdate(c->ctx, c->text.p, c->text.len) &&
           EVP_DigestFinal_ex(c->ctx, out, &n) ? 0 : (errno = EIO, -1);
}

/* The children of parent p among the nodes done so far, sorted by digest, at kids. */
static size_t gather(struct canon *c, int p, int *kids)
{
    size_t n = c->start[p + 2] - c->start[p + 1];
    memcpy(kids, c->grouped + c->start[p + 1], n * sizeof *kids);
    qsort_r(kids, n, sizeof *kids, cmp_digest, c);
    return n;
}

/* Every node deepest first; the digest is the root's, over the root and any orphans. */
static int hash_all(struct canon *c, unsigned char *out)
{
    int root = -1;
    for (size_t j = 0; j < c->n; j++) {
        struct node *v = &c->v[c->by_depth[j]];
        if (is_root(v)) {
            root = c->by_depth[j];
            continue;
        }
        size_t nk = gather(c, c->by_depth[j], c->children);
        if (hash_node(c, label_of(c, v->path), v->rest, c->children, nk, v->d))
            return -1;
    }
    size_t nk = gather(c, root, c->children);
    if (root >= 0) {   /* the root's own children, then any orphans, are its children */
        size_t no = gather(c, -1, c->children + nk);
        nk += no;
    }
    return hash_node(c, "\001/", root >= 0 ? c->v[root].rest : "", c->children, nk, out);
}

int tree_canon_digest(const char *listing, const EVP_MD *md, EVP_MD_CTX *ctx,
                      const struct tree_canon_kinds *k, unsigned char *out)
{
    struct canon c = { .k = k, .md = md, .ctx = ctx };
    char *text = strdup(listing ? listing : "");
    int rc = -1;
    if (!text) {
        errno = ENOMEM;
    } else if (split_lines(&c, text) == 0 && link_nodes(&c) == 0) {
        c.dlen = (unsigned)EVP_MD_get_size(c.md);
        rc = hash_all(&c, out) ? -1 : (int)c.dlen;
    }
    free(c.v);
    free(c.by_path);
    free(c.by_depth);
    free(c.children);
    free(c.grouped);
    free(c.start);
    buf_free(&c.text);
    free(text);
    return rc;
}
