/* Test hook: a device that lost writes, made by zeroing in the image the bytes a write put there, found by FIEMAP before the unmount. */
#include "backend/device/lost_write.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define LW_NOTES 16
#define LW_RANGES 64
#define LW_EXTENTS 32

struct lw_note {
    char path[4096];
    uint64_t off, len;
};

struct lw_range {
    uint64_t phys, len;
};

struct lost_writes {
    struct lw_note note[LW_NOTES];
    int nnotes;
    struct lw_range range[LW_RANGES];
    int nranges;
};

struct lost_writes *lw_new(void)
{
    return calloc(1, sizeof(struct lost_writes));
}

void lw_free(struct lost_writes *w)
{
    free(w);
}

void lw_note(struct lost_writes *w, const char *path, uint64_t off, uint64_t len)
{
    if (w->nnotes == LW_NOTES) {
        memmove(w->note, w->note + 1, (LW_NOTES - 1) * sizeof *w->note);
        w->nnotes--;
    }
    struct lw_note *n = &w->note[w->nnotes++];
    snprintf(n->path, sizeof n->path, "%s", path);
    n->off = off;
    n->len = len;
}

void lw_clear(struct lost_writes *w)
{
    w->nnotes = w->nranges = 0;
}

/* Data that is only in the inode, not yet placed, or placed in a way a byte offset cannot
 * name has no device range to lose. */
static int placed_plainly(const struct fiemap_extent *e)
{
    return !(e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
                            FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE |
                            FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_UNWRITTEN |
                            FIEMAP_EXTENT_NOT_ALIGNED));
}

static void add_range(struct lost_writes *w, uint64_t phys, uint64_t len)
{
    if (w->nranges < LW_RANGES)
        w->range[w->nranges++] = (struct lw_range){ phys, len };
}

/* The device ranges of n's bytes, through the extents FIEMAP reports (FIEMAP_FLAG_SYNC
 * writes the file's dirty data first, so delayed allocations have their blocks). */
static void locate_note(struct lost_writes *w, int rootfd, const struct lw_note *n)
{
    struct {
        struct fiemap map;
        struct fiemap_extent ext[LW_EXTENTS];
    } q;
    struct stat st;
    int fd = openat(rootfd, n->path + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    memset(&q, 0, sizeof q);
    q.map.fm_start = n->off;
    q.map.fm_length = n->len;
    q.map.fm_flags = FIEMAP_FLAG_SYNC;
    q.map.fm_extent_count = LW_EXTENTS;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ioctl(fd, FS_IOC_FIEMAP, &q.map) == 0)
        for (unsigned i = 0; i < q.map.fm_mapped_extents && i < LW_EXTENTS; i++) {
            const struct fiemap_extent *e = &q.ext[i];
            uint64_t lo = e->fe_logical > n->off ? e->fe_logical : n->off;
            uint64_t end = e->fe_logical + e->fe_length, want = n->off + n->len;
            uint64_t hi = end < want ? end : want;
            if (placed_plainly(e) && lo < hi)
                add_range(w, e->fe_physical + (lo - e->fe_logical), hi - lo);
        }
    close(fd);
}

void lw_locate(struct lost_writes *w, int rootfd)
{
    w->nranges = 0;
    for (int i = 0; i < w->nnotes; i++)
        locate_note(w, rootfd, &w->note[i]);
}

static int write_zeros(int fd, uint64_t off, uint64_t len)
{
    static const char zeros[4096];
    while (len) {
        size_t k = len < sizeof zeros ? (size_t)len : sizeof zeros;
        ssize_t n = pwrite(fd, zeros, k, (off_t)off);
        if (n <= 0)
            return n < 0 ? -1 : (errno = EIO, -1);
        off += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return 0;
}

int64_t lw_zero(struct lost_writes *w, int fd)
{
    int64_t total = 0;
    for (int i = 0; i < w->nranges; i++) {
        if (write_zeros(fd, w->range[i].phys, w->range[i].len) < 0)
            return -1;
        total += (int64_t)w->range[i].len;
    }
    lw_clear(w);
    return total;
}
