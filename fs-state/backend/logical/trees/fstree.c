/* Recorded trees: records the walk of a mount (tree/walk.c) into shared, immutable entries and deduplicated data blocks, and digests them as tree/digest.c does a walk. */
#include "backend/logical/trees/fstree.h"
#include "lib/text/buf.h"
#include "backend/base/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>


/* What a walk reuses from one call to the next: a walk allocates only what it keeps. */
struct ft_scratch {
    struct tree_walk walk;
    const struct ft_tree *prev;         /* the walk's tree to share entries with */
    long adj;                           /* the walk's root nlink adjustment */
    unsigned char *data;                /* one file's contents */
    size_t dcap;
    unsigned char *want;                /* per block of that file: 1 if it is read */
    size_t wcap;
    struct buf xlist, xval;             /* an xattr list and one value */
    struct ft_ext *ext;                 /* the current file's blocks (refs held) */
    size_t next, extcap;
    struct ft_xattr *xs;                /* the current entry's xattrs (copies) */
    size_t nxs, xscap;
    struct rec { struct ft_entry *e; uint64_t ino; } *recs;   /* the tree being made */
    size_t nrec, reccap;
    struct tree_extent *aext;
    size_t aextcap;
    struct tree_xattr *ax;
    size_t axcap;
};

/* ---- the store ---- */

int ft_store_init(struct ft_store *st, const char *hash, const char *exclude, unsigned ignore)
{
    memset(st, 0, sizeof *st);
    snprintf(st->hash, sizeof st->hash, "%s", hash);
    snprintf(st->exclude, sizeof st->exclude, "%s", exclude);
    st->opts = (struct tree_opts){ st->hash, st->exclude, ignore, 0 };   /* no mtimes: a restore cannot set them back */
    st->s = calloc(1, sizeof *st->s);
    return st->s ? 0 : -1;
}

void ft_store_free(struct ft_store *st)
{
    struct ft_block *b, *tmp;
    HASH_ITER(hh, st->blocks, b, tmp) {
        HASH_DEL(st->blocks, b);
        free(b);
    }
    if (st->s) {
        tree_walk_free(&st->s->walk);
        free(st->s->data);
        free(st->s->want);
        buf_free(&st->s->xlist);
        buf_free(&st->s->xval);
        free(st->s->ext);
        free(st->s->xs);
        free(st->s->recs);
        free(st->s->aext);
        free(st->s->ax);
        free(st->s);
    }
    memset(st, 0, sizeof *st);
}

/* ---- blocks ---- */

/* A fast 64-bit hash of a block: equal keys are confirmed with memcmp before sharing. */
static uint64_t block_key(const unsigned char *p)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < FT_BLOCK; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h;
}

/* The stored block with these bytes (a reference taken), made if new. A key taken by other
 * bytes moves on to the next key; a block found nowhere is merely stored twice. */
static struct ft_block *block_get(struct ft_store *st, const unsigned char *p)
{
    uint64_t key = block_key(p);
    struct ft_block *b;
    for (;; key++) {
        HASH_FIND(hh, st->blocks, &key, sizeof key, b);
        if (!b)
            break;
        if (memcmp(b->data, p, FT_BLOCK) == 0) {
            b->refs++;
            return b;
        }
    }
    if (!(b = malloc(sizeof *b)))
        return NULL;
    b->key = key;
    b->refs = 1;
    memcpy(b->data, p, FT_BLOCK);
    HASH_ADD(hh, st->blocks, key, sizeof b->key, b);
    st->bytes += sizeof *b;
    return b;
}

static void block_put(struct ft_store *st, struct ft_block *b)
{
    if (--b->refs)
        return;
    HASH_DEL(st->blocks, b);
    st->bytes -= sizeof *b;
    free(b);
}

/* ---- entries ---- */

static void xattrs_free(struct ft_xattr *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(x[i].name);
        free(x[i].value);
    }
}

static void entry_put(struct ft_store *st, struct ft_entry *e)
{
    if (--e->refs)
        return;
    for (size_t i = 0; i < e->nblocks; i++)
        block_put(st, e->blocks[i].blk);
    xattrs_free(e->xattrs, e->nx);
    st->bytes -= sizeof *e + strlen(e->path) + e->tlen + e->nblocks * sizeof *e->blocks +
                 e->line_len;
    free(e->line);
    free(e->blocks);
    free(e->xattrs);
    free(e->target);
    free(e->path);
    free(e);
}

static int xattrs_equal(const struct ft_entry *a, const struct ft_entry *b)
{
    if (a->nx != b->nx)
        return 0;
    for (size_t i = 0; i < a->nx; i++)
        if (strcmp(a->xattrs[i].name, b->xattrs[i].name) || a->xattrs[i].len != b->xattrs[i].len ||
            memcmp(a->xattrs[i].value, b->xattrs[i].value, a->xattrs[i].len))
            return 0;
    return 1;
}

/* Everything but the path; blocks compare by pointer (equal bytes share one block). */
static int entries_equal(const struct ft_entry *a, const struct ft_entry *b)
{
    if (a->mode != b->mode || a->nlink != b->nlink || a->uid != b->uid || a->gid != b->gid ||
        a->size != b->size || a->tlen != b->tlen || a->nblocks != b->nblocks ||
        (a->tlen && memcmp(a->target, b->target, a->tlen)))
        return 0;
    for (size_t i = 0; i < a->nblocks; i++)
        if (a->blocks[i].idx != b->blocks[i].idx || a->blocks[i].blk != b->blocks[i].blk)
            return 0;
    return xattrs_equal(a, b);
}

static const struct ft_entry *find_entry(const struct ft_tree *t, const char *path)
{
    size_t lo = 0, hi = t ? t->n : 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(t->ents[mid]->path, path);
        if (c == 0)
            return t->ents[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Takes the scratch's blocks and xattrs into a new entry made from cur. */
static struct ft_entry *entry_new(struct ft_store *st, const struct ft_entry *cur)
{
    struct ft_scratch *s = st->s;
    struct ft_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    *e = *cur;
    e->refs = 1;
    e->path = strdup(cur->path);
    e->target = cur->tlen ? malloc(cur->tlen + 1) : NULL;   /* NUL-ended for symlink(2) */
    e->blocks = s->next ? malloc(s->next * sizeof *e->blocks) : NULL;
    e->xattrs = s->nxs ? malloc(s->nxs * sizeof *e->xattrs) : NULL;
    if (!e->path || (cur->tlen && !e->target) || (s->next && !e->blocks) ||
        (s->nxs && !e->xattrs)) {
        free(e->path), free(e->target), free(e->blocks), free(e->xattrs), free(e);
        return NULL;
    }
    if (cur->tlen) {
        memcpy(e->target, cur->target, cur->tlen);
        e->target[cur->tlen] = '\0';
    }
    if (s->next)
        memcpy(e->blocks, s->ext, s->next * sizeof *e->blocks);
    if (s->nxs)
        memcpy(e->xattrs, s->xs, s->nxs * sizeof *e->xattrs);
    s->next = s->nxs = 0;
    st->bytes += sizeof *e + strlen(e->path) + e->tlen + e->nblocks * sizeof *e->blocks;
    return e;
}

/* Drops what the scratch holds for an entry that turned out to be known already. */
static void scratch_release(struct ft_store *st)
{
    struct ft_scratch *s = st->s;
    for (size_t i = 0; i < s->next; i++)
        block_put(st, s->ext[i].blk);
    xattrs_free(s->xs, s->nxs);
    s->next = s->nxs = 0;
}

/* Adds the entry cur (with the scratch's blocks and xattrs) to the tree being made, shared
 * with prev's entry of the same path when they are equal. */
static int add_record(struct ft_store *st, struct ft_entry *cur, uint64_t ino,
                      const struct ft_tree *prev)
{
    struct ft_scratch *s = st->s;
    cur->blocks = s->ext;
    cur->nblocks = s->next;
    cur->xattrs = s->xs;
    cur->nx = s->nxs;
    struct ft_entry *old = (struct ft_entry *)find_entry(prev, cur->path), *e;
    if (array_reserve(&s->recs, &s->reccap, s->nrec + 1, sizeof *s->recs) < 0)
        return -1;
    if (old && entries_equal(old, cur)) {
        scratch_release(st);
        old->refs++;
        e = old;
    } else if (!(e = entry_new(st, cur))) {
        scratch_release(st);
        return -1;
    }
    s->recs[s->nrec++] = (struct rec){ e, ino };
    return 0;
}

/* ---- reading one entry ---- */

static int cmp_xattr(const void *a, const void *b)
{
    return strcmp(((const struct ft_xattr *)a)->name, ((const struct ft_xattr *)b)->name);
}

static int push_xattr(struct ft_scratch *s, const char *name, const char *value, size_t len)
{
    if (array_reserve(&s->xs, &s->xscap, s->nxs + 1, sizeof *s->xs) < 0)
        return -1;
    struct ft_xattr *x = &s->xs[s->nxs];
    x->name = strdup(name);
    x->value = malloc(len ? len : 1);
    x->len = len;
    if (!x->name || !x->value) {
        free(x->name);
        free(x->value);
        return -1;
    }
    memcpy(x->value, value, len);
    s->nxs++;
    return 0;
}

/* Every xattr of fd, sorted by name: restore sets them all back, whatever the digest ignores. */
static int read_xattrs(struct ft_scratch *s, int fd)
{
    ssize_t n = tree_xattr_read(&s->xlist, fd, NULL);
    if (n < 0)
        return errno == ENOTSUP || errno == ENODATA ? 0 : -1;
    s->xlist.p[n] = '\0';
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(s->xlist.p + i) + 1) {
        const char *name = s->xlist.p + i;
        ssize_t v = tree_xattr_read(&s->xval, fd, name);
        if (v < 0 && errno == ENODATA)
            continue;           /* listed but not readable: absent, as the walk has it */
        if (v < 0 || push_xattr(s, name, s->xval.p, (size_t)v) < 0)
            return -1;
    }
    if (s->nxs > 1)
        qsort(s->xs, s->nxs, sizeof *s->xs, cmp_xattr);
    return 0;
}

static int all_zero(const unsigned char *p, size_t n)
{
    return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}


/* Reads [start, end) into s->data at the same offsets; what the file does not give is zero. */
static int read_range(struct ft_scratch *s, int fd, uint64_t start, uint64_t end)
{
    while (start < end) {
        ssize_t n = pread(fd, s->data + start, end - start, (off_t)start);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        start += (uint64_t)n;
    }
    memset(s->data + start, 0, end - start);
    return 0;
}

/* Marks in want the blocks of [0, size) that hold data: all of a small file, the SEEK_DATA
 * ranges of a large one (reading its holes would cost as much as its data). */
static void data_ranges(int fd, uint64_t size, unsigned char *want, uint64_t nblk)
{
    memset(want, size <= TREE_SMALL_FILE, nblk);
    for (uint64_t off = 0; size > TREE_SMALL_FILE && off < size;) {
        off_t d = lseek(fd, (off_t)off, SEEK_DATA);
        if (d < 0 && errno == ENXIO)
            break;
        off_t h = d < 0 ? (off_t)size : lseek(fd, d, SEEK_HOLE);
        if (d < 0)
            d = (off_t)off;     /* no SEEK_DATA: all of it is data */
        if (h < 0 || (uint64_t)h > size)
            h = (off_t)size;
        uint64_t first = (uint64_t)d / FT_BLOCK, last = ((uint64_t)h + FT_BLOCK - 1) / FT_BLOCK;
        if (last > first)
            memset(want + first, 1, last - first);
        off = (uint64_t)h > off ? (uint64_t)h : off + FT_BLOCK;
    }
}

/* Reads every wanted block, each run of them with one pread. */
static int read_wanted(struct ft_scratch *s, int fd, uint64_t size, uint64_t nblk)
{
    for (uint64_t i = 0; i < nblk;) {
        uint64_t j = i;
        while (j < nblk && s->want[j] == s->want[i])
            j++;
        uint64_t end = j * FT_BLOCK < size ? j * FT_BLOCK : size;
        if (!s->want[i])
            memset(s->data + i * FT_BLOCK, 0, end - i * FT_BLOCK);
        else if (read_range(s, fd, i * FT_BLOCK, end) < 0)
            return -1;
        i = j;
    }
    memset(s->data + size, 0, nblk * FT_BLOCK - size);
    return 0;
}

/* Keeps block idx of prev's entry when the bytes are the same (no hashing), else the store's. */
static struct ft_block *pick_block(struct ft_store *st, const struct ft_entry *old, size_t *hint,
                                   uint64_t idx, const unsigned char *p)
{
    while (old && *hint < old->nblocks && old->blocks[*hint].idx < idx)
        (*hint)++;
    if (old && *hint < old->nblocks && old->blocks[*hint].idx == idx &&
        memcmp(old->blocks[*hint].blk->data, p, FT_BLOCK) == 0) {
        old->blocks[*hint].blk->refs++;
        return old->blocks[*hint].blk;
    }
    return block_get(st, p);
}

/* All-zero blocks are holes, unless the file has more allocated than its other blocks need:
 * then they were written or fallocated, and restore writes them back so that they are
 * allocated again (free space stays what the operations left). */
static int keep_zero_blocks(struct ft_scratch *s, const struct stat *sb, uint64_t nblk)
{
    uint64_t nonzero = 0;
    for (uint64_t i = 0; i < nblk; i++)
        nonzero += s->want[i] && !all_zero(s->data + i * FT_BLOCK, FT_BLOCK);
    return (uint64_t)sb->st_blocks * 512 > nonzero * FT_BLOCK;
}

static int read_contents(struct ft_store *st, int fd, const struct stat *sb,
                         const struct ft_entry *old)
{
    struct ft_scratch *s = st->s;
    uint64_t size = (uint64_t)sb->st_size, nblk = (size + FT_BLOCK - 1) / FT_BLOCK;
    size_t hint = 0;
    if (array_reserve(&s->data, &s->dcap, nblk * FT_BLOCK, 1) < 0 || array_reserve(&s->want, &s->wcap, nblk, 1) < 0 ||
        array_reserve(&s->ext, &s->extcap, nblk, sizeof *s->ext) < 0)
        return -1;
    data_ranges(fd, size, s->want, nblk);
    if (read_wanted(s, fd, size, nblk) < 0)
        return -1;
    int keep = keep_zero_blocks(s, sb, nblk);
    for (uint64_t i = 0; i < nblk; i++) {
        const unsigned char *p = s->data + i * FT_BLOCK;
        if (!s->want[i] || (!keep && all_zero(p, FT_BLOCK)))
            continue;
        struct ft_block *b = pick_block(st, old, &hint, i, p);
        if (!b)
            return -1;
        s->ext[s->next++] = (struct ft_ext){ i, b };
    }
    return 0;
}

/* ---- the walk ---- */

/* A regular file's or directory's xattrs and contents, read through the walk's fd. */
static int read_fd(struct ft_store *st, const struct tree_entry *e, const struct ft_tree *prev)
{
    int rc = read_xattrs(st->s, e->fd);
    if (!rc && S_ISREG(e->st.st_mode))
        rc = read_contents(st, e->fd, &e->st, find_entry(prev, e->path));
    if (rc)
        scratch_release(st);
    return rc;
}

/* The walk's visitor: records e (a directory's size is not compared: 0). */
static int visit(void *ctx, const struct tree_entry *e)
{
    struct ft_store *st = ctx;
    struct ft_scratch *s = st->s;
    struct ft_entry cur = { .path = (char *)e->path, .mode = e->st.st_mode,
                            .nlink = e->st.st_nlink, .uid = e->st.st_uid, .gid = e->st.st_gid,
                            .size = S_ISDIR(e->st.st_mode) ? 0 : e->st.st_size,
                            .target = (char *)e->target, .tlen = e->target ? e->tlen : 0 };
    if (strcmp(e->path, "/") == 0)
        s->adj = e->nlink_adj;
    if (e->fd >= 0 && read_fd(st, e, s->prev) < 0)
        return -1;
    return add_record(st, &cur, e->st.st_ino, s->prev);
}

/* ---- trees ---- */

static int cmp_rec(const void *a, const void *b)
{
    return strcmp(((const struct rec *)a)->e->path, ((const struct rec *)b)->e->path);
}

struct ino_idx { uint64_t ino; long idx; };

static int cmp_ino(const void *a, const void *b)
{
    const struct ino_idx *x = a, *y = b;
    return x->ino != y->ino ? (x->ino < y->ino ? -1 : 1) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Hard-link groups: entries (not directories) of one inode, chained in path order. */
static int link_groups(struct ft_tree *t, const struct rec *recs)
{
    struct ino_idx *v = malloc((t->n ? t->n : 1) * sizeof *v);
    size_t m = 0;
    if (!v)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        t->leader[i] = (long)i;
        t->next[i] = -1;
        if (!S_ISDIR(t->ents[i]->mode) && t->ents[i]->nlink > 1)
            v[m++] = (struct ino_idx){ recs[i].ino, (long)i };
    }
    qsort(v, m, sizeof *v, cmp_ino);
    for (size_t k = 1; k < m; k++)
        if (v[k].ino == v[k - 1].ino) {
            t->leader[v[k].idx] = t->leader[v[k - 1].idx];
            t->next[v[k - 1].idx] = v[k].idx;
        }
    free(v);
    return 0;
}

/* Makes the tree of the records the walk left in the scratch (which hands their refs over). */
static struct ft_tree *make_tree(struct ft_store *st, long adj)
{
    struct ft_scratch *s = st->s;
    struct ft_tree *t = calloc(1, sizeof *t);
    qsort(s->recs, s->nrec, sizeof *s->recs, cmp_rec);
    if (t) {
        t->n = s->nrec;
        t->ents = malloc((t->n ? t->n : 1) * sizeof *t->ents);
        t->leader = malloc((t->n ? t->n : 1) * sizeof *t->leader);
        t->next = malloc((t->n ? t->n : 1) * sizeof *t->next);
    }
    if (!t || !t->ents || !t->leader || !t->next) {
        if (t)
            free(t->ents), free(t->leader), free(t->next), free(t);
        return NULL;
    }
    for (size_t i = 0; i < t->n; i++)
        t->ents[i] = s->recs[i].e;
    s->nrec = 0;
    t->refs = 1;
    t->root_nlink_adj = adj;
    if (link_groups(t, s->recs) < 0) {
        ft_unref(st, t);
        return NULL;
    }
    return t;
}

static void drop_records(struct ft_store *st)
{
    for (size_t i = 0; i < st->s->nrec; i++)
        entry_put(st, st->s->recs[i].e);
    st->s->nrec = 0;
}

struct ft_tree *ft_record(struct ft_store *st, int rootfd, const struct ft_tree *prev)
{
    struct ft_scratch *s = st->s;
    s->walk.exclude = st->opts.exclude;
    s->walk.visit = visit;
    s->walk.ctx = st;
    s->prev = prev;
    s->adj = 0;
    errno = 0;
    int rc = tree_walk(&s->walk, rootfd);
    int err = errno;
    struct ft_tree *t = rc < 0 ? NULL : make_tree(st, s->adj);
    if (t && (t->dlen = ft_digest(st, t, NULL, t->digest, NULL)) < 0) {
        err = errno;
        ft_unref(st, t);
        t = NULL;
    }
    if (!t) {
        drop_records(st);
        errno = err ? err : ENOMEM;
    }
    return t;
}

struct ft_tree *ft_ref(struct ft_tree *t)
{
    if (t)
        t->refs++;
    return t;
}

void ft_unref(struct ft_store *st, struct ft_tree *t)
{
    if (!t || --t->refs)
        return;
    for (size_t i = 0; i < t->n; i++)
        entry_put(st, t->ents[i]);
    free(t->ents);
    free(t->leader);
    free(t->next);
    free(t);
}

/* ---- digests and comparisons ---- */

/* The entry as the digest takes it: handed over (fd -1), its blocks and xattrs as arrays. */
static void tree_entry_of(struct ft_scratch *s, const struct ft_entry *e, long adj,
                          struct tree_entry *a)
{
    *a = (struct tree_entry){ .path = e->path, .nlink_adj = adj, .fd = -1, .target = e->target,
                              .tlen = e->tlen };
    a->st.st_mode = e->mode;
    a->st.st_nlink = e->nlink;
    a->st.st_uid = e->uid;
    a->st.st_gid = e->gid;
    a->st.st_size = e->size;
    for (size_t i = 0; i < e->nblocks; i++) {
        uint64_t off = e->blocks[i].idx * FT_BLOCK, left = (uint64_t)e->size - off;
        s->aext[i] = (struct tree_extent){ off, e->blocks[i].blk->data,
                                          left < FT_BLOCK ? left : FT_BLOCK };
    }
    for (size_t i = 0; i < e->nx; i++)
        s->ax[i] = (struct tree_xattr){ e->xattrs[i].name, e->xattrs[i].value, e->xattrs[i].len };
    a->ext = s->aext;
    a->next = e->nblocks;
    a->xattrs = s->ax;
    a->nx = e->nx;
}

/* An entry's line depends on the options only (and, for the root, on the excluded directories
 * it counts): with the store's options, the line made once is kept and its contents are not
 * digested again in any later tree that shares the entry. */
static int add_to_digest(struct ft_store *st, struct ft_entry *e, long adj, int cache)
{
    struct ft_scratch *s = st->s;
    struct tree_entry a;
    if (e->line && cache && !adj)
        return tree_digest_add_line(e->path, e->line, e->line_len);
    if (array_reserve(&s->aext, &s->aextcap, e->nblocks, sizeof *s->aext) < 0 ||
        array_reserve(&s->ax, &s->axcap, e->nx, sizeof *s->ax) < 0)
        return -1;
    tree_entry_of(s, e, adj, &a);
    if (!cache || adj)
        return tree_digest_add(&a);
    int n = tree_digest_entry_line(&a, &e->line);
    if (n < 0)
        return -1;
    e->line_len = (size_t)n;
    st->bytes += e->line_len;
    return tree_digest_add_line(e->path, e->line, e->line_len);
}

int ft_same_opts(const struct tree_opts *a, const struct tree_opts *b)
{
    return strcmp(a->hash ? a->hash : "md5", b->hash) == 0 &&
           strcmp(a->exclude ? a->exclude : "", b->exclude) == 0 && a->ignore == b->ignore;
}

int ft_digest(struct ft_store *st, const struct ft_tree *t, const struct tree_opts *o,
              unsigned char *out, FILE *listing)
{
    int cache = !o || ft_same_opts(o, &st->opts);
    int rc = tree_digest_begin(o ? o : &st->opts);
    for (size_t i = 0; rc == 0 && i < t->n; i++)
        rc = add_to_digest(st, t->ents[i],
                           strcmp(t->ents[i]->path, "/") == 0 ? t->root_nlink_adj : 0, cache);
    return rc < 0 ? -1 : tree_digest_end(out, listing, NULL);
}

int ft_index(const struct ft_tree *t, struct tree_index *index)
{
    index->n = index->len = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct ft_entry *e = t->ents[i];
        long adj = strcmp(e->path, "/") == 0 ? t->root_nlink_adj : 0;
        if (tree_index_add(index, e->path, e->mode, (uint64_t)e->nlink - (uint64_t)adj,
                           (uint64_t)e->size) < 0)
            return -1;
    }
    return 0;
}

int ft_same_links(const struct ft_tree *a, const struct ft_tree *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->leader[i] != b->leader[i] || strcmp(a->ents[i]->path, b->ents[i]->path))
            return 0;
    return 1;
}

struct listing_job {
    struct ft_store *st;
    const struct ft_tree *t;
};

static int list_recorded(void *ctx, FILE *f)
{
    struct listing_job *j = ctx;
    unsigned char d[TREE_MAX_DIGEST];
    return ft_digest(j->st, j->t, NULL, d, f);
}

char *ft_listing(struct ft_store *st, const struct ft_tree *t)
{
    struct listing_job j = { st, t };
    return tree_listing_text(list_recorded, &j);
}

/* The first path whose hard-link group differs, when the listings agree. */
static void first_link_difference(const struct ft_tree *a, const struct ft_tree *b, char *out,
                                  size_t outlen)
{
    for (size_t i = 0; i < a->n && i < b->n; i++)
        if (a->leader[i] != b->leader[i]) {
            snprintf(out, outlen, "the hard links of %s differ", a->ents[i]->path);
            return;
        }
    snprintf(out, outlen, "the trees differ in their hard links");
}

void ft_first_difference(struct ft_store *st, const struct ft_tree *a, const char *a_label,
                         const struct ft_tree *b, const char *b_label, char *out, size_t outlen)
{
    char *la = ft_listing(st, a), *lb = ft_listing(st, b);
    if (la && lb && strcmp(la, lb) == 0)
        first_link_difference(a, b, out, outlen);
    else
        bk_first_difference(la ? la : "", a_label, lb ? lb : "", b_label, out, outlen);
    free(la);
    free(lb);
}
