/* Equalizes free inodes and free space across the file systems before a run, so ENOSPC falls at
 * the same point on each: fillers in a root directory that the abstraction leaves out. */
#include "equalize.h"
#include "abstract.h"
#include "backend.h"
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Past this many, filling inodes one by one costs more than it is worth: say so instead. */
#define MAX_FILLER_INODES 4096

int free_counts(int rootfd, struct free_counts *fc)
{
    struct statvfs sv;
    if (fstatvfs(rootfd, &sv) < 0)
        return -errno;
    /* btrfs reports 0 of 0 inodes: it allocates them as it goes, so it has no limit to meet. */
    fc->inodes = sv.f_files ? sv.f_ffree : UINT64_MAX;
    /* Metis runs as root, which may use the reserved blocks too: f_bfree is what ENOSPC sees. */
    fc->bytes = (uint64_t)sv.f_bfree * sv.f_frsize;
    return 0;
}

static int make_filler_files(int dirfd, uint64_t n)
{
    char name[32];
    for (uint64_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "i%llu", (unsigned long long)i);
        int fd = openat(dirfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return -errno;
        close(fd);
    }
    return 0;
}

/* ext2 has no fallocate: the same space, written. */
static int write_zeros(int fd, off_t at, uint64_t bytes)
{
    static const char zeros[65536];
    while (bytes > 0) {
        size_t n = bytes < sizeof zeros ? (size_t)bytes : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, at);
        if (w <= 0)
            return w < 0 ? -errno : -ENOSPC;
        at += w;
        bytes -= (uint64_t)w;
    }
    return 0;
}

static int grow_space_file(int dirfd, uint64_t bytes)
{
    int fd = openat(dirfd, "space", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    int rc = fstat(fd, &st) < 0 ? -errno : 0;
    off_t at = rc ? 0 : st.st_size;
    if (!rc && bytes && fallocate(fd, 0, at, (off_t)bytes) < 0)
        rc = errno == EOPNOTSUPP ? write_zeros(fd, at, bytes) : -errno;
    close(fd);
    return rc;
}

/* First pass: every fs gets the directory and the space file (one inode each, equally), the
 * roomier ones inode fillers. */
int equalize_inodes(int rootfd, uint64_t extra_inodes)
{
    if (mkdirat(rootfd, FILLER_DIR, 0700) < 0 && errno != EEXIST)
        return -errno;
    int dirfd = openat(rootfd, FILLER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    int rc = extra_inodes > MAX_FILLER_INODES ? 0 : make_filler_files(dirfd, extra_inodes);
    if (!rc)
        rc = grow_space_file(dirfd, 0);
    close(dirfd);
    return rc ? rc : extra_inodes > MAX_FILLER_INODES ? -E2BIG : 0;
}

/* Second pass: the roomier ones give up the difference in free bytes. */
int equalize_space(int rootfd, uint64_t extra_bytes)
{
    int dirfd = openat(rootfd, FILLER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    int rc = grow_space_file(dirfd, extra_bytes);
    close(dirfd);
    return rc;
}

/* ---- over a set of backends, once before a run (or a replay) ---- */

static int eq_pass(struct backend **be, int n, struct free_counts *fc, const struct free_counts *min,
                   int pass, struct free_counts *applied)
{
    for (int i = 0; i < n; i++) {
        struct backend *b = be[i];
        if (b->ops->begin(b) < 0)
            return -1;
        int rc = 0;
        if (pass == 1) {
            applied[i].inodes = fc[i].inodes - min->inodes;
            rc = equalize_inodes(b->rootfd, applied[i].inodes);
            if (rc == -E2BIG)
                applied[i].inodes = 0;
        } else if (pass == 2) {
            rc = equalize_space(b->rootfd, fc[i].bytes - min->bytes);
            applied[i].bytes += rc == 0 ? fc[i].bytes - min->bytes : 0;
        }
        /* Best effort: a fill the fs cannot hold, or too many inodes to fill, leaves a difference
         * that the caller reports; it is not a reason to give up the run. */
        if (rc == 0 || rc == -E2BIG || rc == -ENOSPC)
            rc = free_counts(b->rootfd, &fc[i]);
        if (rc < 0)
            snprintf(b->err, sizeof b->err, "%s: equalizing free space: %s", b->cfg->name,
                     strerror(-rc));
        if (b->ops->end(b) < 0 || rc < 0)
            return -1;
    }
    return 0;
}

static void eq_minimum(const struct free_counts *fc, int n, struct free_counts *min)
{
    *min = fc[0];
    for (int i = 1; i < n; i++) {
        if (fc[i].inodes < min->inodes)
            min->inodes = fc[i].inodes;
        if (fc[i].bytes < min->bytes)
            min->bytes = fc[i].bytes;
    }
}

int equalize_backends(struct backend **be, int n, struct free_counts *fc,
                      struct free_counts *applied)
{
    struct free_counts min;
    memset(applied, 0, (size_t)n * sizeof *applied);
    if (eq_pass(be, n, fc, NULL, 0, applied) < 0 || n < 2)
        return n < 2 ? 0 : -1;
    eq_minimum(fc, n, &min);
    if (eq_pass(be, n, fc, &min, 1, applied) < 0)
        return -1;
    /* Twice: block sizes differ, so the first fill can overshoot by up to a block. */
    for (int k = 0; k < 2; k++) {
        eq_minimum(fc, n, &min);
        if (eq_pass(be, n, fc, &min, 2, applied) < 0)
            return -1;
    }
    return 0;
}

#define SLACK_XATTR "user.metis-fill"
#define FILL_BLOCK 4096

/* Takes n more bytes (below a block) as an xattr value of the space file: on a file system that
 * counts xattr bytes (RefFS) the free space then ends a few bytes into a block, so xattrs and
 * symlink targets meet ENOSPC too, not only whole blocks. Best effort: 0 whatever happens. */
static int take_slack(int rootfd, uint64_t n)
{
    static const char zeros[FILL_BLOCK];
    size_t name = sizeof SLACK_XATTR - 1;
    char path[64];
    if (n <= name)
        return 0;
    snprintf(path, sizeof path, "%s/space", FILLER_DIR);
    int fd = openat(rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        fsetxattr(fd, SLACK_XATTR, zeros, (size_t)(n - name), 0);
        close(fd);
    }
    return 0;
}

/* The space part of fill_one: whole blocks in the space file, the rest as slack. */
static int fill_space(int rootfd, uint64_t free, uint64_t left, struct free_counts *applied)
{
    uint64_t take = free > left ? free - left : 0;
    uint64_t blocks = take / FILL_BLOCK * FILL_BLOCK;
    int rc = blocks ? equalize_space(rootfd, blocks) : 0;
    if (rc == 0) {
        applied->bytes += blocks;
        applied->slack = take - blocks;
        rc = take_slack(rootfd, applied->slack);
    }
    return rc;
}

/* One backend's part of equalize_fill: the filler directory made first (a run of one fs has
 * none yet), then inode fillers numbered on from the ones it has, then space. */
static int fill_one(struct backend *b, uint64_t bytes, uint64_t inodes, struct free_counts *fc,
                    struct free_counts *applied)
{
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = equalize_inodes(b->rootfd, applied->inodes);
    if (rc == 0)
        rc = free_counts(b->rootfd, fc);
    uint64_t more = inodes != UINT64_MAX && fc->inodes != UINT64_MAX && fc->inodes > inodes
                        ? fc->inodes - inodes : 0;
    if (rc == 0 && more && applied->inodes + more <= MAX_FILLER_INODES &&
        (rc = equalize_inodes(b->rootfd, applied->inodes + more)) == 0)
        applied->inodes += more;
    if (rc == 0)
        rc = free_counts(b->rootfd, fc);
    if (rc == 0 && bytes != UINT64_MAX)
        rc = fill_space(b->rootfd, fc->bytes, bytes, applied);
    if (rc == 0 || rc == -ENOSPC)
        rc = free_counts(b->rootfd, fc);
    if (rc < 0)
        snprintf(b->err, sizeof b->err, "%s: filling the device: %s", b->cfg->name, strerror(-rc));
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

int equalize_fill(struct backend **be, int n, uint64_t bytes, uint64_t inodes,
                  struct free_counts *fc, struct free_counts *applied)
{
    for (int i = 0; i < n; i++)
        if (fill_one(be[i], bytes, inodes, &fc[i], &applied[i]) < 0)
            return -1;
    return 0;
}

int equalize_replay(int rootfd, const struct free_counts *applied)
{
    int rc = equalize_inodes(rootfd, applied->inodes);
    if (rc < 0 && rc != -E2BIG)
        return rc;
    rc = equalize_space(rootfd, applied->bytes);
    return rc < 0 ? rc : take_slack(rootfd, applied->slack);
}
