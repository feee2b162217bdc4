/* Loading pickles: every byte checked into a temporary pool before the live pool is touched. */
#include <unistd.h>
#include <zstd.h>
#include "lib/core/internal.h"
#include "pickle.h"
#include "pickle_io.h"

/* The smallest encodings, to bound counts by the bytes left before allocating. */
#define MIN_INODE_REC  88
#define MIN_XATTR_REC  6
#define MIN_EXT_REC    16
#define MIN_DENT_REC   18

struct tmp_snap {
    uint64_t key;
    struct rstate st;
};

struct loaded {
    struct rblock **blocks;
    uint64_t nblocks;
    struct rinode **inodes;
    uint64_t ninodes, parsed;
    struct tmp_snap *snaps;
    uint64_t nsnaps, built;
    uint64_t max_gen;
    uint64_t max_ino;           /* bound on inode numbers, from the loading fs's limit */
};

static void loaded_free(struct loaded *L)
{
    for (uint64_t i = 0; i < L->built; i++)
        state_drop(&L->snaps[i].st);
    for (uint64_t i = 0; i < L->parsed; i++)
        ino_put(L->inodes[i]);
    for (uint64_t i = 0; i < L->nblocks; i++)
        blk_put(L->blocks[i]);
    free(L->snaps);
    free(L->inodes);
    free(L->blocks);
}

static int read_all(int fd, unsigned char **out, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap > PICKLE_RAW_MAX) {
                free(p);
                return -EBADMSG;
            }
            p = xrealloc(p, cap *= 2);
        }
        ssize_t r = read(fd, p + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(p);
            return -e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *out = p;
    *len = n;
    return 0;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)le64((const unsigned char[8]){ p[0], p[1], p[2], p[3], 0, 0, 0, 0 });
}

/* A foreign file is -EINVAL; one of ours that is cut short or damaged is -EBADMSG. */
static int check_header(const unsigned char *f, size_t len, uint64_t *count, uint64_t *raw_len)
{
    size_t m = len < 8 ? len : 8;
    if (memcmp(f, PICKLE_MAGIC, m))
        return -EINVAL;
    if (len < PICKLE_HEADER_LEN)
        return -EBADMSG;
    if (le32(f + 8) != PICKLE_VERSION || le32(f + 12) != 0)
        return -EINVAL;
    *count = le64(f + 16);
    *raw_len = le64(f + 24);
    if (le64(f + 32) != len - PICKLE_HEADER_LEN || *raw_len > PICKLE_RAW_MAX)
        return -EBADMSG;
    unsigned char sum[PICKLE_SUM_LEN];
    pickle_sum(f, PICKLE_FIXED_LEN, f + PICKLE_HEADER_LEN, len - PICKLE_HEADER_LEN, sum);
    return memcmp(sum, f + PICKLE_FIXED_LEN, PICKLE_SUM_LEN) ? -EBADMSG : 0;
}

static int decompress(const unsigned char *f, size_t len, uint64_t raw_len, unsigned char **out)
{
    const unsigned char *src = f + PICKLE_HEADER_LEN;
    size_t clen = len - PICKLE_HEADER_LEN;
    if (ZSTD_getFrameContentSize(src, clen) != raw_len)
        return -EBADMSG;
    unsigned char *raw = malloc(raw_len ? raw_len : 1);
    if (!raw)
        return -ENOMEM;
    size_t r = ZSTD_decompress(raw, raw_len, src, clen);
    unsigned char sum[PICKLE_SUM_LEN];
    if (!ZSTD_isError(r) && r == raw_len)
        pickle_sum(raw, raw_len, NULL, 0, sum);
    if (ZSTD_isError(r) || r != raw_len || memcmp(sum, f + PICKLE_FIXED_LEN + PICKLE_SUM_LEN, PICKLE_SUM_LEN)) {
        free(raw);
        return -EBADMSG;
    }
    *out = raw;
    return 0;
}

/* A length-prefixed string of 1..max bytes without NULs, copied with a terminator. */
static char *get_name(struct pcur *c, size_t len, size_t max)
{
    const unsigned char *p = pc_bytes(c, len);
    if (!p || len == 0 || len > max || memchr(p, 0, len))
        return NULL;
    char *s = xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = 0;
    return s;
}

static int get_time(struct pcur *c, struct timespec *ts)
{
    ts->tv_sec = (time_t)pc_u64(c);
    ts->tv_nsec = pc_u32(c);
    return ts->tv_nsec < 1000000000L ? 0 : -EBADMSG;
}

static int parse_xattrs(struct pcur *c, struct rinode *ip)
{
    uint32_t n = pc_u32(c);
    if (n == 0)
        return c->bad ? -EBADMSG : 0;
    if (n > pc_left(c) / MIN_XATTR_REC)
        return -EBADMSG;
    struct rxattrs *x = ip->xattrs = xcalloc(1, sizeof *x);
    x->refs = 1;
    x->v = xcalloc(n, sizeof *x->v);
    x->cap = n;
    for (uint32_t i = 0; i < n; i++) {
        char *name = get_name(c, pc_u16(c), REFFS_XATTR_NAME_MAX);
        if (!name)
            return -EBADMSG;
        x->v[x->n].name = name;
        x->n++;
        uint32_t vlen = pc_u32(c);
        const unsigned char *v = vlen <= REFFS_XATTR_SIZE_MAX ? pc_bytes(c, vlen) : NULL;
        if (!v || xattr_name_check(name) < 0)
            return -EBADMSG;
        for (size_t j = 0; j + 1 < x->n; j++)
            if (!strcmp(x->v[j].name, name))
                return -EBADMSG;
        x->v[x->n - 1].value = xmalloc(vlen);
        memcpy(x->v[x->n - 1].value, v, vlen);
        x->v[x->n - 1].size = vlen;
    }
    return 0;
}

static int parse_extents(struct pcur *c, struct loaded *L, struct rinode *ip)
{
    uint64_t n = pc_u64(c);
    if (c->bad || n > pc_left(c) / MIN_EXT_REC)
        return -EBADMSG;
    if (n == 0)
        return 0;
    struct rextmap *m = ip->data = xcalloc(1, sizeof *m);
    m->refs = 1;
    m->v = xcalloc(n, sizeof *m->v);
    m->cap = n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t idx = pc_u64(c), bid = pc_u64(c);
        if (c->bad || bid >= L->nblocks || idx >= REFFS_MAX_FILE_SIZE / REFFS_BLOCK_SIZE
            || (i > 0 && idx <= m->v[i - 1].idx))
            return -EBADMSG;
        m->v[i].idx = idx;
        m->v[i].blk = L->blocks[bid];
        m->v[i].blk->refs++;
        m->n++;
    }
    return 0;
}

static int parse_dir(struct pcur *c, struct rinode *ip)
{
    ip->dir = rdir_new();
    ip->parent = pc_u64(c);
    uint64_t next_cookie = pc_u64(c), n = pc_u64(c), last = 2;
    if (c->bad || n > pc_left(c) / MIN_DENT_REC)
        return -EBADMSG;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t cookie = pc_u64(c), ino = pc_u64(c);
        char *name = get_name(c, pc_u16(c), REFFS_NAME_MAX);
        int ok = name && cookie > last && cookie < next_cookie && !name_check(name)
                 && !is_dot_or_dotdot(name) && !dir_find(ip, name);
        if (ok)
            dir_add_cookie(ip->dir, name, ino, cookie);
        free(name);
        if (!ok)
            return -EBADMSG;
        last = cookie;
    }
    ip->dir->next_cookie = next_cookie > 3 ? next_cookie : 3;
    return (uint64_t)ip->size == 2 * REFFS_DIRENT_SIZE + n * REFFS_DIRENT_SIZE ? 0 : -EBADMSG;
}

static int parse_payload(struct pcur *c, struct loaded *L, struct rinode *ip)
{
    switch (ip->mode & S_IFMT) {
    case S_IFREG:
        return parse_extents(c, L, ip);
    case S_IFDIR:
        return parse_dir(c, ip);
    case S_IFLNK: {
        uint16_t len = pc_u16(c);
        ip->target = get_name(c, len, REFFS_SYMLINK_MAX);
        return ip->target && (off_t)len == ip->size ? 0 : -EBADMSG;
    }
    case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
        return ip->size == 0 ? 0 : -EBADMSG;
    default:
        return -EBADMSG;
    }
}

static int parse_inode(struct pcur *c, struct loaded *L, struct rinode *ip)
{
    ip->ino = pc_u64(c);
    ip->gen = pc_u64(c);
    ip->mode = pc_u32(c);
    ip->nlink = pc_u32(c);
    ip->uid = pc_u32(c);
    ip->gid = pc_u32(c);
    ip->rdev = pc_u64(c);
    uint64_t size = pc_u64(c);
    ip->size = (off_t)size;
    if (get_time(c, &ip->atime) || get_time(c, &ip->mtime) || get_time(c, &ip->ctime))
        return -EBADMSG;
    if (c->bad || ip->ino < REFFS_ROOT_INO || ip->ino > L->max_ino || size > REFFS_MAX_FILE_SIZE
        || (ip->mode & ~(S_IFMT | 07777)) || ip->nlink > REFFS_LINK_MAX)
        return -EBADMSG;
    if (ip->gen > L->max_gen)
        L->max_gen = ip->gen;
    int r = parse_xattrs(c, ip);
    return r ? r : parse_payload(c, L, ip);
}

static int parse_objects(struct pcur *c, struct loaded *L)
{
    L->nblocks = pc_u64(c);
    if (c->bad || L->nblocks > pc_left(c) / REFFS_BLOCK_SIZE) {
        L->nblocks = 0;
        return -EBADMSG;
    }
    L->blocks = xcalloc(L->nblocks, sizeof *L->blocks);
    for (uint64_t i = 0; i < L->nblocks; i++) {
        L->blocks[i] = blk_new();
        memcpy(L->blocks[i]->data, pc_bytes(c, REFFS_BLOCK_SIZE), REFFS_BLOCK_SIZE);
    }
    L->ninodes = pc_u64(c);
    if (c->bad || L->ninodes > pc_left(c) / MIN_INODE_REC)
        return -EBADMSG;
    L->inodes = xcalloc(L->ninodes, sizeof *L->inodes);
    for (; L->parsed < L->ninodes; L->parsed++) {
        struct rinode *ip = L->inodes[L->parsed] = xcalloc(1, sizeof *ip);
        ip->refs = 1;
        if (parse_inode(c, L, ip)) {
            L->parsed++;   /* so loaded_free releases the half-built inode too */
            return -EBADMSG;
        }
    }
    return 0;
}

/* Link counts and parent pointers must describe a tree rooted at REFFS_ROOT_INO. */
static int check_links(const struct rstate *st)
{
    uint32_t *refs = xcalloc(st->tabsz, sizeof *refs);
    int r = 0;
    for (size_t i = 0; i < st->tabsz && !r; i++) {
        const struct rinode *dp = st->tab[i];
        if (!dp || !S_ISDIR(dp->mode))
            continue;
        nlink_t subdirs = 0;
        for (const struct rdent *e = dp->dir->byname; e && !r; e = e->hh.next) {
            const struct rinode *t = e->ino < st->tabsz ? st->tab[e->ino] : NULL;
            if (!t || e->ino == REFFS_ROOT_INO || (S_ISDIR(t->mode) && t->parent != i))
                r = -EBADMSG;
            else if (++refs[e->ino] > 1 && S_ISDIR(t->mode))
                r = -EBADMSG;
            subdirs += t && S_ISDIR(t->mode);
        }
        if (!r && dp->nlink != 2 + subdirs)
            r = -EBADMSG;
    }
    for (size_t i = REFFS_ROOT_INO + 1; i < st->tabsz && !r; i++) {
        const struct rinode *ip = st->tab[i];
        if (ip && (!refs[i] || (!S_ISDIR(ip->mode) && ip->nlink != refs[i])))
            r = -EBADMSG;
    }
    free(refs);
    return r;
}

/* With one parent per directory, reaching every inode from the root rules out cycles. */
static int check_reachable(const struct rstate *st)
{
    unsigned char *seen = xcalloc(st->tabsz, 1);
    reffs_ino *stack = xmalloc(st->tabsz * sizeof *stack);
    size_t top = 0;
    uint64_t reached = 1;
    seen[REFFS_ROOT_INO] = 1;
    stack[top++] = REFFS_ROOT_INO;
    while (top) {
        const struct rinode *dp = st->tab[stack[--top]];
        for (const struct rdent *e = dp->dir->byname; e; e = e->hh.next) {
            if (seen[e->ino])
                continue;
            seen[e->ino] = 1;
            reached++;
            if (S_ISDIR(st->tab[e->ino]->mode))
                stack[top++] = e->ino;
        }
    }
    free(stack);
    free(seen);
    return reached == st->ninodes ? 0 : -EBADMSG;
}

static int build_state(struct pcur *c, struct loaded *L, struct rstate *st)
{
    uint64_t n = pc_u64(c);
    if (c->bad || n == 0 || n > pc_left(c) / 8)
        return -EBADMSG;
    uint64_t *ids = xmalloc(n * sizeof *ids);
    reffs_ino top = REFFS_ROOT_INO;
    int r = 0;
    for (uint64_t i = 0; i < n && !r; i++) {
        ids[i] = pc_u64(c);
        if (ids[i] >= L->ninodes)
            r = -EBADMSG;
        else if (L->inodes[ids[i]]->ino > top)
            top = L->inodes[ids[i]]->ino;
    }
    if (!r) {
        st->tabsz = top + 1;
        st->tab = xcalloc(st->tabsz, sizeof *st->tab);
        for (uint64_t i = 0; i < n && !r; i++) {
            struct rinode *ip = L->inodes[ids[i]];
            if (st->tab[ip->ino])
                r = -EBADMSG;
            else {
                st->tab[ip->ino] = ip;
                ip->refs++;
                st->used += ino_charge(ip);
                st->ninodes++;
            }
        }
    }
    free(ids);
    const struct rinode *root = r ? NULL : st->tab[REFFS_ROOT_INO];
    if (!r && (!root || !S_ISDIR(root->mode) || root->parent != REFFS_ROOT_INO))
        r = -EBADMSG;
    if (!r)
        r = check_links(st);
    return r ? r : check_reachable(st);
}

static int parse_snapshots(struct pcur *c, struct loaded *L, uint64_t count)
{
    L->nsnaps = pc_u64(c);
    if (c->bad || L->nsnaps != count || count > pc_left(c) / 16)
        return -EBADMSG;
    L->snaps = xcalloc(count, sizeof *L->snaps);
    for (; L->built < count; L->built++) {
        struct tmp_snap *s = &L->snaps[L->built];
        s->key = pc_u64(c);
        for (uint64_t j = 0; j < L->built; j++)
            if (L->snaps[j].key == s->key)
                return -EBADMSG;
        if (build_state(c, L, &s->st)) {
            L->built++;
            return -EBADMSG;
        }
    }
    return c->off == c->n ? 0 : -EBADMSG;
}

static int parse_file(const unsigned char *f, size_t len, struct loaded *L)
{
    uint64_t count, raw_len;
    int r = check_header(f, len, &count, &raw_len);
    unsigned char *raw = NULL;
    if (r || (r = decompress(f, len, raw_len, &raw)))
        return r;
    struct pcur c = { raw, raw_len, 0, 0 };
    r = parse_objects(&c, L);
    if (!r)
        r = parse_snapshots(&c, L, count);
    free(raw);
    return r;
}

/* Moves the parsed snapshots into the pool; nothing can fail any more. */
static void commit(struct reffs *fs, struct loaded *L, int restore, const struct reffs_inval *inval)
{
    if (L->max_gen > fs->gen_counter)
        fs->gen_counter = L->max_gen;
    for (uint64_t i = 0; i < L->built; i++)
        snap_put_in_pool(fs, L->snaps[i].key, &L->snaps[i].st);
    L->built = 0;
    if (restore) {
        struct rsnap *s = NULL;
        HASH_FIND(hh, fs->snaps, &L->snaps[0].key, sizeof(uint64_t), s);
        struct rstate nst;
        state_clone(&s->st, &nst);
        state_install(fs, &nst, inval);
    }
}

static int do_load(struct reffs *fs, int fd, int restore, const struct reffs_inval *inval,
                   uint64_t *first_key)
{
    unsigned char *f = NULL;
    size_t len = 0;
    int r = read_all(fd, &f, &len);
    if (r)
        return r;
    struct loaded L = { 0 };
    uint64_t lim = fs->max_inodes > REFFS_DEFAULT_INODES ? fs->max_inodes : REFFS_DEFAULT_INODES;
    L.max_ino = lim * 16;
    r = len == 0 ? -EBADMSG : parse_file(f, len, &L);
    free(f);
    if (!r && restore && L.built == 0)
        r = -ENOENT;
    if (!r) {
        if (first_key && L.built)
            *first_key = L.snaps[0].key;
        commit(fs, &L, restore, inval);
    }
    loaded_free(&L);
    return r;
}

int reffs_load(struct reffs *fs, int fd, int restore, const struct reffs_inval *inval,
               uint64_t *first_key)
{
    fs_lock(fs);
    int r = do_load(fs, fd, restore, inval, first_key);
    fs_unlock(fs);
    return r;
}
