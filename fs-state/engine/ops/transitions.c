/* The bounded search's transition table: the argument tuples of every operation, enumerated once from the config and the pool. */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "engine/ops/transitions.h"

#define NVALUES (3 * METIS_MAX_PARTS)
#define BITS_VALUES_MAX TRANSITIONS_MAX  /* more values of one bitmap: refused anyway */
/* Counting stops here: the message then says "more than", and nothing waits for the rest. */
#define COUNT_LIMIT 1000000

struct range {
    uint64_t offset, size;
};

/* Each argument's values, worked out once for every operation that takes it. */
struct lists {
    const char **any;              /* pool directories, then files (input_any_path) */
    int nany;
    const char **mkdirs;           /* directories (mkdir's pool_dir; files when there are none) */
    int nmkdirs;
    uint64_t val[ARG_NKINDS][NVALUES];
    int nval[ARG_NKINDS];
    unsigned *bits[BM_NKINDS];
    size_t nbits[BM_NKINDS];
    unsigned *write_flags;         /* open flags as a write opens with them */
    size_t nwrite_flags;
    struct range *write_ranges, *falloc_ranges;
    size_t nwrite_ranges, nfalloc_ranges;
    uint32_t uids[9], gids[9];
    int nuids, ngids;
};

struct gen {
    const struct input *in;
    const struct metis_config *cfg;
    struct transitions *tt;
    struct lists l;
    int failed;                    /* out of memory */
};

/* ---------- the table ---------- */

static void expand(const struct transition *t, struct op_args *a)
{
    memset(a, 0, sizeof *a);
    a->op = t->op;
    snprintf(a->path, sizeof a->path, "%s", t->path);
    snprintf(a->path2, sizeof a->path2, "%s", t->path2 ? t->path2 : "");
    snprintf(a->xname, sizeof a->xname, "%s", t->xname ? t->xname : "");
    a->flags = t->flags;
    a->mode = t->mode;
    a->offset = t->offset;
    a->size = t->size;
    a->offset2 = t->offset2;
    a->rdev = t->rdev;
    a->uid = t->uid;
    a->gid = t->gid;
    a->data_seed = t->data_seed;
    if (t->op == OP_utimes)
        op_utimes_pick(t->mtime_choice, a);
}

static void keep(struct gen *g, const struct transition *t)
{
    struct transitions *tt = g->tt;
    if (tt->n == tt->cap) {
        size_t cap = tt->cap ? tt->cap * 2 : 64;
        struct transition *v = realloc(tt->t, cap * sizeof *v);
        if (!v) {
            g->failed = 1;
            return;
        }
        tt->t = v;
        tt->cap = cap;
    }
    tt->t[tt->n++] = *t;
}

static void add(struct gen *g, const struct transition *t)
{
    if (g->tt->total >= COUNT_LIMIT)
        return;
    g->tt->per_op[t->op]++;
    if (g->tt->total++ < TRANSITIONS_MAX && !g->failed)
        keep(g, t);
}

static int counting_done(const struct gen *g)
{
    return g->tt->total >= COUNT_LIMIT;
}

/* A write's bytes are a function of its arguments: the same write from two paths puts down
 * the same data, so the state it makes is one state (FNV-1a of its text form, seed 0). */
uint64_t transitions_data_seed(const struct op_args *a)
{
    char text[2 * METIS_PATH_MAX + 512];
    uint64_t h = 0xcbf29ce484222325ull;
    struct op_args b = *a;
    b.data_seed = 0;
    op_format(&b, text, sizeof text);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    return h;
}

/* path with each name cut to its kind, the pool's first letter ("/d0/f1" to "/d/f"). */
static void shape_of(char *path)
{
    char *to = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || p == path || p[-1] == '/')
            *to++ = *p;
    *to = '\0';
}

/* With [run] symmetry = names a write's data must not tell one pool name of a kind from
 * another, or the renamed state would not be the state the renamed write makes: its seed is
 * made from its paths' shapes. */
static int seed_data(struct transitions *tt, int symmetric)
{
    struct op_args *a = malloc(sizeof *a);   /* two paths of PATH_MAX: not on the stack */
    if (!a)
        return -1;
    for (size_t i = 0; i < tt->n; i++)
        if (op_desc_of(tt->t[i].op)->fields & OPF_SEED) {
            expand(&tt->t[i], a);
            if (symmetric) {
                shape_of(a->path);
                shape_of(a->path2);
            }
            tt->t[i].data_seed = transitions_data_seed(a);
        }
    free(a);
    return 0;
}

/* ---------- value lists ---------- */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_unsigned(const void *x, const void *y)
{
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    return a < b ? -1 : a > b;
}

static int cmp_range(const void *x, const void *y)
{
    const struct range *a = x, *b = y;
    return a->size != b->size ? (a->size < b->size ? -1 : 1)
                              : a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Sorts v (n items of size sz) and drops repeats; returns how many are left. */
static size_t sort_unique(void *v, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
    char *p = v;
    size_t m = 0;
    if (n == 0)
        return 0;
    qsort(p, n, sz, cmp);
    for (size_t i = 1; i < n; i++)
        if (cmp(p + m * sz, p + i * sz) != 0)
            memcpy(p + ++m * sz, p + i * sz, sz);
    return m + 1;
}

int kind_values(const struct metis_config *cfg, enum arg_kind k, uint64_t *v)
{
    const struct partitions *p = &cfg->part[k];
    int parts = p->nparts < 0 ? 0 : p->nparts > METIS_MAX_PARTS ? METIS_MAX_PARTS : p->nparts;
    size_t n = 0;
    for (int j = 0; j < parts; j++) {
        uint64_t lo = j == 0 ? 0 : (uint64_t)1 << (j - 1);
        if (p->weight[j] <= 0)
            continue;
        if (j > 0 && p->mode == PART_BOUNDARY_PM1) {
            v[n++] = lo - 1;
            v[n++] = lo + 1;
        }
        v[n++] = lo;
    }
    return (int)sort_unique(v, n, sizeof *v, cmp_u64);
}

/* Every value b's draw can give (input_bitmap); NULL and *n above BITS_VALUES_MAX when there
 * are too many to hold. */
static unsigned *bitmap_values(const struct bitmap *b, size_t *n)
{
    unsigned base = 0, loose[METIS_MAX_BITS];
    int nloose = 0, nb = b->nbits > METIS_MAX_BITS ? METIS_MAX_BITS : b->nbits;
    for (int i = 0; i < nb; i++) {
        if (b->prob[i] >= 1)
            base |= b->value[i];
        else if (b->prob[i] > 0)
            loose[nloose++] = b->value[i];
    }
    *n = (size_t)1 << (nloose > 20 ? 20 : nloose);
    unsigned *v = *n <= BITS_VALUES_MAX ? malloc(*n * sizeof *v) : NULL;
    for (size_t m = 0; v && m < *n; m++) {
        v[m] = base;
        for (int i = 0; i < nloose; i++)
            v[m] |= (m >> i) & 1 ? loose[i] : 0;
    }
    if (v)
        *n = sort_unique(v, *n, sizeof *v, cmp_unsigned);
    return v;
}

/* A write opens with the drawn flags but creation, writable (draw_write_file); O_APPEND stays
 * as a request, placed at each state (transition_args). */
static unsigned *write_flag_values(const unsigned *open_flags, size_t n, size_t *out)
{
    unsigned *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        unsigned f = open_flags[i];
        unsigned acc = (f & O_ACCMODE) == O_RDWR ? O_RDWR : O_WRONLY;
        v[i] = (f & ~(unsigned)(O_CREAT | O_EXCL | O_ACCMODE | __O_TMPFILE)) | acc;
    }
    *out = v ? sort_unique(v, n, sizeof *v, cmp_unsigned) : 0;
    return v;
}

/* The ranges a write or fallocate can have: each offset with each size, and where
 * *_end_boundary is above 0 each moved onto a block boundary or one byte either side
 * (op_boundary_offset); the unmoved one as long as a draw can keep it. */
static struct range *range_values(const struct gen *g, enum arg_kind off, enum arg_kind len,
                                  size_t *out)
{
    const struct lists *l = &g->l;
    double w = g->cfg->end_boundary[off];
    size_t n = 0, cap = (size_t)l->nval[off] * (size_t)l->nval[len] * 4 + 1;
    struct range *r = malloc(cap * sizeof *r);
    for (int i = 0; r && i < l->nval[off]; i++)
        for (int k = 0; k < l->nval[len]; k++) {
            uint64_t o = l->val[off][i], s = l->val[len][k], moved;
            int kept = w < 1;
            for (uint64_t j = 0; j < 3 && w > 0; j++) {
                if (op_boundary_offset(g->cfg, off, len, o, s, j, &moved) < 0)
                    kept = 1;
                else
                    r[n++] = (struct range){ moved, s };
            }
            if (kept)
                r[n++] = (struct range){ o, s };
        }
    *out = r ? sort_unique(r, n, sizeof *r, cmp_range) : 0;
    return r;
}

/* The pool's ids, and -1 (keep) as the draw's one more choice. */
static int id_values(const uint32_t *ids, int n, uint32_t *v)
{
    for (int i = 0; i < n; i++)
        v[i] = ids[i];
    v[n] = (uint32_t)-1;
    return n + 1;
}

static void paths_lists(struct gen *g)
{
    const struct name_pool *p = &g->in->pool;
    struct lists *l = &g->l;
    l->any = malloc((size_t)(p->ndirs + p->nfiles + 1) * sizeof *l->any);
    if (!l->any) {
        g->failed = 1;
        return;
    }
    for (int i = 0; i < p->ndirs; i++)
        l->any[l->nany++] = p->dirs[i];
    for (int i = 0; i < p->nfiles; i++)
        l->any[l->nany++] = p->files[i];
    l->mkdirs = l->any;          /* the directories, or the files when there are none */
    l->nmkdirs = p->ndirs ? p->ndirs : p->nfiles;
}

static void make_lists(struct gen *g)
{
    struct lists *l = &g->l;
    paths_lists(g);
    for (int k = 0; k < ARG_NKINDS; k++)
        l->nval[k] = kind_values(g->cfg, (enum arg_kind)k, l->val[k]);
    for (int k = 0; k < BM_NKINDS; k++)
        l->bits[k] = bitmap_values(&g->cfg->bits[k], &l->nbits[k]);
    if (l->bits[BM_OPEN_FLAGS])
        l->write_flags = write_flag_values(l->bits[BM_OPEN_FLAGS], l->nbits[BM_OPEN_FLAGS],
                                           &l->nwrite_flags);
    l->write_ranges = range_values(g, ARG_WRITE_OFFSET, ARG_WRITE_SIZE, &l->nwrite_ranges);
    l->falloc_ranges = range_values(g, ARG_FALLOC_OFFSET, ARG_FALLOC_LEN, &l->nfalloc_ranges);
    l->nuids = id_values(g->cfg->pool.uids, g->cfg->pool.nuids, l->uids);
    l->ngids = id_values(g->cfg->pool.gids, g->cfg->pool.ngids, l->gids);
    if (!l->write_ranges || !l->falloc_ranges)
        g->failed = 1;
}

static void free_lists(struct lists *l)
{
    free(l->any);
    for (int k = 0; k < BM_NKINDS; k++)
        free(l->bits[k]);
    free(l->write_flags);
    free(l->write_ranges);
    free(l->falloc_ranges);
}

/* A bitmap with more values than can be held: counted as that many, so the table is refused. */
static int bits_missing(struct gen *g, enum op_id op, enum bitmap_kind k)
{
    if (g->l.bits[k])
        return 0;
    g->tt->per_op[op] += g->l.nbits[k];
    g->tt->total += g->l.nbits[k];
    return 1;
}

/* ---------- each operation's transitions: the values its draw can give ---------- */

static const char *const *files_of(const struct gen *g, int *n)
{
    *n = g->in->pool.nfiles;
    return (const char *const *)g->in->pool.files;
}

static void gen_create_file(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    if (bits_missing(g, OP_create_file, BM_OPEN_FLAGS) || bits_missing(g, OP_create_file, BM_MODE))
        return;
    for (int p = 0; p < nf && !counting_done(g); p++)
        for (size_t f = 0; f < g->l.nbits[BM_OPEN_FLAGS]; f++)
            for (size_t m = 0; m < g->l.nbits[BM_MODE]; m++)
                add(g, &(struct transition){ .op = OP_create_file, .path = files[p],
                                        .flags = (int)(g->l.bits[BM_OPEN_FLAGS][f] | O_CREAT),
                                        .mode = g->l.bits[BM_MODE][m] });
}

static void gen_write_file(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    if (bits_missing(g, OP_write_file, BM_OPEN_FLAGS))
        return;
    for (int p = 0; p < nf && !counting_done(g); p++)
        for (size_t f = 0; f < g->l.nwrite_flags; f++)
            for (size_t r = 0; r < g->l.nwrite_ranges; r++)
                add(g, &(struct transition){ .op = OP_write_file, .path = files[p],
                                        .flags = (int)g->l.write_flags[f],
                                        .offset = g->l.write_ranges[r].offset,
                                        .size = g->l.write_ranges[r].size });
}

static void gen_truncate(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    for (int p = 0; p < nf; p++)
        for (int s = 0; s < g->l.nval[ARG_TRUNC_SIZE]; s++)
            add(g, &(struct transition){ .op = OP_truncate, .path = files[p],
                                    .size = g->l.val[ARG_TRUNC_SIZE][s] });
}

/* A mode other than 0 and KEEP_SIZE is aligned as often as falloc_align says: both ways when
 * that is between 0 and 1 (one transition when aligning changes nothing). */
static void add_falloc(struct gen *g, const char *path, unsigned mode, struct range r)
{
    struct transition t = { .op = OP_fallocate_file, .path = path, .flags = (int)mode,
                       .offset = r.offset, .size = r.size };
    double prob = (mode & ~(unsigned)FALLOC_FL_KEEP_SIZE) ? g->cfg->falloc_align_prob : 0;
    uint64_t o = r.offset, s = r.size;
    op_align_range(&o, &s, g->cfg->falloc_align);
    int moves = o != r.offset || s != r.size;
    if (prob < 1 || !moves)
        add(g, &t);
    if (prob > 0 && moves) {
        t.offset = o;
        t.size = s;
        add(g, &t);
    }
}

static void gen_fallocate_file(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    const struct choice *c = &g->cfg->choice[CH_FALLOC_MODE];
    for (int p = 0; p < nf && !counting_done(g); p++)
        for (int v = 0; v < c->n; v++)
            for (size_t r = 0; c->weight[v] > 0 && r < g->l.nfalloc_ranges; r++)
                add_falloc(g, files[p], op_variant_value(c->variant[v]), g->l.falloc_ranges[r]);
}

static void gen_chmod(struct gen *g)
{
    if (bits_missing(g, OP_chmod, BM_MODE))
        return;
    for (int p = 0; p < g->l.nany; p++)
        for (size_t m = 0; m < g->l.nbits[BM_MODE]; m++)
            add(g, &(struct transition){ .op = OP_chmod, .path = g->l.any[p],
                                    .mode = g->l.bits[BM_MODE][m] });
}

static void gen_chown_file(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        for (int u = 0; u < g->l.nuids; u++)
            add(g, &(struct transition){ .op = OP_chown_file, .path = g->l.any[p],
                                    .uid = g->l.uids[u] });
}

static void gen_chgrp_file(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        for (int u = 0; u < g->l.ngids; u++)
            add(g, &(struct transition){ .op = OP_chgrp_file, .path = g->l.any[p],
                                    .gid = g->l.gids[u] });
}

static void gen_unlink(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        add(g, &(struct transition){ .op = OP_unlink, .path = g->l.any[p] });
}

static void gen_mkdir(struct gen *g)
{
    if (bits_missing(g, OP_mkdir, BM_MODE))
        return;
    for (int p = 0; p < g->l.nmkdirs; p++)
        for (size_t m = 0; m < g->l.nbits[BM_MODE]; m++)
            add(g, &(struct transition){ .op = OP_mkdir, .path = g->l.mkdirs[p],
                                    .mode = g->l.bits[BM_MODE][m] });
}

static void gen_rmdir(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        add(g, &(struct transition){ .op = OP_rmdir, .path = g->l.any[p] });
}

/* Plain, NOREPLACE and EXCHANGE, but a flag [fs] lacks (the draw gives plain instead). */
static void gen_rename(struct gen *g)
{
    static const unsigned flags[] = { 0, RENAME_NOREPLACE, RENAME_EXCHANGE };
    for (int f = 0; f < 3; f++) {
        if ((g->cfg->lacked_variants >> op_variant_find(OP_rename, flags[f])) & 1)
            continue;
        for (int p = 0; p < g->l.nany && !counting_done(g); p++)
            for (int q = 0; q < g->l.nany; q++)
                add(g, &(struct transition){ .op = OP_rename, .path = g->l.any[p],
                                        .path2 = g->l.any[q], .flags = (int)flags[f] });
    }
}

static void gen_link(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        for (int q = 0; q < g->l.nany; q++)
            add(g, &(struct transition){ .op = OP_link, .path = g->l.any[p], .path2 = g->l.any[q] });
}

/* "." and every pool name below the link's directory (draw_symlink). */
static void gen_symlink(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++) {
        const char *path = g->l.any[p];
        size_t dlen = (size_t)(strrchr(path, '/') - path);
        add(g, &(struct transition){ .op = OP_symlink, .path = path, .path2 = "." });
        for (int q = 0; q < g->l.nany; q++) {
            const char *rel = op_path_below(g->l.any[q], path, dlen);
            if (rel)
                add(g, &(struct transition){ .op = OP_symlink, .path = path, .path2 = rel });
        }
    }
}

static void gen_setxattr(struct gen *g)
{
    static const int flags[] = { 0, XATTR_CREATE, XATTR_REPLACE };
    const struct name_pool *pool = &g->in->pool;
    for (int p = 0; p < g->l.nany && !counting_done(g); p++)
        for (int x = 0; x < pool->nxattrs; x++)
            for (int s = 0; s < g->l.nval[ARG_XATTR_SIZE]; s++)
                for (int f = 0; f < 3; f++)
                    add(g, &(struct transition){ .op = OP_setxattr, .path = g->l.any[p],
                                            .xname = pool->xattrs[x], .flags = flags[f],
                                            .size = g->l.val[ARG_XATTR_SIZE][s] });
}

static void gen_removexattr(struct gen *g)
{
    const struct name_pool *pool = &g->in->pool;
    for (int p = 0; p < g->l.nany; p++)
        for (int x = 0; x < pool->nxattrs; x++)
            add(g, &(struct transition){ .op = OP_removexattr, .path = g->l.any[p],
                                    .xname = pool->xattrs[x] });
}

static void copy_ranges(struct gen *g, const char *from, const char *to)
{
    const struct lists *l = &g->l;
    for (int i = 0; i < l->nval[ARG_COPY_OFFSET] && !counting_done(g); i++)
        for (int j = 0; j < l->nval[ARG_COPY_OFFSET]; j++)
            for (int k = 0; k < l->nval[ARG_COPY_LEN]; k++)
                add(g, &(struct transition){ .op = OP_copy_range, .path = from, .path2 = to,
                                        .offset = l->val[ARG_COPY_OFFSET][i],
                                        .offset2 = l->val[ARG_COPY_OFFSET][j],
                                        .size = l->val[ARG_COPY_LEN][k] });
}

static void gen_copy_range(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    for (int p = 0; p < nf; p++)
        for (int q = 0; q < nf; q++)
            copy_ranges(g, files[p], files[q]);
}

/* Device nodes get one number: every one a draw makes (majors 60-63, no driver) is alike to
 * a file system. */
static void gen_mknod(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    const struct choice *c = &g->cfg->choice[CH_MKNOD_TYPE];
    if (bits_missing(g, OP_mknod, BM_MODE))
        return;
    for (int p = 0; p < nf && !counting_done(g); p++)
        for (int v = 0; v < c->n; v++)
            for (size_t m = 0; c->weight[v] > 0 && m < g->l.nbits[BM_MODE]; m++) {
                unsigned type = op_variant_value(c->variant[v]);
                add(g, &(struct transition){ .op = OP_mknod, .path = files[p], .flags = (int)type,
                                        .mode = g->l.bits[BM_MODE][m],
                                        .rdev = type == S_IFCHR || type == S_IFBLK ?
                                                makedev(60, 0) : 0 });
            }
}

static void gen_open_unlink(struct gen *g)
{
    int nf;
    const char *const *files = files_of(g, &nf);
    const struct lists *l = &g->l;
    for (int p = 0; p < nf; p++) {
        for (int s = 0; s < l->nval[ARG_TRUNC_SIZE]; s++)
            add(g, &(struct transition){ .op = OP_open_unlink, .path = files[p], .flags = OU_TRUNCATE,
                                    .size = l->val[ARG_TRUNC_SIZE][s] });
        for (int o = 0; o < l->nval[ARG_WRITE_OFFSET]; o++)
            for (int s = 0; s < l->nval[ARG_WRITE_SIZE]; s++)
                add(g, &(struct transition){ .op = OP_open_unlink, .path = files[p], .flags = OU_WRITE,
                                        .offset = l->val[ARG_WRITE_OFFSET][o],
                                        .size = l->val[ARG_WRITE_SIZE][s] });
    }
}

static void gen_utimes(struct gen *g)
{
    for (int p = 0; p < g->l.nany; p++)
        for (unsigned k = 0; k < OP_UTIMES_CHOICES; k++)
            add(g, &(struct transition){ .op = OP_utimes, .path = g->l.any[p], .mtime_choice = k });
}

typedef void gen_fn(struct gen *g);
static gen_fn *const gens[OP_COUNT] = {
#define GEN_ROW(n) [OP_##n] = gen_##n,
    METIS_OPS(GEN_ROW)
#undef GEN_ROW
};

int transitions_build(const struct input *in, struct transitions *tt)
{
    struct gen g = { .in = in, .cfg = in->cfg, .tt = tt };
    memset(tt, 0, sizeof *tt);
    make_lists(&g);
    for (int op = 0; op < OP_COUNT && !g.failed; op++)
        if (in->cfg->op_weight[op] > 0)
            gens[op](&g);
    free_lists(&g.l);
    if (g.failed || seed_data(tt, run_symmetry_names(&in->cfg->run)) < 0) {
        transitions_free(tt);
        return -1;
    }
    return 0;
}

void transitions_free(struct transitions *tt)
{
    free(tt->t);
    tt->t = NULL;
    tt->n = tt->cap = 0;
}

/* METIS_TEST_GROUPED=1 groups any table: a small one's count then shows the grouped model
 * exact (tests/integration/search/bounded_exact.sh). */
int transitions_grouped(const struct transitions *tt)
{
    const char *test = getenv("METIS_TEST_GROUPED");
    return tt->n > TRANSITIONS_FLAT_MAX || (test && *test == '1');
}

size_t transitions_groups(const struct transitions *tt)
{
    return (tt->n + TRANSITIONS_GROUP - 1) / TRANSITIONS_GROUP;
}

void transition_expand(const struct transitions *tt, size_t i, struct op_args *a)
{
    expand(&tt->t[i], a);
}

void transition_args(const struct transitions *tt, size_t i, struct input *in, struct op_args *a)
{
    expand(&tt->t[i], a);
    in->last_op = a->op;
    in->last_existing = 0;
    in->cov.paths.draws[a->op]++;
    if (a->op != OP_write_file || !(a->flags & O_APPEND))
        return;
    a->flags &= ~O_APPEND;
    op_place_append(in, a);
}

/* ---------- what the enumeration covers, for people ---------- */

/* The kinds of numeric argument each operation takes. */
static int kind_used(const struct metis_config *cfg, enum arg_kind k)
{
    const int *w = cfg->op_weight;
    switch (k) {
    case ARG_WRITE_SIZE:
    case ARG_WRITE_OFFSET: return w[OP_write_file] > 0 || w[OP_open_unlink] > 0;
    case ARG_TRUNC_SIZE: return w[OP_truncate] > 0 || w[OP_open_unlink] > 0;
    case ARG_FALLOC_OFFSET:
    case ARG_FALLOC_LEN: return w[OP_fallocate_file] > 0;
    case ARG_XATTR_SIZE: return w[OP_setxattr] > 0;
    case ARG_COPY_OFFSET:
    case ARG_COPY_LEN: return w[OP_copy_range] > 0;
    default: return 0;
    }
}

static size_t put_kind(const struct metis_config *cfg, enum arg_kind k, char *buf, size_t len)
{
    uint64_t v[NVALUES];
    int n = kind_values(cfg, k, v);
    size_t pos = (size_t)snprintf(buf, len, " %s=", arg_kind_name(k));
    for (int i = 0; i < n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%" PRIu64, i ? "," : "", v[i]);
    return pos;
}

void transitions_bounds(const struct input *in, char *buf, size_t len)
{
    const struct name_pool *p = &in->pool;
    const int *w = in->cfg->op_weight;
    int xattrs = w[OP_setxattr] > 0 || w[OP_removexattr] > 0 ? p->nxattrs : 0;
    size_t pos = (size_t)snprintf(buf, len, "pool %d dir%s %d file%s", p->ndirs,
                                  p->ndirs == 1 ? "" : "s", p->nfiles, p->nfiles == 1 ? "" : "s");
    if (xattrs && pos < len)    /* the pool always has a name, used or not */
        pos += (size_t)snprintf(buf + pos, len - pos, " %d xattr%s", xattrs,
                                xattrs == 1 ? "" : "s");
    if (pos < len)
        pos += (size_t)snprintf(buf + pos, len - pos, ", partitions");
    int any = 0;
    for (int k = 0; k < ARG_NKINDS && pos < len; k++)
        if (kind_used(in->cfg, (enum arg_kind)k)) {
            pos += put_kind(in->cfg, (enum arg_kind)k, buf + pos, len - pos);
            any = 1;
        }
    if (!any && pos < len)
        snprintf(buf + pos, len - pos, " none");
}

void transitions_describe(const struct transitions *tt, FILE *f)
{
    for (int op = 0; op < OP_COUNT; op++)
        if (tt->per_op[op])
            fprintf(f, "  %-16s %zu\n", op_name(op), tt->per_op[op]);
}
