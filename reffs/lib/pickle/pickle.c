/* Writing pickles: snapshots serialised with shared blocks and inodes once, zstd, SHA-256. */
#include <openssl/evp.h>
#include <unistd.h>
#include <zstd.h>
#include "lib/core/internal.h"
#include "pickle.h"
#include "pickle_io.h"

void pickle_sum(const void *a, size_t na, const void *b, size_t nb, unsigned char out[PICKLE_SUM_LEN])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int len = 0;
    if (!ctx)
        abort();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, a, na);
    if (nb)
        EVP_DigestUpdate(ctx, b, nb);
    EVP_DigestFinal_ex(ctx, out, &len);
    EVP_MD_CTX_free(ctx);
}

/* Object (block or inode) -> id in the file, so shared objects are written once. */
struct objid {
    const void *ptr;
    uint64_t id;
    UT_hash_handle hh;
};

struct writer {
    struct pbuf blocks, inodes;
    uint64_t nblocks, ninodes;
    struct objid *ids;
};

static int obj_id(struct writer *w, const void *ptr, uint64_t next, uint64_t *id)
{
    struct objid *o = NULL;
    HASH_FIND_PTR(w->ids, &ptr, o);
    if (o) {
        *id = o->id;
        return 0;
    }
    o = xcalloc(1, sizeof *o);
    o->ptr = ptr;
    o->id = *id = next;
    HASH_ADD_PTR(w->ids, ptr, o);
    return 1;
}

static uint64_t block_id(struct writer *w, const struct rblock *b)
{
    uint64_t id;
    if (obj_id(w, b, w->nblocks, &id)) {
        pb_bytes(&w->blocks, b->data, REFFS_BLOCK_SIZE);
        w->nblocks++;
    }
    return id;
}

static void put_time(struct pbuf *b, const struct timespec *ts)
{
    pb_u64(b, (uint64_t)ts->tv_sec);
    pb_u32(b, (uint32_t)ts->tv_nsec);
}

static void put_payload(struct writer *w, const struct rinode *ip)
{
    struct pbuf *b = &w->inodes;
    if (S_ISREG(ip->mode)) {
        const struct rextmap *m = ip->data;
        pb_u64(b, m ? m->n : 0);
        for (size_t i = 0; m && i < m->n; i++) {
            pb_u64(b, m->v[i].idx);
            pb_u64(b, block_id(w, m->v[i].blk));
        }
    } else if (S_ISDIR(ip->mode)) {
        pb_u64(b, ip->parent);
        pb_u64(b, ip->dir->next_cookie);
        pb_u64(b, ip->dir->n);
        for (const struct rdent *e = ip->dir->byname; e; e = e->hh.next) {
            pb_u64(b, e->cookie);
            pb_u64(b, e->ino);
            pb_u16(b, (uint16_t)strlen(e->name));
            pb_bytes(b, e->name, strlen(e->name));
        }
    } else if (S_ISLNK(ip->mode)) {
        pb_u16(b, (uint16_t)strlen(ip->target));
        pb_bytes(b, ip->target, strlen(ip->target));
    }
}

static uint64_t inode_id(struct writer *w, const struct rinode *ip)
{
    uint64_t id;
    if (!obj_id(w, ip, w->ninodes, &id))
        return id;
    w->ninodes++;
    struct pbuf *b = &w->inodes;
    pb_u64(b, ip->ino);
    pb_u64(b, ip->gen);
    pb_u32(b, ip->mode);
    pb_u32(b, (uint32_t)ip->nlink);
    pb_u32(b, ip->uid);
    pb_u32(b, ip->gid);
    pb_u64(b, ip->rdev);
    pb_u64(b, (uint64_t)ip->size);
    put_time(b, &ip->atime);
    put_time(b, &ip->mtime);
    put_time(b, &ip->ctime);
    const struct rxattrs *x = ip->xattrs;
    pb_u32(b, x ? (uint32_t)x->n : 0);
    for (size_t i = 0; x && i < x->n; i++) {
        pb_u16(b, (uint16_t)strlen(x->v[i].name));
        pb_bytes(b, x->v[i].name, strlen(x->v[i].name));
        pb_u32(b, (uint32_t)x->v[i].size);
        pb_bytes(b, x->v[i].value, x->v[i].size);
    }
    put_payload(w, ip);
    return id;
}

/* Marks the inodes reachable from the root. Orphans (open-but-unlinked when saved) are
 * left out: a restore would drop them anyway. */
static unsigned char *reachable(const struct rstate *st)
{
    unsigned char *seen = xcalloc(st->tabsz, 1);
    reffs_ino *stack = xmalloc(st->tabsz * sizeof *stack);
    size_t top = 0;
    if (REFFS_ROOT_INO < st->tabsz && st->tab[REFFS_ROOT_INO]) {
        seen[REFFS_ROOT_INO] = 1;
        stack[top++] = REFFS_ROOT_INO;
    }
    while (top) {
        const struct rinode *dp = st->tab[stack[--top]];
        for (const struct rdent *e = dp->dir->byname; e; e = e->hh.next) {
            if (e->ino >= st->tabsz || !st->tab[e->ino] || seen[e->ino])
                continue;
            seen[e->ino] = 1;
            if (S_ISDIR(st->tab[e->ino]->mode))
                stack[top++] = e->ino;
        }
    }
    free(stack);
    return seen;
}

static void put_snapshot(struct writer *w, struct pbuf *snaps, const struct rsnap *s)
{
    unsigned char *seen = reachable(&s->st);
    uint64_t n = 0;
    for (size_t i = 0; i < s->st.tabsz; i++)
        n += seen[i];
    pb_u64(snaps, s->key);
    pb_u64(snaps, n);
    for (size_t i = 0; i < s->st.tabsz; i++)
        if (seen[i])
            pb_u64(snaps, inode_id(w, s->st.tab[i]));
    free(seen);
}

/* body = u64 nblocks, blocks, u64 ninodes, inode records, u64 nsnaps, snapshot records. */
static void build_body(struct rsnap **list, size_t count, struct pbuf *body)
{
    struct writer w = { 0 };
    struct pbuf snaps = { 0 };
    for (size_t i = 0; i < count; i++)
        put_snapshot(&w, &snaps, list[i]);
    pb_u64(body, w.nblocks);
    pb_bytes(body, w.blocks.p, w.blocks.n);
    pb_u64(body, w.ninodes);
    pb_bytes(body, w.inodes.p, w.inodes.n);
    pb_u64(body, count);
    pb_bytes(body, snaps.p, snaps.n);
    struct objid *o, *tmp;
    HASH_ITER(hh, w.ids, o, tmp) {
        HASH_DEL(w.ids, o);
        free(o);
    }
    free(w.blocks.p);
    free(w.inodes.p);
    free(snaps.p);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -EIO;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int compress_and_write(int fd, const struct pbuf *body, uint64_t count)
{
    size_t bound = ZSTD_compressBound(body->n);
    unsigned char *out = malloc(PICKLE_HEADER_LEN + bound);
    if (!out)
        return -ENOMEM;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, PICKLE_ZSTD_LEVEL);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    size_t clen = ZSTD_compress2(cc, out + PICKLE_HEADER_LEN, bound, body->p, body->n);
    ZSTD_freeCCtx(cc);
    if (ZSTD_isError(clen)) {
        free(out);
        return -EIO;
    }
    struct pbuf h = { 0 };
    pb_bytes(&h, PICKLE_MAGIC, 8);
    pb_u32(&h, PICKLE_VERSION);
    pb_u32(&h, 0);
    pb_u64(&h, count);
    pb_u64(&h, body->n);
    pb_u64(&h, clen);
    memcpy(out, h.p, PICKLE_FIXED_LEN);
    free(h.p);
    pickle_sum(out, PICKLE_FIXED_LEN, out + PICKLE_HEADER_LEN, clen, out + PICKLE_FIXED_LEN);
    pickle_sum(body->p, body->n, NULL, 0, out + PICKLE_FIXED_LEN + PICKLE_SUM_LEN);
    int r = write_all(fd, out, PICKLE_HEADER_LEN + clen);
    free(out);
    return r;
}

static int do_pickle(struct reffs *fs, int all, uint64_t key, int fd)
{
    size_t count = all ? HASH_COUNT(fs->snaps) : 1;
    struct rsnap **list = xcalloc(count, sizeof *list);
    if (all) {
        size_t i = 0;
        for (struct rsnap *s = fs->snaps; s; s = s->hh.next)
            list[i++] = s;
    } else {
        HASH_FIND(hh, fs->snaps, &key, sizeof key, list[0]);
        if (!list[0]) {
            free(list);
            return -ENOENT;
        }
    }
    struct pbuf body = { 0 };
    build_body(list, count, &body);
    free(list);
    int r = compress_and_write(fd, &body, count);
    free(body.p);
    return r;
}

int reffs_pickle(struct reffs *fs, int all, uint64_t key, int fd)
{
    fs_lock(fs);
    int r = do_pickle(fs, all, key, fd);
    fs_unlock(fs);
    return r;
}
