/* Equalizes free inodes and free space across the file systems before a run, so ENOSPC falls at
 * the same point on each: fillers in a root directory that the abstraction leaves out.
 * Functions on one fs return 0 or -1 with errno (EFBIG, ENOSPC and E2BIG tell how far a fill
 * got); those over backends 0 or -1 with the message in the failing b->err. */
#include "backend/logical/equalize.h"
#include "tree/digest.h"
#include "backend/base/backend_types.h"
#include "engine/config/config.h"
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
/* Files the free-space difference may be spread over when one file cannot hold it (EFBIG). */
#define MAX_SPACE_FILES 256
#define BLOCK_BYTES 4096ULL

int free_counts(int rootfd, struct free_counts *fc)
{
    struct statvfs sv;
    /* btrfs counts a fill in its free space only once the transaction commits: without this,
     * one just made still showed as free and the next round filled it again (ext4 against
     * btrfs was left 3.8 MiB apart, and btrfs met ENOSPC on a rename at the 7th operation). */
    syncfs(rootfd);
    if (fstatvfs(rootfd, &sv) < 0)
        return -1;
    /* btrfs reports 0 of 0 inodes: it allocates them as it goes, so it has no limit to meet. */
    fc->inodes = sv.f_files ? sv.f_ffree : UINT64_MAX;
    /* Metis runs as root, which may use the reserved blocks too: f_bfree is what ENOSPC sees. */
    fc->bytes = (uint64_t)sv.f_bfree * sv.f_frsize;
    return 0;
}

/* Makes n more empty filler files (names already taken by earlier fills are skipped). */
static int make_filler_files(int dirfd, uint64_t n)
{
    char name[32];
    for (uint64_t i = 0, made = 0; made < n; i++) {
        snprintf(name, sizeof name, "i%llu", (unsigned long long)i);
        int fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -1;
        if (fd >= 0) {
            close(fd);
            made++;
        }
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
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        at += w;
        bytes -= (uint64_t)w;
    }
    return 0;
}

/* Grows fd at its end by up to want bytes; *got is what it took (fstat tells, as a write may
 * stop part-way). 0 or -1 with errno. */
static int grow_once(int fd, uint64_t want, uint64_t *got)
{
    struct stat before, after;
    *got = 0;
    if (fstat(fd, &before) < 0)
        return -1;
    int rc = 0;
    if (fallocate(fd, 0, before.st_size, (off_t)want) < 0)
        rc = errno == EOPNOTSUPP ? write_zeros(fd, before.st_size, want) : -1;
    int err = errno;
    if (fstat(fd, &after) == 0 && after.st_size > before.st_size)
        *got = (uint64_t)(after.st_size - before.st_size);
    errno = err;
    return rc;
}

/* Fills one file with up to *left bytes. A file system may refuse files above some size
 * (EFBIG): the piece is halved until the file takes no more, then errno EFBIG says "next file". */
static int fill_file(int fd, uint64_t *left)
{
    uint64_t piece = *left, got;
    while (*left > 0) {
        if (piece > *left)
            piece = *left;
        int rc = grow_once(fd, piece, &got);
        *left -= got < *left ? got : *left;
        if (rc == 0 && got == 0)
            return 0;           /* took nothing and said nothing: what is left is reported */
        if (rc == 0)
            continue;
        if (errno != EFBIG || piece <= BLOCK_BYTES)
            return -1;
        piece = piece / 2 / BLOCK_BYTES * BLOCK_BYTES;
        if (piece < BLOCK_BYTES)
            piece = BLOCK_BYTES;
    }
    return 0;
}

/* Fills space, space1, space2, ... with bytes in all, *filled of them (may be NULL); errno
 * EFBIG if MAX_SPACE_FILES do not hold it. */
static int grow_space_file(int dirfd, uint64_t bytes, uint64_t *filled)
{
    char name[32];
    uint64_t left = bytes;
    int rc = -1, err = EFBIG;
    for (int k = 0; k < MAX_SPACE_FILES && rc < 0 && err == EFBIG; k++) {
        snprintf(name, sizeof name, k ? "space%d" : "space", k);
        int fd = openat(dirfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return -1;
        rc = fill_file(fd, &left);
        err = rc < 0 ? errno : 0;
        close(fd);
        if (left == 0)
            rc = 0;
    }
    if (filled)
        *filled = bytes - left;
    errno = err;
    return rc;
}

/* First pass: every fs gets the directory and the space file (one inode each, equally), the
 * roomier ones inode fillers. */
int equalize_inodes(int rootfd, uint64_t extra_inodes)
{
    if (mkdirat(rootfd, FILLER_DIR, 0700) < 0 && errno != EEXIST)
        return -1;
    int dirfd = openat(rootfd, FILLER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0)
        return -1;
    int rc = extra_inodes > MAX_FILLER_INODES ? 0 : make_filler_files(dirfd, extra_inodes);
    if (!rc)
        rc = grow_space_file(dirfd, 0, NULL);
    int err = errno;
    close(dirfd);
    errno = rc == 0 && extra_inodes > MAX_FILLER_INODES ? E2BIG : err;
    return rc == 0 && extra_inodes <= MAX_FILLER_INODES ? 0 : -1;
}

/* Second pass: the roomier ones give up the difference in free bytes. */
int equalize_space(int rootfd, uint64_t extra_bytes, uint64_t *filled)
{
    int dirfd = openat(rootfd, FILLER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0)
        return -1;
    int rc = grow_space_file(dirfd, extra_bytes, filled);
    int err = errno;
    close(dirfd);
    errno = err;
    return rc;
}

/* ---- over a set of backends, once before a run (or a replay) ---- */

struct eq {
    struct backend **be;
    int n;
    struct free_counts *fc, *applied, min;
    int min_fs;                 /* the fs with the least free bytes */
    uint64_t limit;
    unsigned warned;            /* bit i: fs i was told it is over the limit */
};

/* A difference above the limit is left as it is: filling part of it would not make ENOSPC
 * fall at the same point, and a fill of that size costs memory (RefFS) or time (replays). */
static int eq_space(struct eq *q, int i)
{
    struct backend *b = q->be[i];
    uint64_t extra = q->fc[i].bytes - q->min.bytes, filled = 0;
    if (extra > q->limit) {
        if (!(q->warned & (1u << i)))
            equalize_tell("metis: warning: fs %s has %llu MiB more free space than fs %s, above "
                    "equalize_limit (%llu MiB): left unfilled, so ENOSPC may come at different "
                    "points\n", b->cfg->name, (unsigned long long)(extra >> 20),
                    q->be[q->min_fs]->cfg->name, (unsigned long long)(q->limit >> 20));
        q->warned |= 1u << i;
        return 0;
    }
    int rc = equalize_space(b->rootfd, extra, &filled);
    q->applied[i].bytes += filled;
    return rc;
}

static int eq_inodes(struct eq *q, int i)
{
    uint64_t extra = q->fc[i].inodes - q->min.inodes;
    int rc = equalize_inodes(q->be[i]->rootfd, extra);
    q->applied[i].inodes += rc == 0 ? extra : 0;
    return rc;
}

/* A target that cannot hold a filler at all (a union of branches without the filler's, a
 * directory it refuses) is left unequal: a warning, not the end of the run. */
static int eq_give_up(struct eq *q, int i)
{
    equalize_tell("metis: warning: fs %s: equalizing free space: cannot make a filler: %s; "
            "left unequal, so ENOSPC may come at different points\n", q->be[i]->cfg->name,
            strerror(errno));
    q->applied[i].fill_failed = 1;
    return 0;
}

static int eq_fill(struct eq *q, int i, int pass)
{
    if (q->applied[i].fill_failed)
        return 0;
    int rc = pass == 1 ? eq_inodes(q, i) : pass == 2 ? eq_space(q, i) : 0;
    /* Best effort: a fill the fs cannot hold, or too many inodes to fill, leaves a difference
     * that the summary reports; it is not a reason to give up the run. */
    if (rc == 0 || errno == E2BIG || errno == ENOSPC || errno == EFBIG)
        return 0;
    return eq_give_up(q, i);
}

static int eq_pass(struct eq *q, int pass)
{
    for (int i = 0; i < q->n; i++) {
        struct backend *b = q->be[i];
        if (b->ops->begin(b) < 0)
            return -1;
        int rc = eq_fill(q, i, pass);
        if (rc == 0)
            rc = free_counts(b->rootfd, &q->fc[i]);
        if (rc < 0)
            snprintf(b->err, sizeof b->err, "%s: equalizing free space: %s", b->cfg->name,
                     strerror(errno));
        if (b->ops->end(b) < 0 || rc < 0)
            return -1;
    }
    return 0;
}

static void eq_minimum(struct eq *q)
{
    q->min = q->fc[0];
    q->min_fs = 0;
    for (int i = 1; i < q->n; i++) {
        if (q->fc[i].inodes < q->min.inodes)
            q->min.inodes = q->fc[i].inodes;
        if (q->fc[i].bytes < q->min.bytes) {
            q->min.bytes = q->fc[i].bytes;
            q->min_fs = i;
        }
    }
}

/* Beyond these a target has no limit worth matching (btrfs reports no inode limit at all). */
#define GROW_INODES_MOST (1ULL << 20)
#define GROW_BYTES_MOST (1ULL << 50)

/* A reference whose limits are only numbers (RefFS) with less room than every target would
 * meet ENOSPC first, a false class, and the targets' surplus is often more than fillers can
 * take (an unsized FUSE target over a large store): the reference gets their room instead. */
static uint64_t more_than(uint64_t want, uint64_t have, uint64_t most)
{
    want = want < most ? want : most;
    return want > have ? want - have : 0;
}

static int free_counts_of(struct backend *b, struct free_counts *fc)
{
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = free_counts(b->rootfd, fc);
    if (rc < 0)
        snprintf(b->err, sizeof b->err, "%s: reading its free space: %s", b->cfg->name,
                 strerror(errno));
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

int equalize_grow_reference(struct backend **be, int n, uint64_t limit)
{
    struct backend *ref = be[0];
    struct free_counts have, fc, least = { .inodes = UINT64_MAX, .bytes = UINT64_MAX };
    if (n < 2 || !ref->ops->grow || free_counts_of(ref, &have) < 0)
        return n < 2 || !ref->ops->grow ? 0 : -1;
    for (int i = 1; i < n; i++) {
        if (free_counts_of(be[i], &fc) < 0)
            return -1;
        least.inodes = fc.inodes < least.inodes ? fc.inodes : least.inodes;
        least.bytes = fc.bytes < least.bytes ? fc.bytes : least.bytes;
    }
    uint64_t bytes = more_than(least.bytes, have.bytes, GROW_BYTES_MOST);
    uint64_t inodes = more_than(least.inodes, have.inodes, GROW_INODES_MOST);
    if (bytes <= limit && inodes <= MAX_FILLER_INODES)
        return 0;               /* fillers on the targets make it up, as they always did */
    if (ref->ops->grow(ref, bytes, inodes) < 0)
        return -1;
    equalize_tell("metis: fs %s (the reference) has less room than its targets: grown to %llu "
            "MiB and %llu inodes, so that it does not meet ENOSPC first\n", ref->cfg->name,
            (unsigned long long)(ref->grown_bytes >> 20), (unsigned long long)ref->grown_inodes);
    return 0;
}

int equalize_backends(struct backend **be, int n, struct free_counts *fc,
                      struct free_counts *applied, uint64_t limit)
{
    struct eq q = { be, n, fc, applied, { 0 }, 0, limit, 0 };
    memset(applied, 0, (size_t)n * sizeof *applied);
    if (eq_pass(&q, 0) < 0 || n < 2)
        return n < 2 ? 0 : -1;
    eq_minimum(&q);
    if (eq_pass(&q, 1) < 0)
        return -1;
    /* Twice: block sizes differ, so the first fill can overshoot by up to a block. */
    for (int k = 0; k < 2; k++) {
        eq_minimum(&q);
        if (eq_pass(&q, 2) < 0)
            return -1;
    }
    /* A fill spread over several files took inodes of its own: equal them again. */
    eq_minimum(&q);
    return eq_pass(&q, 1);
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

/* The space part of fill_one: whole blocks in the space files, the rest as slack. */
static int fill_space(int rootfd, uint64_t free, uint64_t left, struct free_counts *applied)
{
    uint64_t take = free > left ? free - left : 0;
    uint64_t blocks = take / FILL_BLOCK * FILL_BLOCK, filled = 0;
    int rc = blocks ? equalize_space(rootfd, blocks, &filled) : 0;
    applied->bytes += filled;
    if (rc == 0) {
        applied->slack = take - blocks;
        rc = take_slack(rootfd, applied->slack);
    }
    return rc;
}

/* A target that refuses a filler (a planted EACCES, a union without the filler's branch) is
 * left as it is, as at equalization: a warning, and its finding comes at the first step. */
static int fill_refused(struct backend *b, struct free_counts *applied)
{
    equalize_tell("metis: warning: fs %s: filling the device: cannot make a filler: %s; "
            "left unfilled, so ENOSPC may come at different points\n", b->cfg->name,
            strerror(errno));
    applied->fill_failed = 1;
    return 0;
}

/* One backend's part of equalize_fill: the filler directory made first (a run of one fs has
 * none yet), then more inode fillers, then space. */
static int fill_one(struct backend *b, int target, uint64_t bytes, uint64_t inodes,
                    struct free_counts *fc, struct free_counts *applied)
{
    if (applied->fill_failed)       /* it refused the filler at set-up (eq_give_up) */
        return 0;
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = equalize_inodes(b->rootfd, 0);
    if (rc == 0)
        rc = free_counts(b->rootfd, fc);
    uint64_t more = inodes != UINT64_MAX && fc->inodes != UINT64_MAX && fc->inodes > inodes
                        ? fc->inodes - inodes : 0;
    if (rc == 0 && more && applied->inodes + more <= MAX_FILLER_INODES &&
        (rc = equalize_inodes(b->rootfd, more)) == 0)
        applied->inodes += more;
    if (rc == 0)
        rc = free_counts(b->rootfd, fc);
    if (rc == 0 && bytes != UINT64_MAX)
        rc = fill_space(b->rootfd, fc->bytes, bytes, applied);
    if (rc == 0 || errno == ENOSPC || errno == EFBIG)
        rc = free_counts(b->rootfd, fc);
    else if (target)
        rc = fill_refused(b, applied);
    if (rc < 0)
        snprintf(b->err, sizeof b->err, "%s: filling the device: %s", b->cfg->name,
                 strerror(errno));
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

int equalize_fill(struct backend **be, int n, uint64_t bytes, uint64_t inodes,
                  struct free_counts *fc, struct free_counts *applied)
{
    for (int i = 0; i < n; i++)
        if (fill_one(be[i], i > 0, bytes, inodes, &fc[i], &applied[i]) < 0)
            return -1;
    return 0;
}

int equalize_replay(int rootfd, const struct free_counts *applied)
{
    if (applied->root_set && equalize_root_again(rootfd, applied) < 0)
        return -1;
    if (applied->fill_failed)
        return 0;
    if (equalize_inodes(rootfd, applied->inodes) < 0 && errno != E2BIG)
        return -1;
    if (equalize_space(rootfd, applied->bytes, NULL) < 0)
        return -1;
    return take_slack(rootfd, applied->slack);
}
