/* File data: sparse 4 KiB blocks shared copy-on-write; read, write, truncate, fallocate, fsync. */
#include <fcntl.h>
#include "internal.h"

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 1
#endif

/* First position in the map whose block number is >= idx. */
static size_t ext_lower(const struct rextmap *m, uint64_t idx)
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

static const struct rblock *ext_find(const struct rextmap *m, uint64_t idx)
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
static struct rblock *block_for_write(struct reffs *fs, struct rinode *ip, uint64_t idx)
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

/* Inserts zeroed blocks for every hole in [first, last]; the caller checked the space. */
static void fill_holes(struct reffs *fs, struct rinode *ip, uint64_t first, uint64_t last)
{
    struct rextmap *m = extmap_mut(ip);
    size_t lo = ext_lower(m, first), hi = ext_lower(m, last + 1);
    size_t missing = (last - first + 1) - (hi - lo);
    if (!missing)
        return;
    struct rext *v = xmalloc((m->n + missing) * sizeof *v);
    if (lo)
        memcpy(v, m->v, lo * sizeof *v);
    size_t o = lo, i = lo;
    for (uint64_t idx = first; idx <= last; idx++) {
        if (i < hi && m->v[i].idx == idx)
            v[o++] = m->v[i++];
        else
            v[o++] = (struct rext){ idx, blk_new() };
    }
    if (m->n > hi)
        memcpy(v + o, m->v + hi, (m->n - hi) * sizeof *v);
    free(m->v);
    m->v = v;
    m->n = m->cap = m->n + missing;
    fs->live.used += missing * REFFS_BLOCK_SIZE;
}

/* MUT_FALLOC_ENOSPC_PARTIAL: allocates the holes of [first, last] until space runs out and,
 * for mode 0, extends the size over what it got (a failed fallocate that is not undone). */
static void mut_alloc_what_fits(struct reffs *fs, struct rinode *ip, int mode, uint64_t first,
                                uint64_t last)
{
    uint64_t idx = first;
    while (idx <= last && block_for_write(fs, ip, idx))
        idx++;
    off_t end = (off_t)idx * REFFS_BLOCK_SIZE;
    if (!(mode & FALLOC_FL_KEEP_SIZE) && end > ip->size)
        ip->size = end;
}

/* MUT_FALLOC_ZEROES_DATA: zeroes every block of [first, last], data included. */
static void mut_zero_blocks(struct reffs *fs, struct rinode *ip, uint64_t first, uint64_t last)
{
    for (uint64_t idx = first; idx <= last; idx++)
        memset(block_for_write(fs, ip, idx)->data, 0, REFFS_BLOCK_SIZE);
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

static int do_fallocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    if (mode & ~FALLOC_FL_KEEP_SIZE)
        return -EOPNOTSUPP;
    if (off < 0 || len <= 0)
        return -EINVAL;
    if (S_ISDIR(ip->mode))
        return -EISDIR;
    if (!S_ISREG(ip->mode))
        return -ENODEV;
    if (off > REFFS_MAX_FILE_SIZE || len > REFFS_MAX_FILE_SIZE - off)
        return -EFBIG;
    uint64_t first = off / REFFS_BLOCK_SIZE, last = (off + len - 1) / REFFS_BLOCK_SIZE;
    size_t have = ext_lower(ip->data, last + 1) - ext_lower(ip->data, first);
    uint64_t missing = last - first + 1 - have;
    uint64_t avail = fs->capacity > fs->live.used ? fs->capacity - fs->live.used : 0;
    if (missing > avail / REFFS_BLOCK_SIZE) {
        if (mutated(MUT_FALLOC_ENOSPC_PARTIAL))
            mut_alloc_what_fits(fs, ino_mut(fs, ino), mode, first, last);
        return -ENOSPC;
    }
    ip = ino_mut(fs, ino);
    fill_holes(fs, ip, first, last);
    if (mutated(MUT_FALLOC_ZEROES_DATA))
        mut_zero_blocks(fs, ip, first, last);
    time_now(&ip->ctime);
    int grows = !(mode & FALLOC_FL_KEEP_SIZE) ? !mutated(MUT_FALLOC_NO_EXTEND)
                                               : mutated(MUT_FALLOC_KEEP_SIZE_GROWS);
    if (grows && off + len > ip->size) {
        ip->size = off + len;
        ip->mtime = ip->ctime;
    }
    return 0;
}

int reffs_fallocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    fs_lock(fs);
    int r = do_fallocate(fs, ino, mode, off, len);
    fs_unlock(fs);
    return r;
}

int reffs_fsync(struct reffs *fs, reffs_ino ino)
{
    fs_lock(fs);
    int r = ino_get(fs, ino) ? 0 : -ENOENT;
    fs_unlock(fs);
    return r;
}
