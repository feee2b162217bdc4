/* Tree dump: the live tree serialized for a reader that digests it without walking the mount. */
#include "internal.h"

struct out {
    unsigned char *p;
    size_t len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t ncap = o->cap ? o->cap : 4096;
        while (ncap < o->len + n)
            ncap *= 2;
        o->p = xrealloc(o->p, ncap);
        o->cap = ncap;
    }
    memcpy(o->p + o->len, p, n);
    o->len += n;
}

static void put32(struct out *o, uint32_t v) { put(o, &v, sizeof v); }
static void put64(struct out *o, uint64_t v) { put(o, &v, sizeof v); }

static void put_bytes(struct out *o, const void *p, size_t n)
{
    put32(o, (uint32_t)n);
    put(o, p, n);
}

static void put_xattrs(struct out *o, const struct rxattrs *x)
{
    size_t n = x ? x->n : 0;
    put32(o, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        put_bytes(o, x->v[i].name, strlen(x->v[i].name));
        put_bytes(o, x->v[i].value, x->v[i].size);
    }
}

/* Blocks at or past EOF (fallocate KEEP_SIZE) hold nothing a reader can see. */
static void put_blocks(struct out *o, const struct rinode *ip)
{
    const struct rextmap *m = S_ISREG(ip->mode) ? ip->data : NULL;
    uint64_t size = (uint64_t)ip->size, n = 0;
    for (size_t i = 0; m && i < m->n && m->v[i].idx * REFFS_BLOCK_SIZE < size; i++)
        n++;
    put32(o, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        uint64_t off = m->v[i].idx * REFFS_BLOCK_SIZE;
        uint64_t len = size - off < REFFS_BLOCK_SIZE ? size - off : REFFS_BLOCK_SIZE;
        put64(o, off);
        put_bytes(o, m->v[i].blk->data, (size_t)len);
    }
}

static void put_inode(struct out *o, const char *path, size_t plen, const struct rinode *ip)
{
    put_bytes(o, path, plen);
    put32(o, (uint32_t)ip->mode);
    put32(o, (uint32_t)ip->nlink);
    put32(o, (uint32_t)ip->uid);
    put32(o, (uint32_t)ip->gid);
    put64(o, (uint64_t)ip->size);
    put_bytes(o, ip->target ? ip->target : "", ip->target ? strlen(ip->target) : 0);
    put_xattrs(o, ip->xattrs);
    put_blocks(o, ip);
}

/* Pre-order walk; path holds the entry's path ("/" for the root), plen its length. */
static void dump_tree(struct reffs *fs, struct out *o, char *path, size_t plen,
                      const struct rinode *ip, uint64_t *count)
{
    put_inode(o, path, plen, ip);
    (*count)++;
    if (!S_ISDIR(ip->mode) || !ip->dir)
        return;
    size_t base = plen == 1 ? 0 : plen;     /* the root's children are "/name" */
    for (const struct rdent *d = ip->dir->byname; d; d = d->hh.next) {
        const struct rinode *child = ino_get(fs, d->ino);
        size_t nlen = strlen(d->name);
        if (!child || base + 1 + nlen >= REFFS_DUMP_PATH_MAX)
            continue;
        path[base] = '/';
        memcpy(path + base + 1, d->name, nlen + 1);
        dump_tree(fs, o, path, base + 1 + nlen, child, count);
    }
}

int reffs_dump(struct reffs *fs, void **buf, size_t *len)
{
    struct out o = { 0 };
    char *path = xmalloc(REFFS_DUMP_PATH_MAX);
    uint64_t count = 0;
    put(&o, REFFS_DUMP_MAGIC, 8);
    put64(&o, 0);
    fs_lock(fs);
    const struct rinode *root = ino_get(fs, REFFS_ROOT_INO);
    strcpy(path, "/");
    if (root)
        dump_tree(fs, &o, path, 1, root, &count);
    fs_unlock(fs);
    free(path);
    memcpy(o.p + 8, &count, sizeof count);
    *buf = o.p;
    *len = o.len;
    return 0;
}
