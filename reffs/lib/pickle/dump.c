/* Tree dump: the live tree serialized for a reader that digests it without walking the mount. */
#include "lib/core/internal.h"
#include "pickle_io.h"

/* Byte order and buffer as in pickles (pickle_io.h). */
static void put_bytes(struct pbuf *o, const void *p, size_t n)
{
    pb_u32(o, (uint32_t)n);
    pb_bytes(o, p, n);
}

static void put_xattrs(struct pbuf *o, const struct rxattrs *x)
{
    size_t n = x ? x->n : 0;
    pb_u32(o, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        put_bytes(o, x->v[i].name, strlen(x->v[i].name) + 1);
        put_bytes(o, x->v[i].value, x->v[i].size);
    }
}

/* Blocks at or past EOF (fallocate KEEP_SIZE) hold nothing a reader can see. */
static void put_blocks(struct pbuf *o, const struct rinode *ip)
{
    const struct rextmap *m = S_ISREG(ip->mode) ? ip->data : NULL;
    uint64_t size = (uint64_t)ip->size, n = 0;
    for (size_t i = 0; m && i < m->n && m->v[i].idx * REFFS_BLOCK_SIZE < size; i++)
        n++;
    pb_u32(o, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        uint64_t off = m->v[i].idx * REFFS_BLOCK_SIZE;
        uint64_t len = size - off < REFFS_BLOCK_SIZE ? size - off : REFFS_BLOCK_SIZE;
        pb_u64(o, off);
        put_bytes(o, m->v[i].blk->data, (size_t)len);
    }
}

static void put_inode(struct pbuf *o, const char *path, size_t plen, const struct rinode *ip)
{
    put_bytes(o, path, plen + 1);
    pb_u32(o, (uint32_t)ip->mode);
    pb_u32(o, (uint32_t)reported_nlink(ip));
    pb_u32(o, (uint32_t)ip->uid);
    pb_u32(o, (uint32_t)ip->gid);
    pb_u64(o, (uint64_t)ip->size);
    put_bytes(o, ip->target ? ip->target : "", ip->target ? strlen(ip->target) : 0);
    put_xattrs(o, ip->xattrs);
    put_blocks(o, ip);
}

/* Pre-order walk; path holds the entry's path ("/" for the root), plen its length.
 * -ENAMETOOLONG past REFFS_DUMP_PATH_MAX, as a walk of the mount would fail there too. */
static int dump_tree(struct reffs *fs, struct pbuf *o, char *path, size_t plen,
                      const struct rinode *ip, uint64_t *count)
{
    put_inode(o, path, plen, ip);
    (*count)++;
    if (!S_ISDIR(ip->mode) || !ip->dir)
        return 0;
    size_t base = plen == 1 ? 0 : plen;     /* the root's children are "/name" */
    for (const struct rdent *d = ip->dir->byname; d; d = d->hh.next) {
        const struct rinode *child = ino_get(fs, d->ino);
        size_t nlen = strlen(d->name);
        if (!child)
            continue;
        if (base + 1 + nlen >= REFFS_DUMP_PATH_MAX)
            return -ENAMETOOLONG;
        path[base] = '/';
        memcpy(path + base + 1, d->name, nlen + 1);
        int r = dump_tree(fs, o, path, base + 1 + nlen, child, count);
        if (r)
            return r;
    }
    return 0;
}

int reffs_dump(struct reffs *fs, void **buf, size_t *len)
{
    struct pbuf o = { 0 };
    char *path = xmalloc(REFFS_DUMP_PATH_MAX);
    uint64_t count = 0;
    int r = 0;
    pb_bytes(&o, REFFS_DUMP_MAGIC, 8);
    pb_u64(&o, 0);
    fs_lock(fs);
    const struct rinode *root = ino_get(fs, REFFS_ROOT_INO);
    strcpy(path, "/");
    if (root)
        r = dump_tree(fs, &o, path, 1, root, &count);
    fs_unlock(fs);
    free(path);
    if (r) {
        free(o.p);
        return r;
    }
    for (int i = 0; i < 8; i++)     /* the count, known only now, in its little-endian slot */
        o.p[8 + i] = (unsigned char)(count >> (8 * i));
    *buf = o.p;
    *len = o.n;
    return 0;
}
