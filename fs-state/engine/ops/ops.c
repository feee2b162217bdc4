/* The operation table: how each operation draws its arguments, runs confined below a mount root, and is logged. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/input/choose.h"
#include "lib/system/beneath.h"
#include "lib/text/buf.h"
#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"
#include "engine/input/view.h"

/* The text form's key of each OPF_* bit, in bit order. */
#define NFIELDS OPF_COUNT
static const char *const field_key[NFIELDS] = {
    "path", "path2", "flags", "mode", "off", "size", "uid", "gid", "xname", "seed",
    "off2", "rdev", "mtime",
};

#define UID_KEEP ((uint32_t)-1)

/* ---------- confinement helpers (lib/system/beneath.h) ---------- */

/* The target of a path, following a final symlink, as an O_PATH fd confined below rootfd. */
static int open_target(int rootfd, const char *path)
{
    return beneath_open(rootfd, path + 1, O_PATH, 0);
}

/* The parent directory of path as an O_PATH fd; *last points at the last component inside buf. */
static int open_parent(int rootfd, const char *path, char *buf, const char **last)
{
    return beneath_parent(rootfd, path, buf, METIS_PATH_MAX, last);
}

/* ---------- deterministic data ---------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void op_fill_bytes(uint64_t seed, void *buf, size_t len)
{
    unsigned char *p = buf;
    uint64_t state = seed;
    while (len >= 8) {
        uint64_t v = splitmix64(&state);
        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t v = splitmix64(&state);
        memcpy(p, &v, len);
    }
}

/* A reusable buffer for write data and xattr values, one per thread: concurrent steps make
 * calls from several threads at once (together.c). */
static __thread struct buf thread_data;

static void *data_buffer(uint64_t seed, size_t len)
{
    struct buf *b = &thread_data;
    if (buf_reserve(b, len))
        return NULL;
    op_fill_bytes(seed, (unsigned char *)b->p, len);
    return b->p ? b->p : (void *)"";
}

void op_thread_done(void)
{
    buf_free(&thread_data);
}

/* ---------- exec: each call resolves its operands, then acts on them ---------- */

/* A call's resolution failed: its act reports it. */
static void hold_failed(struct op_hold *h)
{
    h->failed = 1;
    h->err = errno ? errno : EIO;
}

static void resolve_none(int rootfd, const struct op_args *a, struct op_hold *h)
{
}

/* The operand itself, a final symlink followed, as an O_PATH descriptor. */
static void resolve_target(int rootfd, const struct op_args *a, struct op_hold *h)
{
    if ((h->fd[0] = open_target(rootfd, a->path)) < 0)
        hold_failed(h);
}

/* The directory the call makes or removes a name in. */
static void resolve_parent(int rootfd, const struct op_args *a, struct op_hold *h)
{
    if ((h->fd[0] = open_parent(rootfd, a->path, h->name[0], &h->last[0])) < 0)
        hold_failed(h);
}

/* Both directories of a rename. */
static void resolve_two_parents(int rootfd, const struct op_args *a, struct op_hold *h)
{
    if ((h->fd[0] = open_parent(rootfd, a->path, h->name[0], &h->last[0])) < 0 ||
        (h->fd[1] = open_parent(rootfd, a->path2, h->name[1], &h->last[1])) < 0)
        hold_failed(h);
}

/* A link's directories and its source itself (not followed), in the order linkat looks
 * them up: the link then acts on the inode found here, as the kernel's own lookup would. */
static void resolve_link(int rootfd, const struct op_args *a, struct op_hold *h)
{
    resolve_two_parents(rootfd, a, h);
    if (!h->failed &&
        (h->fd[2] = openat(h->fd[0], h->last[0], O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
        hold_failed(h);
}

/* A write opens the file as drawn (no O_CREAT): what the open may change comes first. */
static void resolve_write_file(int rootfd, const struct op_args *a, struct op_hold *h)
{
    errno = EFBIG;
    if (a->size > METIS_WRITE_MAX ||
        (h->fd[0] = beneath_open(rootfd, a->path + 1, (unsigned)a->flags, a->mode)) < 0)
        hold_failed(h);
}

static void resolve_fallocate_file(int rootfd, const struct op_args *a, struct op_hold *h)
{
    if ((h->fd[0] = beneath_open(rootfd, a->path + 1, O_RDWR, 0)) < 0)
        hold_failed(h);
}

/* The name is looked up (and made) in the directory resolved first, as the kernel does under
 * that directory's lock; confined below it, as symlink targets only go down. */
static long act_create_file(const struct op_args *a, struct op_hold *h)
{
    int fd = beneath_open(h->fd[0], h->last[0], (unsigned)a->flags | O_CREAT, a->mode);
    return fd < 0 ? -1 : beneath_close(fd, 0);
}

static long act_write_file(const struct op_args *a, struct op_hold *h)
{
    void *data = data_buffer(a->data_seed, a->size);
    return data ? pwrite(h->fd[0], data, a->size, (off_t)a->offset) : -1;
}

static long act_truncate(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    return truncate(beneath_fd_path(h->fd[0], p, sizeof p), (off_t)a->size);
}

static long act_chmod(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    return chmod(beneath_fd_path(h->fd[0], p, sizeof p), a->mode);
}

static long act_chown_file(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    return chown(beneath_fd_path(h->fd[0], p, sizeof p), a->uid, UID_KEEP);
}

static long act_chgrp_file(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    return chown(beneath_fd_path(h->fd[0], p, sizeof p), UID_KEEP, a->gid);
}

static long act_unlink(const struct op_args *a, struct op_hold *h)
{
    return unlinkat(h->fd[0], h->last[0], 0);
}

static long act_mkdir(const struct op_args *a, struct op_hold *h)
{
    return mkdirat(h->fd[0], h->last[0], a->mode);
}

static long act_rmdir(const struct op_args *a, struct op_hold *h)
{
    return unlinkat(h->fd[0], h->last[0], AT_REMOVEDIR);
}

static long act_rename(const struct op_args *a, struct op_hold *h)
{
    return renameat2(h->fd[0], h->last[0], h->fd[1], h->last[1], (unsigned)a->flags);
}

static long act_link(const struct op_args *a, struct op_hold *h)
{
    return linkat(h->fd[2], "", h->fd[1], h->last[1], AT_EMPTY_PATH);
}

static long act_symlink(const struct op_args *a, struct op_hold *h)
{
    return symlinkat(a->path2, h->fd[0], h->last[0]);
}

static long act_setxattr(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    /* Sizes beyond the kernel's limit are rejected (E2BIG) before it reads the value. */
    size_t have = a->size > METIS_XATTR_VALUE_MAX ? 0 : a->size;
    void *value = data_buffer(a->data_seed, have);
    if (!value)
        return -1;
    return setxattr(beneath_fd_path(h->fd[0], p, sizeof p), a->xname, value, a->size, a->flags);
}

static long act_removexattr(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    return removexattr(beneath_fd_path(h->fd[0], p, sizeof p), a->xname);
}

/* ---------- draw: arguments from the pool and the weighted partitions ---------- */

/* A pool directory other than the root (a file when the pool has no directories). */
static const char *pool_dir(struct input *in)
{
    if (in->pool.ndirs == 0)
        return input_file(in);
    return in->pool.dirs[rng_below(&in->rng, in->pool.ndirs)];
}

static void set_path(char *dst, const char *src)
{
    snprintf(dst, METIS_PATH_MAX, "%s", src);
}

/* A path of kind w from the reference's tree (choose.c), else from the pool; the first path
 * of an operation is counted in the coverage of existing-path draws. */
static void draw_path(char *dst, struct input *in, enum path_want w,
                      const char *(*from_pool)(struct input *), int first)
{
    const char *p = choose_path(in, w);
    if (first)
        in->last_existing = p != NULL;
    set_path(dst, p ? p : from_pool(in));
}

int op_boundary_offset(const struct metis_config *cfg, enum arg_kind off, enum arg_kind len,
                       uint64_t offset, uint64_t size, uint64_t j, uint64_t *moved)
{
    uint64_t bound = config_part_high(&cfg->part[off]) + config_part_high(&cfg->part[len]);
    uint64_t end = (offset + size) / 4096 * 4096;
    if (end < size)                             /* the first boundary this size can reach */
        end = (size + 4095) / 4096 * 4096;
    if (end + j < 1 || end + j - 1 < size || end + j - 1 > bound)
        return -1;
    *moved = end + j - 1 - size;
    return 0;
}

/* With the configured weight, moves the offset so that offset + size lands on a multiple of
 * 4096, or one byte either side: block-boundary ends are where file systems split and merge
 * extents, and a range draw hits one about once in 4096. The end stays within the sizing
 * rule's bound for this kind (offset high + size high), else the draw is kept as it was. */
static void end_on_boundary(struct input *in, enum arg_kind off, enum arg_kind len,
                            struct op_args *a)
{
    double w = in->cfg->end_boundary[off];
    if (w <= 0 || rng_unit(&in->rng) >= w)
        return;
    uint64_t j = rng_below(&in->rng, 3), moved;
    if (op_boundary_offset(in->cfg, off, len, a->offset, a->size, j, &moved) < 0) {
        in->cov.paths.ends_refused[off]++;
        return;
    }
    a->offset = moved;
    in->cov.paths.ends[off][j]++;
}

/* An append is honoured while the file's size on the reference plus the write stays within
 * the sizing rule's per-file bound, so ENOSPC still falls at the same point on every fs;
 * otherwise (or with the size unknown) the write stays a positioned one. The offset logged
 * is where the append lands (ops.h). */
int op_place_append(struct input *in, struct op_args *a)
{
    const struct view_entry *e = choose_regular(in, a->path);
    uint64_t at = (a->flags & O_TRUNC) ? 0 : e ? e->size : 0;
    if (!e || at > in->file_bound || a->size > in->file_bound - at) {
        in->cov.paths.appends_in_place++;
        return 0;
    }
    a->flags |= O_APPEND;
    a->offset = at;
    in->cov.paths.appends++;
    return 1;
}

static void draw_create_file(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_NEW_FILE, input_file, 1);
    a->flags = (int)(input_bitmap(in, BM_OPEN_FLAGS) | O_CREAT);
    a->mode = input_bitmap(in, BM_MODE);
}

/* A write opens for writing: the drawn flags without creation, the access mode forced writable,
 * and O_APPEND only as op_place_append allows: appends grow a file along a search path, and past
 * the sizing rule's bound the two sides would meet ENOSPC at different points. */
static void draw_write_file(struct input *in, struct op_args *a)
{
    unsigned f = input_bitmap(in, BM_OPEN_FLAGS);
    unsigned acc = (f & O_ACCMODE) == O_RDWR ? O_RDWR : O_WRONLY;
    draw_path(a->path, in, PW_FILE, input_file, 1);
    a->flags = (int)((f & ~(unsigned)(O_CREAT | O_EXCL | O_APPEND | O_ACCMODE | __O_TMPFILE)) | acc);
    a->offset = input_value(in, ARG_WRITE_OFFSET);
    a->size = input_value(in, ARG_WRITE_SIZE);
    if (!((f & O_APPEND) && op_place_append(in, a)))
        end_on_boundary(in, ARG_WRITE_OFFSET, ARG_WRITE_SIZE, a);
    a->data_seed = rng_next(&in->rng);
}

static void draw_truncate(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_FILE, input_file, 1);
    a->size = input_value(in, ARG_TRUNC_SIZE);
}

/* The range of a fallocate in mode 0 or KEEP_SIZE: what it drew before the other modes. */
static void draw_falloc_range(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_FILE, input_file, 1);
    a->flags = rng_below(&in->rng, 2) ? FALLOC_FL_KEEP_SIZE : 0;
    a->offset = input_value(in, ARG_FALLOC_OFFSET);
    a->size = input_value(in, ARG_FALLOC_LEN);
    end_on_boundary(in, ARG_FALLOC_OFFSET, ARG_FALLOC_LEN, a);
}

static void draw_chmod(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_ENTRY, input_any_path, 1);
    a->mode = input_bitmap(in, BM_MODE);
}

static void draw_chown_file(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_ENTRY, input_any_path, 1);
    a->uid = input_uid(in);
}

static void draw_chgrp_file(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_ENTRY, input_any_path, 1);
    a->gid = input_gid(in);
}

static void draw_unlink(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_NONDIR, input_any_path, 1);
}

static void draw_mkdir(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_NEW_DIR, pool_dir, 1);
    a->mode = input_bitmap(in, BM_MODE);
}

static void draw_rmdir(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_DIR, input_any_path, 1);
}

static void draw_rename(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_RENAME_SRC, input_any_path, 1);
    draw_path(a->path2, in, PW_RENAME_DST, input_any_path, 0);
    uint64_t r = rng_below(&in->rng, 10);
    a->flags = r == 8 ? RENAME_NOREPLACE : r == 9 ? RENAME_EXCHANGE : 0;
    /* A flag a fs of the run lacks ([fs] lacks) is never drawn: a plain rename takes its
     * share, and the flag's draw is made as before, so a run without lacks draws the same. */
    if ((in->cfg->lacked_variants >> op_variant_find(OP_rename, (unsigned)a->flags)) & 1)
        a->flags = 0;
    const char *dst = choose_rename_dst(in, a->path, a->path2, a->flags == RENAME_EXCHANGE);
    if (dst != a->path2)
        set_path(a->path2, dst);
}

static void draw_link(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_LINK_SRC, input_any_path, 1);
    draw_path(a->path2, in, PW_NEW_FILE, input_any_path, 0);
}

const char *op_path_below(const char *p, const char *dir, size_t dlen)
{
    if (strncmp(p, dir, dlen) != 0 || p[dlen] != '/')
        return NULL;
    return p + dlen + 1;
}

/* Symlink targets only go down from the link's directory (or name it, "."), so they never escape. */
static void draw_symlink(struct input *in, struct op_args *a)
{
    const struct name_pool *pl = &in->pool;
    draw_path(a->path, in, PW_NEW_ANY, input_any_path, 1);
    size_t dlen = (size_t)(strrchr(a->path, '/') - a->path);
    int n = 1;
    for (int i = 0; i < pl->ndirs + pl->nfiles; i++) {
        const char *p = i < pl->ndirs ? pl->dirs[i] : pl->files[i - pl->ndirs];
        n += op_path_below(p, a->path, dlen) != NULL;
    }
    uint64_t k = rng_below(&in->rng, (uint64_t)n);
    set_path(a->path2, ".");
    for (int i = 0; k > 0 && i < pl->ndirs + pl->nfiles; i++) {
        const char *p = i < pl->ndirs ? pl->dirs[i] : pl->files[i - pl->ndirs];
        const char *rel = op_path_below(p, a->path, dlen);
        if (rel && --k == 0)
            set_path(a->path2, rel);
    }
}

static void draw_setxattr(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_ENTRY, input_any_path, 1);
    snprintf(a->xname, sizeof a->xname, "%s", input_xattr(in));
    a->size = input_value(in, ARG_XATTR_SIZE);
    a->data_seed = rng_next(&in->rng);
    uint64_t r = rng_below(&in->rng, 5);
    a->flags = r == 3 ? XATTR_CREATE : r == 4 ? XATTR_REPLACE : 0;
}

static void draw_removexattr(struct input *in, struct op_args *a)
{
    draw_path(a->path, in, PW_ENTRY, input_any_path, 1);
    snprintf(a->xname, sizeof a->xname, "%s", input_xattr(in));
}

/* ---------- fallocate's modes, copy_range, mknod, open_unlink, utimes ---------- */

static uint64_t insert_cap = UINT64_MAX;

void op_set_insert_cap(uint64_t bytes)
{
    insert_cap = bytes;
}

uint64_t op_insert_cap(void)
{
    return insert_cap;
}

void op_align_range(uint64_t *offset, uint64_t *size, uint64_t unit)
{
    if (!unit)
        return;
    *offset -= *offset % unit;
    if (*size % unit && *size <= UINT64_MAX - unit)
        *size += unit - *size % unit;
}

/* The range as before, then the mode by the falloc_mode choice; the modes other than 0 and
 * KEEP_SIZE align their range as often as falloc_align says, since collapse and insert refuse
 * ranges that are not whole blocks (and punch and zero differ inside partial blocks). */
static void draw_fallocate_file(struct input *in, struct op_args *a)
{
    draw_falloc_range(in, a);
    int v = input_choice(in, CH_FALLOC_MODE);
    a->flags = v < 0 ? 0 : (int)op_variant_value(v);
    if ((a->flags & ~FALLOC_FL_KEEP_SIZE) && rng_unit(&in->rng) < in->cfg->falloc_align_prob)
        op_align_range(&a->offset, &a->size, in->cfg->falloc_align);
}

/* An insert past the run's per-file bound would let a search path grow a file without end. */
static int insert_past_cap(int fd, const struct op_args *a)
{
    struct stat st;
    return (a->flags & FALLOC_FL_INSERT_RANGE) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
           (uint64_t)st.st_size + a->size > insert_cap;
}

static long act_fallocate_file(const struct op_args *a, struct op_hold *h)
{
    if (insert_past_cap(h->fd[0], a)) {
        errno = EFBIG;
        return -1;
    }
    return fallocate(h->fd[0], a->flags, (off_t)a->offset, (off_t)a->size);
}

static void draw_copy_range(struct input *in, struct op_args *a)
{
    set_path(a->path, input_file(in));
    set_path(a->path2, input_file(in));
    a->offset = input_value(in, ARG_COPY_OFFSET);
    a->offset2 = input_value(in, ARG_COPY_OFFSET);
    a->size = input_value(in, ARG_COPY_LEN);
}

/* copy_file_range may copy less than asked (xfs shares whole blocks only when it remaps), so
 * it is called again, as cp does, until the range is done or the source ends: the outcome is
 * the bytes copied, the same on every file system. */
static long copy_all(int in, int out, const struct op_args *a)
{
    off_t off_in = (off_t)a->offset, off_out = (off_t)a->offset2;
    uint64_t left = a->size, total = 0;
    while (left > 0) {
        size_t chunk = left > METIS_WRITE_MAX ? METIS_WRITE_MAX : (size_t)left;
        ssize_t n = copy_file_range(in, &off_in, out, &off_out, chunk, 0);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        total += (uint64_t)n;
        left -= (uint64_t)n;
    }
    return (long)total;
}

/* Several calls (opens, then copies until done): no resolution of its own before it acts. */
static long act_copy_range(const struct op_args *a, struct op_hold *h)
{
    int rootfd = h->root;
    int in = beneath_open(rootfd, a->path + 1, O_RDONLY, 0);
    if (in < 0)
        return -1;
    int out = beneath_open(rootfd, a->path2 + 1, O_WRONLY, 0);
    if (out < 0)
        return beneath_close(in, -1);
    long ret = copy_all(in, out, a);
    beneath_close(out, 0);
    return beneath_close(in, ret);
}

/* Device numbers of majors 60-63, which Linux keeps for local experiments: no driver claims
 * them, so opening such a node fails (ENXIO) instead of reaching a device of the host. */
static void draw_mknod(struct input *in, struct op_args *a)
{
    set_path(a->path, input_file(in));
    int v = input_choice(in, CH_MKNOD_TYPE);
    a->flags = v < 0 ? S_IFIFO : (int)op_variant_value(v);
    a->mode = input_bitmap(in, BM_MODE);
    if (a->flags == S_IFCHR || a->flags == S_IFBLK)
        a->rdev = makedev(60 + (unsigned)rng_below(&in->rng, 4), (unsigned)rng_below(&in->rng, 4));
}

static long act_mknod(const struct op_args *a, struct op_hold *h)
{
    mode_t mode = ((mode_t)a->flags & S_IFMT) | (a->mode & 07777);
    return mknodat(h->fd[0], h->last[0], mode, (dev_t)a->rdev);
}

static void draw_open_unlink(struct input *in, struct op_args *a)
{
    set_path(a->path, input_file(in));
    a->flags = rng_below(&in->rng, 2) ? OU_TRUNCATE : OU_WRITE;
    if (a->flags == OU_TRUNCATE) {
        a->size = input_value(in, ARG_TRUNC_SIZE);
        return;
    }
    a->offset = input_value(in, ARG_WRITE_OFFSET);
    a->size = input_value(in, ARG_WRITE_SIZE);
    a->data_seed = rng_next(&in->rng);
}

/* What open_unlink does through its fd once the name is gone. */
static long through_fd(int fd, const struct op_args *a)
{
    if (a->flags == OU_TRUNCATE)
        return ftruncate(fd, (off_t)a->size);
    if (a->flags != OU_WRITE) {
        errno = EINVAL;
        return -1;
    }
    if (a->size > METIS_WRITE_MAX) {
        errno = EFBIG;
        return -1;
    }
    void *data = data_buffer(a->data_seed, a->size);
    return data ? pwrite(fd, data, a->size, (off_t)a->offset) : -1;
}

/* Opens a file, unlinks the name it was opened by, writes or truncates through the fd and
 * closes it. The inode must live until the close; its other links, if any, show the result,
 * and without them it must vanish (which only free space would show: not compared). */
static long act_open_unlink(const struct op_args *a, struct op_hold *h)
{
    int rootfd = h->root;
    char buf[METIS_PATH_MAX];
    const char *last;
    int fd = beneath_open(rootfd, a->path + 1, O_RDWR, 0);
    if (fd < 0)
        return -1;
    int dfd = open_parent(rootfd, a->path, buf, &last);
    if (dfd < 0)
        return beneath_close(fd, -1);
    long ret = unlinkat(dfd, last, 0);
    beneath_close(dfd, 0);
    if (ret == 0)
        ret = through_fd(fd, a);
    return beneath_close(fd, ret);
}

/* Whole seconds well before any clock a run has (tree/line.c records mtimes before 2017
 * exactly, later ones as "now"), or now; whole, since 128-byte ext2/ext4 inodes keep no
 * nanoseconds. */
static const int64_t utimes_secs[] = { 0, 1000000000, 1234567890, 1400000000 };

void op_utimes_pick(unsigned k, struct op_args *a)
{
    a->mtime_sec = k < 4 ? utimes_secs[k] : 0;
    a->mtime_nsec = k < 4 ? 0 : UTIME_NOW;
}

static void draw_utimes(struct input *in, struct op_args *a)
{
    set_path(a->path, input_any_path(in));
    op_utimes_pick((unsigned)rng_below(&in->rng, OP_UTIMES_CHOICES), a);
}

/* Sets the mtime of a path (following a final symlink); the atime is left alone. */
static long act_utimes(const struct op_args *a, struct op_hold *h)
{
    char p[64];
    struct timespec ts[2] = { { 0, UTIME_OMIT }, { (time_t)a->mtime_sec, a->mtime_nsec } };
    return utimensat(AT_FDCWD, beneath_fd_path(h->fd[0], p, sizeof p), ts, 0);
}

int op_variant_of(const struct op_args *a)
{
    return op_variant_find(a->op, (unsigned)a->flags);
}

/* ---------- the table ---------- */

/* The fields each operation uses (its text form); a row below needs one per operation. */
enum {
    FIELDS_create_file    = OPF_PATH | OPF_FLAGS | OPF_MODE,
    FIELDS_write_file     = OPF_PATH | OPF_FLAGS | OPF_OFF | OPF_SIZE | OPF_SEED,
    FIELDS_truncate       = OPF_PATH | OPF_SIZE,
    FIELDS_fallocate_file = OPF_PATH | OPF_FLAGS | OPF_OFF | OPF_SIZE,
    FIELDS_chmod          = OPF_PATH | OPF_MODE,
    FIELDS_chown_file     = OPF_PATH | OPF_UID,
    FIELDS_chgrp_file     = OPF_PATH | OPF_GID,
    FIELDS_unlink         = OPF_PATH,
    FIELDS_mkdir          = OPF_PATH | OPF_MODE,
    FIELDS_rmdir          = OPF_PATH,
    FIELDS_rename         = OPF_PATH | OPF_PATH2 | OPF_FLAGS,
    FIELDS_link           = OPF_PATH | OPF_PATH2,
    FIELDS_symlink        = OPF_PATH | OPF_PATH2,
    FIELDS_setxattr       = OPF_PATH | OPF_XNAME | OPF_SIZE | OPF_SEED | OPF_FLAGS,
    FIELDS_removexattr    = OPF_PATH | OPF_XNAME,
    FIELDS_copy_range     = OPF_PATH | OPF_PATH2 | OPF_OFF | OPF_SIZE | OPF_OFF2,
    FIELDS_mknod          = OPF_PATH | OPF_FLAGS | OPF_MODE | OPF_RDEV,
    FIELDS_open_unlink    = OPF_PATH | OPF_FLAGS | OPF_OFF | OPF_SIZE | OPF_SEED,
    FIELDS_utimes         = OPF_PATH | OPF_MTIME,
};

/* What each operation resolves before it acts: the calls' operands, opened first. */
#define resolve_create_file resolve_parent
#define resolve_truncate resolve_target
#define resolve_chmod resolve_target
#define resolve_chown_file resolve_target
#define resolve_chgrp_file resolve_target
#define resolve_unlink resolve_parent
#define resolve_mkdir resolve_parent
#define resolve_rmdir resolve_parent
#define resolve_rename resolve_two_parents
#define resolve_symlink resolve_parent
#define resolve_setxattr resolve_target
#define resolve_removexattr resolve_target
#define resolve_copy_range resolve_none
#define resolve_mknod resolve_parent
#define resolve_open_unlink resolve_none
#define resolve_utimes resolve_target

/* One row per operation of METIS_OPS, named after it: an operation without its draw_NAME,
 * resolve_NAME, act_NAME or FIELDS_NAME does not compile. */
static const struct op_desc op_table[OP_COUNT] = {
#define OP_ROW(n) [OP_##n] = { draw_##n, resolve_##n, act_##n, FIELDS_##n },
    METIS_OPS(OP_ROW)
#undef OP_ROW
};

const struct op_desc *op_desc_of(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? &op_table[op] : NULL;
}

void op_draw(enum op_id op, struct input *in, struct op_args *a)
{
    memset(a, 0, sizeof *a);
    a->op = op;
    in->last_op = op;
    in->last_existing = 0;
    op_table[op].draw(in, a);
    in->cov.paths.draws[op]++;
    in->cov.paths.existing[op] += (uint64_t)in->last_existing;
}

/* ---------- validation shared by exec and parse ---------- */

static int bad_char(unsigned char c)
{
    return c < 0x20 || c == 0x7f || c == ' ';
}

/* Components separated by single '/', none empty, ".", or containing "..". */
static const char *check_components(const char *p)
{
    if (strstr(p, ".."))
        return "contains '..'";
    if (p[0] == '/' || strstr(p, "//"))
        return "has an empty component";
    for (const char *c = p; *c; c++)
        if (bad_char((unsigned char)*c))
            return "contains a space or control character";
    size_t n = strlen(p);
    if (n == 0 || p[n - 1] == '/')
        return "has an empty component";
    if (strcmp(p, ".") == 0 || strncmp(p, "./", 2) == 0 || strstr(p, "/./") ||
        (n >= 2 && strcmp(p + n - 2, "/.") == 0))
        return "has a '.' component";
    return NULL;
}

static const char *check_path(const char *p)
{
    if (p[0] != '/')
        return "does not start with '/'";
    if (p[1] == '\0')
        return "names the root";
    return check_components(p + 1);
}

/* Symlink targets are relative and only go down; "." (the link's own directory) is allowed. */
static const char *check_target(const char *t)
{
    if (t[0] == '/')
        return "is absolute";
    if (strcmp(t, ".") == 0)
        return NULL;
    return check_components(t);
}

static const char *check_xname(const char *x)
{
    if (!*x)
        return "is empty";
    for (const char *c = x; *c; c++)
        if (bad_char((unsigned char)*c))
            return "contains a space or control character";
    return NULL;
}

static const char *check_args(const struct op_args *a, const char **which)
{
    unsigned f = op_table[a->op].fields;
    const char *why = NULL;
    if ((f & OPF_PATH) && (why = check_path(a->path)))
        *which = "path";
    else if ((f & OPF_PATH2) && (why = a->op == OP_symlink ? check_target(a->path2)
                                                        : check_path(a->path2)))
        *which = "path2";
    else if ((f & OPF_XNAME) && (why = check_xname(a->xname)))
        *which = "xname";
    return why;
}

void op_resolve(int rootfd, const struct op_args *a, struct op_hold *h)
{
    const char *which;
    h->root = rootfd;
    h->fd[0] = h->fd[1] = h->fd[2] = -1;
    h->failed = 0;
    errno = EINVAL;
    if ((unsigned)a->op >= OP_COUNT || memchr(a->path, 0, sizeof a->path) == NULL ||
        memchr(a->path2, 0, sizeof a->path2) == NULL || memchr(a->xname, 0, sizeof a->xname) == NULL ||
        check_args(a, &which)) {
        /* Never reached from op_draw or op_parse; refusing keeps a corrupt request confined. */
        hold_failed(h);
        return;
    }
    errno = 0;
    op_table[a->op].resolve(rootfd, a, h);
}

void op_act(const struct op_args *a, struct op_hold *h, struct op_result *r)
{
    if (h->failed) {
        *r = (struct op_result){ -1, h->err };
        return;
    }
    errno = 0;
    long ret = op_table[a->op].act(a, h);
    r->ret = ret;
    r->err = ret < 0 ? (errno ? errno : EIO) : 0;
}

void op_release(struct op_hold *h)
{
    for (int i = 0; i < 3; i++)
        if (h->fd[i] >= 0)
            close(h->fd[i]);
    h->fd[0] = h->fd[1] = h->fd[2] = -1;
}

void op_exec(int rootfd, const struct op_args *a, struct op_result *r)
{
    struct op_hold h;
    op_resolve(rootfd, a, &h);
    op_act(a, &h, r);
    op_release(&h);
}

/* ---------- text form ---------- */

struct out { char *buf; size_t len, pos; int overflow; };

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->pos < o->len ? o->len - o->pos : 0;
    int n = vsnprintf(o->buf + (room ? o->pos : 0), room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room)
        o->overflow = 1;
    else
        o->pos += (size_t)n;
}

/* "now", or whole and nanoseconds: "1234567890.000000000". */
static void put_mtime(struct out *o, const struct op_args *a)
{
    if (a->mtime_nsec == UTIME_NOW)
        put(o, "now");
    else
        put(o, "%" PRId64 ".%09ld", a->mtime_sec, a->mtime_nsec);
}

static void put_field(struct out *o, const struct op_args *a, int i)
{
    put(o, " %s=", field_key[i]);
    switch (1u << i) {
    case OPF_PATH:  put(o, "%s", a->path); break;
    case OPF_PATH2: put(o, "%s", a->path2); break;
    case OPF_FLAGS: put(o, "0x%x", (unsigned)a->flags); break;
    case OPF_MODE:  put(o, "%#o", (unsigned)a->mode); break;
    case OPF_OFF:   put(o, "%" PRIu64, a->offset); break;
    case OPF_SIZE:  put(o, "%" PRIu64, a->size); break;
    case OPF_UID:   a->uid == UID_KEEP ? put(o, "-1") : put(o, "%" PRIu32, a->uid); break;
    case OPF_GID:   a->gid == UID_KEEP ? put(o, "-1") : put(o, "%" PRIu32, a->gid); break;
    case OPF_XNAME: put(o, "%s", a->xname); break;
    case OPF_SEED:  put(o, "0x%" PRIx64, a->data_seed); break;
    case OPF_OFF2:  put(o, "%" PRIu64, a->offset2); break;
    case OPF_RDEV:  put(o, "0x%" PRIx64, a->rdev); break;
    case OPF_MTIME: put_mtime(o, a); break;
    }
}

int op_format(const struct op_args *a, char *buf, size_t len)
{
    if ((unsigned)a->op >= OP_COUNT || len == 0)
        return -1;
    struct out o = { buf, len, 0, 0 };
    put(&o, "%s", op_name(a->op));
    for (int i = 0; i < NFIELDS; i++)
        if (op_table[a->op].fields & (1u << i))
            put_field(&o, a, i);
    if (o.overflow) {
        buf[0] = '\0';
        return -1;
    }
    return (int)o.pos;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Parses an unsigned number in base (0x prefix required for 16) up to max; 0 on success. */
static int parse_uint(const char *s, int base, uint64_t max, uint64_t *out)
{
    if (base == 16) {
        if (strncmp(s, "0x", 2) != 0)
            return -1;
        s += 2;
    } else if (base == 8 && s[0] != '0') {
        return -1;
    }
    if (*s == '\0')
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0'
              : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : 99;
        if (d >= base || v > (max - (uint64_t)d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return 0;
}

static int parse_id(const char *s, uint32_t *out)
{
    uint64_t v;
    if (strcmp(s, "-1") == 0) {
        *out = UID_KEEP;
        return 0;
    }
    if (parse_uint(s, 10, UID_KEEP - 1, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* The inverse of put_mtime: "now" or SECONDS.NNNNNNNNN (nine digits), seconds not negative. */
static int parse_mtime(const char *v, struct op_args *a)
{
    char sec[32];
    const char *dot = strchr(v, '.');
    uint64_t s, ns;
    if (strcmp(v, "now") == 0) {
        a->mtime_sec = 0;
        a->mtime_nsec = UTIME_NOW;
        return 0;
    }
    if (!dot || (size_t)(dot - v) >= sizeof sec || strlen(dot + 1) != 9)
        return -1;
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - v), v);
    if (parse_uint(sec, 10, INT64_MAX, &s) || parse_uint(dot + 1, 10, 999999999, &ns))
        return -1;
    a->mtime_sec = (int64_t)s;
    a->mtime_nsec = (long)ns;
    return 0;
}

static int parse_string(const char *v, char *dst, size_t cap)
{
    size_t n = strlen(v);
    if (n >= cap)
        return -1;
    memcpy(dst, v, n + 1);
    return 0;
}

static int parse_value(struct op_args *a, int i, const char *v)
{
    uint64_t n;
    switch (1u << i) {
    case OPF_PATH:  return parse_string(v, a->path, sizeof a->path);
    case OPF_PATH2: return parse_string(v, a->path2, sizeof a->path2);
    case OPF_XNAME: return parse_string(v, a->xname, sizeof a->xname);
    case OPF_FLAGS: if (parse_uint(v, 16, UINT32_MAX, &n)) return -1; a->flags = (int)(uint32_t)n; return 0;
    case OPF_MODE:  if (parse_uint(v, 8, 07777, &n)) return -1; a->mode = (mode_t)n; return 0;
    case OPF_OFF:   return parse_uint(v, 10, UINT64_MAX, &a->offset);
    case OPF_SIZE:  return parse_uint(v, 10, UINT64_MAX, &a->size);
    case OPF_UID:   return parse_id(v, &a->uid);
    case OPF_GID:   return parse_id(v, &a->gid);
    case OPF_SEED:  return parse_uint(v, 16, UINT64_MAX, &a->data_seed);
    case OPF_OFF2:  return parse_uint(v, 10, UINT64_MAX, &a->offset2);
    case OPF_RDEV:  return parse_uint(v, 16, UINT64_MAX, &a->rdev);
    case OPF_MTIME: return parse_mtime(v, a);
    }
    return -1;
}

static int field_index(const char *key, size_t klen)
{
    for (int i = 0; i < NFIELDS; i++)
        if (strlen(field_key[i]) == klen && strncmp(field_key[i], key, klen) == 0)
            return i;
    return -1;
}

/* Parses one "key=value" token into a; seen collects the fields given so far. */
static int parse_token(char *tok, struct op_args *a, unsigned *seen, char *err, size_t errlen)
{
    char *eq = strchr(tok, '=');
    if (!eq)
        return fail(err, errlen, "'%.40s' is not key=value", tok);
    int i = field_index(tok, (size_t)(eq - tok));
    if (i < 0)
        return fail(err, errlen, "unknown key '%.*s'", (int)(eq - tok) > 40 ? 40 : (int)(eq - tok), tok);
    if (!(op_table[a->op].fields & (1u << i)))
        return fail(err, errlen, "key '%s' is not used by %s", field_key[i], op_name(a->op));
    if (*seen & (1u << i))
        return fail(err, errlen, "duplicate key '%s'", field_key[i]);
    *seen |= 1u << i;
    if (parse_value(a, i, eq + 1))
        return fail(err, errlen, "bad value for '%s': '%.40s'", field_key[i], eq + 1);
    return 0;
}

int op_parse(const char *text, struct op_args *a, char *err, size_t errlen)
{
    char line[METIS_OP_LINE_MAX + 1];
    size_t n = strnlen(text, sizeof line);
    if (n >= sizeof line)
        return fail(err, errlen, "line longer than %d characters", METIS_OP_LINE_MAX);
    memcpy(line, text, n + 1);
    if (n && line[n - 1] == '\n')
        line[--n] = '\0';
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)line[k] < 0x20 || line[k] == 0x7f)
            return fail(err, errlen, "control character at column %zu", k + 1);
    memset(a, 0, sizeof *a);
    char *save = NULL, *tok = strtok_r(line, " ", &save);
    if (!tok)
        return fail(err, errlen, "empty line");
    int op = op_lookup(tok);
    if (op < 0)
        return fail(err, errlen, "unknown operation '%.40s'", tok);
    a->op = (enum op_id)op;
    unsigned seen = 0;
    while ((tok = strtok_r(NULL, " ", &save)))
        if (parse_token(tok, a, &seen, err, errlen))
            return -1;
    unsigned missing = op_table[op].fields & ~seen;
    if (missing)
        return fail(err, errlen, "missing field '%s'", field_key[__builtin_ctz(missing)]);
    const char *which = NULL, *why = check_args(a, &which);
    if (why)
        return fail(err, errlen, "%s %s", which, why);
    return 0;
}
