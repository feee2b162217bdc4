/* File data: sparse 4 KiB blocks shared copy-on-write; read, write, truncate, fsync. */
#include <fcntl.h>
#include "lib/core/internal.h"

/* First position in the map whose block number is >= idx. */
size_t ext_lower(const struct rextmap *m, uint64_t idx)
{
    size_t lo = 0, hi = m ? m->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct rblock *ext_find(const struct rextmap *m, uint64_t idx)
{
    size_t pos = ext_lower(m, idx);
    return m && pos < m->n && m->v[pos].idx == idx ? m->v[pos].blk : NULL;
}

static void ext_insert(struct rextmap *m, size_t pos, uint64_t idx, struct rblock *b)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4;
        m->v = xrealloc(m->v, m->cap * sizeof *m->v);
    }
    memmove(m->v + pos + 1, m->v + pos, (m->n - pos) * sizeof *m->v);
    m->v[pos].idx = idx;
    m->v[pos].blk = b;
    m->n++;
}

/* A private, writable block idx of a writable inode; NULL when no space is left for it. */
struct rblock *block_for_write(struct reffs *fs, struct rinode *ip, uint64_t idx)
{
    struct rextmap *m = extmap_mut(ip);
    size_t pos = ext_lower(m, idx);
    if (pos < m->n && m->v[pos].idx == idx) {
        struct rblock *b = m->v[pos].blk;
        if (b->refs > 1) {
            struct rblock *c = blk_new();
            memcpy(c->data, b->data, REFFS_BLOCK_SIZE);
            b->refs--;
            m->v[pos].blk = b = c;
        }
        return b;
    }
    if (fs->live.used + REFFS_BLOCK_SIZE > fs->capacity)
        return NULL;
    fs->live.used += REFFS_BLOCK_SIZE;
    struct rblock *b = blk_new();
    if (mutated(MUT_HOLE_GARBAGE))
        memset(b->data, 0xa5, REFFS_BLOCK_SIZE);
    ext_insert(m, pos, idx, b);
    return b;
}

static int data_check(const struct rinode *ip, off_t off)
{
    if (!ip)
        return -ENOENT;
    if (S_ISDIR(ip->mode))
        return -EISDIR;
    if (!S_ISREG(ip->mode))
        return -EINVAL;
    if (off < 0)
        return -EINVAL;
    return 0;
}

static ssize_t do_read(struct reffs *fs, reffs_ino ino, void *buf, size_t size, off_t off)
{
    struct rinode *ip = ino_get(fs, ino);
    int r = data_check(ip, off);
    if (r)
        return r;
    if (off >= ip->size)
        return 0;
    if (size > (uint64_t)(ip->size - off))
        size = ip->size - off;
    for (size_t done = 0; done < size;) {
        uint64_t pos = off + done, boff = pos % REFFS_BLOCK_SIZE;
        size_t n = REFFS_BLOCK_SIZE - boff < size - done ? REFFS_BLOCK_SIZE - boff : size - done;
        const struct rblock *b = ext_find(ip->data, pos / REFFS_BLOCK_SIZE);
        if (b)
            memcpy((char *)buf + done, b->data + boff, n);
        else
            memset((char *)buf + done, 0, n);
        done += n;
    }
    return (ssize_t)size;
}

ssize_t reffs_read(struct reffs *fs, reffs_ino ino, void *buf, size_t size, off_t off)
{
    fs_lock(fs);
    ssize_t r = do_read(fs, ino, buf, size, off);
    fs_unlock(fs);
    return r;
}

/* Like ext4, a write that runs out of space mid-way is short: whole blocks already
 * written stay written, and -ENOSPC only comes when not one byte fits. */
static ssize_t do_write(struct reffs *fs, reffs_ino ino, const void *buf, size_t size, off_t off,
                        int flags)
{
    int r = data_check(ino_get(fs, ino), off);
    if (r)
        return r;
    if (size == 0)
        return 0;
    if (off >= REFFS_MAX_FILE_SIZE)
        return -EFBIG;
    if (size > (uint64_t)(REFFS_MAX_FILE_SIZE - off))
        size = REFFS_MAX_FILE_SIZE - off;
    struct rinode *ip = ino_mut(fs, ino);
    if ((flags & O_APPEND) && ip->size > 8192 && mutated(MUT_APPEND_AT_ZERO))
        off = 0;
    size_t done = 0;
    while (done < size) {
        uint64_t pos = off + done, boff = pos % REFFS_BLOCK_SIZE;
        size_t n = REFFS_BLOCK_SIZE - boff < size - done ? REFFS_BLOCK_SIZE - boff : size - done;
        if (mutated(MUT_REWRITE_NEEDS_SPACE) && ext_find(ip->data, pos / REFFS_BLOCK_SIZE) &&
            fs->live.used + REFFS_BLOCK_SIZE > fs->capacity)
            break;
        struct rblock *b = block_for_write(fs, ip, pos / REFFS_BLOCK_SIZE);
        if (!b)
            break;
        size_t skip = mutated(MUT_WRITE_BOUNDARY_BYTE) && done > 0 && boff == 0;
        size_t drop = mutated(MUT_WRITE_END_BOUNDARY) && done + n == size &&
                      boff + n == REFFS_BLOCK_SIZE;
        memcpy(b->data + boff + skip, (const char *)buf + done + skip, n - skip - drop);
        done += n;
    }
    if (done == 0 || (done < size && mutated(MUT_WRITE_ENOSPC_NOT_SHORT)))
        return -ENOSPC;
    if (off + (off_t)done > ip->size)
        ip->size = off + done - (mutated(MUT_WRITE_PAST_EOF_SIZE) && off > ip->size);
    time_now(&ip->mtime);
    ip->ctime = ip->mtime;
    return (ssize_t)done;
}

ssize_t reffs_write(struct reffs *fs, reffs_ino ino, const void *buf, size_t size, off_t off)
{
    return reffs_write_flags(fs, ino, buf, size, off, 0);
}

ssize_t reffs_write_flags(struct reffs *fs, reffs_ino ino, const void *buf, size_t size,
                          off_t off, int flags)
{
    fs_lock(fs);
    ssize_t r = do_write(fs, ino, buf, size, off, flags);
    fs_unlock(fs);
    return r;
}

/* Frees the blocks past len and zeroes the tail of the last one, so a later extend reads
 * zeros (blocks past the size are always zero: that is what an extend relies on). */
void data_shrink(struct reffs *fs, struct rinode *ip, off_t len)
{
    if (!ip->data)
        return;
    struct rextmap *m = extmap_mut(ip);
    uint64_t keep = ((uint64_t)len + REFFS_BLOCK_SIZE - 1) / REFFS_BLOCK_SIZE;
    size_t pos = ext_lower(m, keep);
    for (size_t i = pos; i < m->n; i++)
        blk_put(m->v[i].blk);
    fs->live.used -= (uint64_t)(m->n - pos) * REFFS_BLOCK_SIZE;
    m->n = pos;
    uint64_t tail = (uint64_t)len % REFFS_BLOCK_SIZE;
    if (tail && ext_find(m, len / REFFS_BLOCK_SIZE) && !mutated(MUT_TRUNC_STALE_TAIL)) {
        struct rblock *b = block_for_write(fs, ip, len / REFFS_BLOCK_SIZE);
        memset(b->data + tail, 0, REFFS_BLOCK_SIZE - tail);
    }
}

void mut_soil_extend(struct reffs *fs, struct rinode *ip, long long len)
{
    uint64_t tail = (uint64_t)ip->size % REFFS_BLOCK_SIZE;
    if (!tail || !ext_find(ip->data, (uint64_t)ip->size / REFFS_BLOCK_SIZE))
        return;
    uint64_t n = REFFS_BLOCK_SIZE - tail;
    if ((uint64_t)(len - ip->size) < n)
        n = (uint64_t)(len - ip->size);
    memset(block_for_write(fs, ip, (uint64_t)ip->size / REFFS_BLOCK_SIZE)->data + tail, 0xa5, n);
}

int reffs_fsync(struct reffs *fs, reffs_ino ino)
{
    fs_lock(fs);
    int r = ino_get(fs, ino) ? 0 : -ENOENT;
    fs_unlock(fs);
    return r;
}
