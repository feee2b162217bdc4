/* Equalizes free inodes and free space across the file systems before a run, so ENOSPC falls at
 * the same point on each: fillers in a root directory that the abstraction leaves out.
 * Functions on one fs return 0 or -1 with errno (EFBIG, ENOSPC and E2BIG tell how far a fill
 * got); those over backends 0 or -1 with the message in the failing b->err. */
#include "backend/logical/states/equalize.h"
#include "tree/digest.h"
#include "tree/tree.h"
#include "backend/base/backend_types.h"
#include "engine/config/config.h"
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Set-up messages are said once per run: a later search makes the same set-up again. */
static int quiet;

void equalize_quiet(int on)
{
    quiet = on;
}

void equalize_tell(const char *fmt, ...)
{
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

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

/* ---- the roots ---- */

/* The attributes set-up makes alike: those no [fs] lacks leaves out of the state. A lacked one
 * is never set: a target that lacks owners may well refuse a chown of its root (ENOSYS). */
static unsigned root_attrs(const struct backend *b)
{
    unsigned ig = b->cfg->lacks_ignore;
    return (ig & TREE_IGNORE_MODE ? 0u : ROOT_ATTR_MODE) |
           (ig & TREE_IGNORE_OWNER ? 0u : ROOT_ATTR_OWNER);
}

/* A dead daemon's answers are its failure, not a refusal of the attribute. */
static int daemon_gone_errno(int err)
{
    return err == ENOTCONN || err == ECONNABORTED || err == ENODEV;
}

/* chown before chmod: a chown may clear set-id bits the mode then restores. Each attribute on
 * its own, so that one refused leaves the other set; *refused gets the refused ones, *err the
 * last errno. */
static unsigned set_root(int rootfd, unsigned attrs, const struct stat *want, int *err)
{
    unsigned refused = 0;
    if ((attrs & ROOT_ATTR_OWNER) && fchown(rootfd, want->st_uid, want->st_gid) < 0) {
        refused |= ROOT_ATTR_OWNER;
        *err = errno;
    }
    if ((attrs & ROOT_ATTR_MODE) && fchmod(rootfd, want->st_mode & 07777) < 0) {
        refused |= ROOT_ATTR_MODE;
        *err = errno;
    }
    return refused;
}

static int root_stat(struct backend *b, struct stat *st)
{
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = fstat(b->rootfd, st);
    if (rc < 0)
        snprintf(b->err, sizeof b->err, "%s: reading the root's attributes: %s", b->cfg->name,
                 strerror(errno));
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

/* The attributes of attrs in which a and b differ. */
static unsigned root_differs(const struct stat *a, const struct stat *b, unsigned attrs)
{
    unsigned d = 0;
    if ((a->st_mode & 07777) != (b->st_mode & 07777))
        d |= ROOT_ATTR_MODE;
    if (a->st_uid != b->st_uid || a->st_gid != b->st_gid)
        d |= ROOT_ATTR_OWNER;
    return d & attrs;
}

static void note_root(struct free_counts *applied, const struct stat *st, unsigned attrs)
{
    applied->root_set = 1;
    applied->root_attrs |= attrs;
    applied->root_mode = st->st_mode & 07777;
    applied->root_uid = st->st_uid;
    applied->root_gid = st->st_gid;
}

/* Sets attrs of b's root to want's, then reads them back (after an end and a begin): a daemon
 * may answer a chmod of its root and keep its own mode all the same (cryfs). *refused: the
 * attributes the fs refused (errno in *err); a dead daemon's answer is a failure instead. */
static int set_root_checked(struct backend *b, unsigned attrs, const struct stat *want,
                            struct stat *got, unsigned *refused, int *err)
{
    if (b->ops->begin(b) < 0)
        return -1;
    *refused = set_root(b->rootfd, attrs, want, err);
    int failed = *refused && daemon_gone_errno(*err);
    if (failed)
        snprintf(b->err, sizeof b->err, "%s: setting the root's attributes: %s", b->cfg->name,
                 strerror(*err));
    if (b->ops->end(b) < 0 || failed)
        return -1;
    return root_stat(b, got);
}

/* "mode 0700", "owner 0:0", "mode 0700 and owner 0:0": attrs of st. */
static void attrs_text(unsigned attrs, const struct stat *st, char *out, size_t len)
{
    char mode[32] = "", owner[48] = "";
    if (attrs & ROOT_ATTR_MODE)
        snprintf(mode, sizeof mode, "mode %04o", (unsigned)(st->st_mode & 07777));
    if (attrs & ROOT_ATTR_OWNER)
        snprintf(owner, sizeof owner, "owner %u:%u", (unsigned)st->st_uid,
                 (unsigned)st->st_gid);
    snprintf(out, len, "%s%s%s", mode, mode[0] && owner[0] ? " and " : "", owner);
}

/* The `lacks` words that declare attrs: "modes", "owners", "owners,modes". */
static const char *lacks_words(unsigned attrs)
{
    return attrs == ROOT_ATTR_MODE ? "modes" : attrs == ROOT_ATTR_OWNER ? "owners" : "owners,modes";
}

/* What set-up adapts to, said exactly, as it is done. */
static void tell_adapted(const struct backend *b, const struct stat *ref, const struct stat *now,
                         const struct root_adapt *a)
{
    char kept[96], was[96], refused[96], theirs[96];
    if (a->kept) {
        attrs_text(a->kept, now, kept, sizeof kept);
        attrs_text(a->kept, ref, was, sizeof was);
        equalize_tell("metis: %s: its root kept %s after it was set to the reference's %s (the "
                      "fs ignores it): the reference's root gets the fs's instead; a class of its "
                      "own, and the run goes on\n", b->cfg->name, kept, was);
    }
    if (a->refused) {
        attrs_text(a->refused, ref, was, sizeof was);
        attrs_text(a->refused, now, theirs, sizeof theirs);
        snprintf(refused, sizeof refused, "%s", strerror(a->err));
        equalize_tell("metis: %s: setting its root's %s (the reference's) failed: %s; no [fs] "
                      "lacks declares it (lacks = %s would, and set-up would not set it): the "
                      "reference's root gets the fs's %s instead; a class of its own, and the run "
                      "goes on\n", b->cfg->name, was, refused, lacks_words(a->refused), theirs);
    }
}

static void record_adapt(struct root_adapt *a, unsigned kept, unsigned refused,
                         const struct stat *ref, const struct stat *now)
{
    a->kept = kept;
    a->refused = refused;
    a->ref_mode = ref->st_mode & 07777;
    a->ref_uid = ref->st_uid;
    a->ref_gid = ref->st_gid;
    a->now_mode = now->st_mode & 07777;
    a->now_uid = now->st_uid;
    a->now_gid = now->st_gid;
}

/* A target that keeps or refuses root attributes (which): the reference takes the target's
 * instead, since the run goes on from there; what was adapted to is in applied->adapt. */
static int root_to_target(struct backend *ref, struct backend *b, struct stat *ref_st,
                          const struct stat *now, unsigned which, struct free_counts *applied,
                          struct free_counts *ref_applied)
{
    struct stat want = *ref_st, got;
    unsigned refused;
    int err = 0;
    tell_adapted(b, ref_st, now, &applied->adapt);
    if (which & ROOT_ATTR_MODE)
        want.st_mode = now->st_mode;
    if (which & ROOT_ATTR_OWNER) {
        want.st_uid = now->st_uid;
        want.st_gid = now->st_gid;
    }
    if (set_root_checked(ref, which, &want, &got, &refused, &err) < 0)
        return -1;
    if (refused || root_differs(&got, &want, which)) {
        char text[96];
        attrs_text(which, now, text, sizeof text);
        snprintf(b->err, sizeof b->err, "%s: its root keeps %s and the reference's root does "
                 "not take them either%s%s: the roots cannot be made alike", b->cfg->name, text,
                 refused ? ": " : "", refused ? strerror(err) : "");
        return -1;
    }
    note_root(ref_applied, &got, which);
    *ref_st = got;
    return 0;
}

/* fs i's root made like ref's, read back; the difference told on stderr, as it is made before
 * any step. */
static int root_like(struct backend *ref, struct backend *b, struct stat *ref_st,
                     struct free_counts *applied, struct free_counts *ref_applied)
{
    struct stat st, now;
    unsigned attrs = root_attrs(b), refused = 0;
    int err = 0;
    if (root_stat(b, &st) < 0)
        return -1;
    applied->adapt.nlink = (unsigned long long)st.st_nlink;
    attrs = root_differs(&st, ref_st, attrs);     /* only those that differ are set */
    if (!attrs)
        return 0;
    if (set_root_checked(b, attrs, ref_st, &now, &refused, &err) < 0)
        return -1;
    unsigned kept = root_differs(&now, ref_st, attrs) & ~refused;
    unsigned set = attrs & ~(kept | refused);
    if (set) {
        equalize_tell("metis: %s: root set to the reference's: mode %04o -> %04o, owner %u:%u -> "
                      "%u:%u\n", b->cfg->name, (unsigned)(st.st_mode & 07777),
                      (unsigned)(now.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
                      (unsigned)now.st_uid, (unsigned)now.st_gid);
        note_root(applied, &now, set);
    }
    if (!(kept | refused))
        return 0;
    record_adapt(&applied->adapt, kept, refused, ref_st, &now);
    applied->adapt.err = err;
    return root_to_target(ref, b, ref_st, &now, kept | refused, applied, ref_applied);
}

int equalize_root(struct backend **be, int n, struct free_counts *applied)
{
    struct stat ref;
    if (n < 2 || root_stat(be[0], &ref) < 0)
        return n < 2 ? 0 : -1;
    applied[0].adapt.nlink = (unsigned long long)ref.st_nlink;
    /* Twice when a target gave the reference its root: the targets before it are set again. */
    for (int pass = 0; pass < 2 && (pass == 0 || applied[0].root_set); pass++)
        for (int i = 1; i < n; i++)
            if (root_like(be[0], be[i], &ref, &applied[i], &applied[0]) < 0)
                return -1;
    return 0;
}

int equalize_root_again(int rootfd, const struct free_counts *applied)
{
    struct stat want;
    int err = 0;
    memset(&want, 0, sizeof want);
    want.st_mode = applied->root_mode;
    want.st_uid = applied->root_uid;
    want.st_gid = applied->root_gid;
    if (set_root(rootfd, applied->root_attrs, &want, &err) == 0)
        return 0;
    errno = err;
    return -1;
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
