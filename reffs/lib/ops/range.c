/* Byte ranges of file data: fallocate in every mode ext4 has, and copy_file_range. */
#include <fcntl.h>
#include "lib/core/internal.h"

/* Linux's ABI values, for headers that predate some modes. */
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif
#ifndef FALLOC_FL_COLLAPSE_RANGE
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#endif
#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_ZERO_RANGE 0x10
#endif
#ifndef FALLOC_FL_INSERT_RANGE
#define FALLOC_FL_INSERT_RANGE 0x20
#endif
#ifndef FALLOC_FL_UNSHARE_RANGE
#define FALLOC_FL_UNSHARE_RANGE 0x40
#endif
#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

#define BS REFFS_BLOCK_SIZE
/* The operations of a mode; KEEP_SIZE is a modifier, not one of them. */
#define FALLOC_OPS (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE | \
                    FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_WRITE_ZEROES)

static void touch_data(struct rinode *ip)
{
    time_now(&ip->mtime);
    ip->ctime = ip->mtime;
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

/* Whether the holes among blocks [first, last] fit in the free space. */
static int holes_fit(const struct reffs *fs, const struct rinode *ip, uint64_t first,
                     uint64_t last)
{
    size_t have = ext_lower(ip->data, last + 1) - ext_lower(ip->data, first);
    uint64_t missing = last - first + 1 - have;
    uint64_t avail = fs->capacity > fs->live.used ? fs->capacity - fs->live.used : 0;
    return missing <= avail / BS;
}

/* Frees the blocks numbered [a, b); a snapshot sharing them keeps its own references. */
static void drop_blocks(struct reffs *fs, struct rinode *ip, uint64_t a, uint64_t b)
{
    size_t lo = ext_lower(ip->data, a), hi = ext_lower(ip->data, b);
    if (lo == hi)
        return;
    struct rextmap *m = extmap_mut(ip);
    for (size_t i = lo; i < hi; i++)
        blk_put(m->v[i].blk);
    memmove(m->v + lo, m->v + hi, (m->n - hi) * sizeof *m->v);
    m->n -= hi - lo;
    fs->live.used -= (uint64_t)(hi - lo) * BS;
}

/* Zeroes bytes [from, to) in the allocated blocks; holes stay holes. */
static void zero_bytes(struct reffs *fs, struct rinode *ip, uint64_t from, uint64_t to)
{
    for (uint64_t pos = from; pos < to;) {
        uint64_t boff = pos % BS, n = BS - boff < to - pos ? BS - boff : to - pos;
        if (ext_find(ip->data, pos / BS))
            memset(block_for_write(fs, ip, pos / BS)->data + boff, 0, n);
        pos += n;
    }
}

/* ---- mode 0 and KEEP_SIZE ---- */

/* MUT_FALLOC_ENOSPC_PARTIAL: allocates the holes of [first, last] until space runs out and,
 * for mode 0, extends the size over what it got (a failed fallocate that is not undone). */
static void mut_alloc_what_fits(struct reffs *fs, struct rinode *ip, int mode, uint64_t first,
                                uint64_t last)
{
    uint64_t idx = first;
    while (idx <= last && block_for_write(fs, ip, idx))
        idx++;
    off_t end = (off_t)idx * BS;
    if (!(mode & FALLOC_FL_KEEP_SIZE) && end > ip->size)
        ip->size = end;
}

/* MUT_FALLOC_ZEROES_DATA: zeroes every block of [first, last], data included. */
static void mut_zero_blocks(struct reffs *fs, struct rinode *ip, uint64_t first, uint64_t last)
{
    for (uint64_t idx = first; idx <= last; idx++)
        memset(block_for_write(fs, ip, idx)->data, 0, BS);
}

static int falloc_allocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    uint64_t first = off / BS, last = (off + len - 1) / BS;
    if (!holes_fit(fs, ino_get(fs, ino), first, last)) {
        if (mutated(MUT_FALLOC_ENOSPC_PARTIAL))
            mut_alloc_what_fits(fs, ino_mut(fs, ino), mode, first, last);
        return -ENOSPC;
    }
    struct rinode *ip = ino_mut(fs, ino);
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

/* ---- PUNCH_HOLE, ZERO_RANGE ---- */

/* As ext4: the hole ends at the end of the block holding EOF at the latest, so KEEP_SIZE
 * blocks further out stay allocated (tmpfs would free them). */
static int falloc_punch(struct reffs *fs, reffs_ino ino, off_t off, off_t len)
{
    struct rinode *ip = ino_mut(fs, ino);
    uint64_t eof_block_end = ((uint64_t)ip->size + BS - 1) / BS * BS;
    uint64_t from = (uint64_t)off, end = (uint64_t)(off + len);
    uint64_t to = end < eof_block_end ? end : eof_block_end;
    touch_data(ip);
    if (from >= to)
        return 0;
    uint64_t head = (from + BS - 1) / BS, tail = to / BS;   /* whole blocks: [head, tail) */
    if (mutated(MUT_PUNCH_PARTIAL_KEEPS_DATA))
        from = head * BS < to ? head * BS : to;
    if (head >= tail) {
        zero_bytes(fs, ip, from, to);
        return 0;
    }
    zero_bytes(fs, ip, from, head * BS);
    zero_bytes(fs, ip, tail * BS, to);
    drop_blocks(fs, ip, head, tail);
    return 0;
}

/* As ext4: every block the range touches ends up allocated (holes too) and reads zeros. */
static int falloc_zero(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    uint64_t first = off / BS, last = (off + len - 1) / BS;
    if (!holes_fit(fs, ino_get(fs, ino), first, last))
        return -ENOSPC;
    struct rinode *ip = ino_mut(fs, ino);
    fill_holes(fs, ip, first, last);
    if (!mutated(MUT_ZERO_RANGE_KEEPS_DATA))
        zero_bytes(fs, ip, off, off + len);
    touch_data(ip);
    if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > ip->size)
        ip->size = off + len;
    return 0;
}

/* ---- COLLAPSE_RANGE, INSERT_RANGE ---- */

/* A range reaching EOF is refused (ext4: that would be a truncate). Blocks past EOF move too. */
static int falloc_collapse(struct reffs *fs, reffs_ino ino, off_t off, off_t len)
{
    if ((off | len) % BS)
        return -EINVAL;
    if (off + len >= ino_get(fs, ino)->size)
        return -EINVAL;
    struct rinode *ip = ino_mut(fs, ino);
    uint64_t first = off / BS, n = len / BS;
    if (ip->data) {
        drop_blocks(fs, ip, first, first + n);
        struct rextmap *m = extmap_mut(ip);
        uint64_t shift = mutated(MUT_COLLAPSE_SHIFT_SHORT) ? n - 1 : n;
        for (size_t i = ext_lower(m, first); i < m->n; i++)
            m->v[i].idx -= shift;
    }
    ip->size -= len;
    touch_data(ip);
    return 0;
}

/* Moves blocks numbered first and up n blocks on. Blocks that would land past the maximum
 * size can only be KEEP_SIZE blocks beyond EOF: they are freed. */
static void shift_up(struct reffs *fs, struct rinode *ip, uint64_t first, uint64_t n)
{
    uint64_t limit = REFFS_MAX_FILE_SIZE / BS;
    drop_blocks(fs, ip, limit - n, UINT64_MAX);
    struct rextmap *m = extmap_mut(ip);
    for (size_t i = ext_lower(m, first); i < m->n; i++)
        m->v[i].idx += n;
}

static int falloc_insert(struct reffs *fs, reffs_ino ino, off_t off, off_t len)
{
    const struct rinode *cur = ino_get(fs, ino);
    if ((off | len) % BS)
        return -EINVAL;
    if (len > REFFS_MAX_FILE_SIZE - cur->size)
        return -EFBIG;
    if (off >= cur->size)
        return -EINVAL;
    struct rinode *ip = ino_mut(fs, ino);
    if (ip->data)
        shift_up(fs, ip, off / BS + mutated(MUT_INSERT_SKIPS_FIRST_BLOCK), len / BS);
    ip->size += len;
    touch_data(ip);
    return 0;
}

/* ---- dispatch ---- */

/* What Linux refuses whatever the file system: unknown bits, two operations at once,
 * PUNCH_HOLE without KEEP_SIZE, KEEP_SIZE with an operation that must move EOF. */
static int falloc_mode_check(int mode)
{
    if (mode & ~(FALLOC_OPS | FALLOC_FL_KEEP_SIZE))
        return -EOPNOTSUPP;
    int keep = mode & FALLOC_FL_KEEP_SIZE;
    switch (mode & FALLOC_OPS) {
    case 0:
    case FALLOC_FL_ZERO_RANGE:
    case FALLOC_FL_UNSHARE_RANGE:
        return 0;
    case FALLOC_FL_PUNCH_HOLE:
        return keep ? 0 : -EOPNOTSUPP;
    case FALLOC_FL_COLLAPSE_RANGE:
    case FALLOC_FL_INSERT_RANGE:
    case FALLOC_FL_WRITE_ZEROES:
        return keep ? -EOPNOTSUPP : 0;
    default:
        return -EOPNOTSUPP;
    }
}

/* vfs_fallocate's checks, in its order: they come before the file system's own. */
static int falloc_vfs_check(const struct rinode *ip, int mode, off_t off, off_t len)
{
    if (off < 0 || len <= 0)
        return -EINVAL;
    int r = falloc_mode_check(mode);
    if (r)
        return r;
    if (S_ISFIFO(ip->mode))
        return -ESPIPE;
    if (S_ISDIR(ip->mode))
        return -EISDIR;
    if (!S_ISREG(ip->mode))
        return -ENODEV;
    if (off > REFFS_MAX_FILE_SIZE || len > REFFS_MAX_FILE_SIZE - off)
        return -EFBIG;
    return 0;
}

static int do_fallocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    int r = falloc_vfs_check(ip, mode, off, len);
    if (r)
        return r;
    switch (mode & FALLOC_OPS) {
    case 0:
        return falloc_allocate(fs, ino, mode, off, len);
    case FALLOC_FL_PUNCH_HOLE:
        return falloc_punch(fs, ino, off, len);
    case FALLOC_FL_ZERO_RANGE:
        return falloc_zero(fs, ino, mode, off, len);
    case FALLOC_FL_COLLAPSE_RANGE:
        return falloc_collapse(fs, ino, off, len);
    case FALLOC_FL_INSERT_RANGE:
        return falloc_insert(fs, ino, off, len);
    default:
        return -EOPNOTSUPP;   /* UNSHARE_RANGE, WRITE_ZEROES: ext4 here refuses them too */
    }
}

int reffs_fallocate(struct reffs *fs, reffs_ino ino, int mode, off_t off, off_t len)
{
    fs_lock(fs);
    int r = do_fallocate(fs, ino, mode, off, len);
    fs_unlock(fs);
    return r;
}

/* ---- copy_file_range ---- */

/* generic_copy_file_checks and rw_verify_area, in the kernel's order; the byte count to copy
 * or -errno. The open-mode checks (EBADF, O_APPEND) are the kernel's: RefFS has no fds. */
static ssize_t copy_check(struct reffs *fs, reffs_ino in, off_t off_in, reffs_ino out,
                          off_t off_out, size_t len, unsigned flags)
{
    if (flags)
        return -EINVAL;
    const struct rinode *src = ino_get(fs, in), *dst = ino_get(fs, out);
    if (!src || !dst)
        return -ENOENT;
    if (S_ISDIR(src->mode) || S_ISDIR(dst->mode))
        return -EISDIR;
    if (!S_ISREG(src->mode) || !S_ISREG(dst->mode))
        return -EINVAL;
    if ((uint64_t)off_in + len < (uint64_t)off_in || (uint64_t)off_out + len < (uint64_t)off_out)
        return -EOVERFLOW;
    uint64_t count = off_in >= src->size ? 0 : (uint64_t)(src->size - off_in);
    if (count > len)
        count = len;
    if (off_out >= REFFS_MAX_FILE_SIZE)
        return -EFBIG;
    if (count > (uint64_t)(REFFS_MAX_FILE_SIZE - off_out))
        count = REFFS_MAX_FILE_SIZE - off_out;
    if (in == out && off_out + (off_t)count > off_in && off_out < off_in + (off_t)count)
        return -EINVAL;
    if (off_in < 0 || off_out < 0)
        return -EINVAL;
    return (ssize_t)count;
}

/* Holes of the source are written as zeros, as the kernel's splice fallback does on ext4
 * and tmpfs; like write, the copy is short when space runs out part-way. */
static ssize_t copy_bytes(struct reffs *fs, reffs_ino in, off_t off_in, reffs_ino out,
                          off_t off_out, size_t count)
{
    struct rinode *dst = ino_mut(fs, out);
    const struct rinode *src = ino_get(fs, in);   /* after ino_mut: the same inode if in == out */
    size_t done = 0;
    while (done < count) {
        uint64_t pi = off_in + done, po = off_out + done;
        size_t n = count - done;
        if (n > BS - pi % BS)
            n = BS - pi % BS;
        if (n > BS - po % BS)
            n = BS - po % BS;
        const struct rblock *sb = ext_find(src->data, pi / BS);
        if (!sb && mutated(MUT_COPY_RANGE_HOLE_SKIPPED)) {
            done += n;
            continue;
        }
        struct rblock *db = block_for_write(fs, dst, po / BS);
        if (!db)
            break;
        if (sb)
            memmove(db->data + po % BS, sb->data + pi % BS, n);
        else
            memset(db->data + po % BS, 0, n);
        done += n;
    }
    if (done == 0)
        return -ENOSPC;
    if (off_out + (off_t)done > dst->size)
        dst->size = off_out + done;
    touch_data(dst);
    return (ssize_t)done;
}

ssize_t reffs_copy_range(struct reffs *fs, reffs_ino in, off_t off_in, reffs_ino out,
                         off_t off_out, size_t len, unsigned flags)
{
    fs_lock(fs);
    ssize_t r = copy_check(fs, in, off_in, out, off_out, len, flags);
    if (r > 0)
        r = copy_bytes(fs, in, off_in, out, off_out, (size_t)r);
    fs_unlock(fs);
    return r;
}
