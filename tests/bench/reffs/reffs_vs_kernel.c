/* Randomized differential test: seeded data calls on two files in RefFS (a mount, or the library in-process) and on a kernel file system, compared after every call. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reffs.h"

#define BLK 4096
#define MAXSIZE 0xFFFFFFFF000LL     /* RefFS's and 4 KiB-block ext4's maximum file size */
#define SPAN (16 * BLK)             /* offsets fall mostly below this */
#define SIZE_CAP (256 * 1024)       /* a file past this is cut down by the next call */
#define BUF_CAP (1 << 20)           /* no file ever gets bigger than this */
#define HISTORY 12

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

/* Either two open files (a mount or the reference) or two library inodes. */
struct side {
    const char *name;
    int fd[2];
    struct reffs *fs;
    reffs_ino ino[2];
};

enum kind { K_WRITE, K_TRUNC, K_FALLOC, K_COPY, K_COUNT };
static const char *kind_name[K_COUNT] = { "write", "truncate", "fallocate", "copy_range" };

struct call {
    enum kind kind;
    int file, file2, mode;
    off_t off, off2, len;
};

struct opts {
    long calls;
    uint64_t seed;
    const char *set;      /* tmpfs, fuse or all: the fallocate modes drawn */
    int blocks;           /* compare st_blocks too */
    int specials;         /* negative and near-maximum offsets (same maximum on both sides) */
    int snapshots;        /* library: a snapshot taken now and then must not change */
};

static uint64_t rng;
static unsigned char *wbuf, *buf_a, *buf_b;
static char history[HISTORY][160];
static long outcomes[K_COUNT][3];   /* [kind][ok, ENOSPC, other errors] */

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t below(uint64_t n)
{
    return n ? next() % n : 0;
}

/* ---- one call on one side ---- */

static long sys_ret(long r)
{
    return r < 0 ? -errno : r;
}

static long side_write(struct side *s, const struct call *c)
{
    if (s->fs)
        return reffs_write(s->fs, s->ino[c->file], wbuf, c->len, c->off);
    return sys_ret(pwrite(s->fd[c->file], wbuf, c->len, c->off));
}

static long side_truncate(struct side *s, const struct call *c)
{
    if (!s->fs)
        return sys_ret(ftruncate(s->fd[c->file], c->off));
    struct reffs_setattr sa = { .valid = REFFS_SET_SIZE, .size = c->off };
    struct stat st;
    return reffs_setattr(s->fs, s->ino[c->file], &sa, &st);
}

static long side_fallocate(struct side *s, const struct call *c)
{
    if (s->fs)
        return reffs_fallocate(s->fs, s->ino[c->file], c->mode, c->off, c->len);
    return sys_ret(fallocate(s->fd[c->file], c->mode, c->off, c->len));
}

static long side_copy(struct side *s, const struct call *c)
{
    if (s->fs)
        return reffs_copy_range(s->fs, s->ino[c->file], c->off, s->ino[c->file2], c->off2,
                                (size_t)c->len, 0);
    loff_t in = c->off, out = c->off2;
    return sys_ret(copy_file_range(s->fd[c->file], &in, s->fd[c->file2], &out, (size_t)c->len, 0));
}

static long side_do(struct side *s, const struct call *c)
{
    switch (c->kind) {
    case K_WRITE: return side_write(s, c);
    case K_TRUNC: return side_truncate(s, c);
    case K_FALLOC: return side_fallocate(s, c);
    default: return side_copy(s, c);
    }
}

static int side_stat(struct side *s, int i, struct stat *st)
{
    if (s->fs)
        return reffs_getattr(s->fs, s->ino[i], st);
    return fstat(s->fd[i], st) < 0 ? -errno : 0;
}

static long side_read(struct side *s, int i, unsigned char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        long r = s->fs ? reffs_read(s->fs, s->ino[i], buf + done, n - done, done)
                       : sys_ret(pread(s->fd[i], buf + done, n - done, done));
        if (r <= 0)
            return r < 0 ? r : (long)done;
        done += r;
    }
    return (long)done;
}

/* ---- drawing calls ---- */

/* Mostly below SPAN, often block-aligned, sometimes around EOF; with specials also negative
 * or near the maximum size. */
static off_t draw_off(const struct opts *o, off_t size)
{
    uint64_t r = below(100);
    if (r < 45)
        return (off_t)below(SPAN / BLK + 1) * BLK;
    if (r < 85)
        return (off_t)below(SPAN + 1);
    if (r < 97 || !o->specials) {
        off_t near = size + (off_t)below(2 * BLK) - BLK;
        return near > 0 ? near : 0;
    }
    return r == 97 ? -(off_t)below(3) - 1 : MAXSIZE - (off_t)below(2 * BLK);
}

static off_t draw_len(void)
{
    uint64_t r = below(100);
    if (r < 40)
        return (off_t)(1 + below(8)) * BLK;
    if (r < 92)
        return (off_t)(1 + below(4 * BLK));
    return r < 96 ? 0 : (off_t)below(16 * BLK);
}

/* The modes of a set; the last entries are ones every side refuses alike. */
static int draw_mode(const char *set)
{
    static const int tmpfs_modes[] = { 0, 1, 3, 3, 3, 2, 0x41, 0x09 };
    static const int fuse_modes[] = { 0, 1, 3, 3, 0x10, 0x11, 0x10, 2, 0x09, 0x13 };
    static const int all_modes[] = { 0, 1, 3, 3, 0x10, 0x11, 0x08, 0x08, 0x20, 0x20, 0x08, 0x20,
                                     2, 0x09, 0x21, 0x40, FALLOC_FL_WRITE_ZEROES, 0x13 };
    if (!strcmp(set, "tmpfs"))
        return tmpfs_modes[below(sizeof tmpfs_modes / sizeof *tmpfs_modes)];
    if (!strcmp(set, "fuse"))
        return fuse_modes[below(sizeof fuse_modes / sizeof *fuse_modes)];
    return all_modes[below(sizeof all_modes / sizeof *all_modes)];
}

/* A punch that passes the block holding EOF frees blocks beyond it on tmpfs, not on ext4 or
 * RefFS: when block counts are compared with tmpfs, punches stop there. */
static void clamp_punch(struct call *c, off_t size)
{
    off_t limit = (size + BLK - 1) / BLK * BLK;
    if (limit == 0) {
        c->len = 0;   /* an empty file: any range would free KEEP_SIZE blocks on tmpfs only */
        return;
    }
    if (c->off >= limit)
        c->off = (off_t)below(limit);
    if (c->len == 0 || c->len > limit - c->off)
        c->len = limit - c->off;
}

/* Calls at the maximum size must fail on both sides, never grow a 16 TiB file; a copy there
 * copies something, or the kernel would answer 0 before a FUSE file system is asked. */
static void keep_small(struct call *c, const off_t size[2])
{
    off_t far = SPAN * 4;
    if (c->kind == K_WRITE && c->off > far)
        c->off = MAXSIZE + (off_t)below(BLK);
    if (c->kind == K_TRUNC && c->off > far)
        c->off = MAXSIZE + 1 + (off_t)below(BLK);
    if (c->kind == K_FALLOC && c->off > far && c->off + c->len <= MAXSIZE)
        c->len = MAXSIZE - c->off + 1 + (off_t)below(BLK);
    if (c->kind == K_COPY && c->off > far)
        c->off = 0;
    if (c->kind == K_COPY && c->off2 > far) {
        c->off2 = size[c->file] > 0 ? MAXSIZE + (off_t)below(BLK) : 0;
        c->off = (off_t)below(size[c->file]);
        c->len = 1 + (off_t)below(BLK);
    }
}

static void draw(const struct opts *o, const off_t size[2], struct call *c)
{
    memset(c, 0, sizeof *c);
    uint64_t r = below(100);
    c->kind = r < 25 ? K_WRITE : r < 35 ? K_TRUNC : r < 80 ? K_FALLOC : K_COPY;
    c->file = (int)below(2);
    c->off = draw_off(o, size[c->file]);
    c->len = draw_len();
    if (size[c->file] > SIZE_CAP) {
        c->kind = K_TRUNC;
        c->off = (off_t)below(SPAN);
    }
    if (c->kind == K_TRUNC && c->off >= 0 && c->off <= SPAN * 4)   /* half of them grow files */
        c->off = below(2) ? c->off : c->off + c->len;
    if (c->kind == K_FALLOC)
        c->mode = draw_mode(o->set);
    if (c->kind == K_FALLOC && (c->mode & 2) && o->blocks)
        clamp_punch(c, size[c->file]);
    if (c->kind == K_COPY) {
        c->file2 = below(3) ? 1 - c->file : c->file;
        c->off2 = draw_off(o, size[c->file2]);
    }
    keep_small(c, size);
}

static void describe(const struct call *c, char *out, size_t n)
{
    if (c->kind == K_COPY)
        snprintf(out, n, "copy_file_range(f%d, %jd, f%d, %jd, %jd)", c->file, (intmax_t)c->off,
                 c->file2, (intmax_t)c->off2, (intmax_t)c->len);
    else if (c->kind == K_FALLOC)
        snprintf(out, n, "fallocate(f%d, %#x, %jd, %jd)", c->file, c->mode, (intmax_t)c->off,
                 (intmax_t)c->len);
    else if (c->kind == K_TRUNC)
        snprintf(out, n, "ftruncate(f%d, %jd)", c->file, (intmax_t)c->off);
    else
        snprintf(out, n, "pwrite(f%d, %jd bytes, %jd)", c->file, (intmax_t)c->len, (intmax_t)c->off);
}

/* ---- comparing ---- */

static void report_history(long callno)
{
    fprintf(stderr, "last calls:\n");
    for (long k = callno - HISTORY + 1; k <= callno; k++)
        if (k >= 1)
            fprintf(stderr, "  %ld: %s\n", k, history[k % HISTORY]);
}

static const char *ret_text(long r, char *tmp)
{
    if (r >= 0)
        sprintf(tmp, "%ld", r);
    else
        sprintf(tmp, "-%s", strerrorname_np((int)-r) ? strerrorname_np((int)-r) : "?");
    return tmp;
}

static int differ(const struct opts *o, long callno, const char *what)
{
    fprintf(stderr, "DIFFERENCE seed %" PRIu64 " call %ld: %s\n  %s\n", o->seed, callno,
            history[callno % HISTORY], what);
    report_history(callno);
    return 1;
}

static int compare_file(const struct opts *o, struct side *a, struct side *b, int i, long callno,
                        off_t *size)
{
    char msg[256];
    struct stat sa, sb;
    if (side_stat(a, i, &sa) || side_stat(b, i, &sb))
        return differ(o, callno, "stat failed");
    if (sa.st_size != sb.st_size || sa.st_size > BUF_CAP) {
        snprintf(msg, sizeof msg, "f%d size: %s %jd, %s %jd", i, a->name, (intmax_t)sa.st_size,
                 b->name, (intmax_t)sb.st_size);
        return differ(o, callno, msg);
    }
    if (o->blocks && sa.st_blocks != sb.st_blocks) {
        snprintf(msg, sizeof msg, "f%d st_blocks: %s %jd, %s %jd", i, a->name,
                 (intmax_t)sa.st_blocks, b->name, (intmax_t)sb.st_blocks);
        return differ(o, callno, msg);
    }
    long na = side_read(a, i, buf_a, sa.st_size), nb = side_read(b, i, buf_b, sb.st_size);
    if (na != sa.st_size || nb != sb.st_size)
        return differ(o, callno, "short read-back");
    if (memcmp(buf_a, buf_b, sa.st_size) == 0) {
        *size = sa.st_size;
        return 0;
    }
    for (off_t k = 0; k < sa.st_size; k++)
        if (buf_a[k] != buf_b[k]) {
            snprintf(msg, sizeof msg, "f%d byte %jd: %s %#x, %s %#x", i, (intmax_t)k, a->name,
                     buf_a[k], b->name, buf_b[k]);
            return differ(o, callno, msg);
        }
    return differ(o, callno, "data differs");
}

/* ---- snapshots of the library side ---- */

#define SNAP_EVERY 97     /* calls between two snapshots */
#define SNAP_CHECK 41     /* calls after a snapshot when it is checked */

static unsigned char *snap_data[2];
static off_t snap_size[2];

static void snap_take(struct side *a)
{
    reffs_snapshot_save(a->fs, 1);
    for (int i = 0; i < 2; i++) {
        struct stat st;
        side_stat(a, i, &st);
        snap_size[i] = st.st_size;
        side_read(a, i, snap_data[i], st.st_size);
    }
}

/* Restores the snapshot, compares it with what the files held then, and goes back. */
static int snap_check(const struct opts *o, struct side *a, long callno)
{
    int bad = reffs_snapshot_save(a->fs, 2) || reffs_snapshot_restore(a->fs, 1, NULL);
    for (int i = 0; i < 2 && !bad; i++) {
        struct stat st;
        bad = side_stat(a, i, &st) || st.st_size != snap_size[i] ||
              side_read(a, i, buf_a, st.st_size) != st.st_size ||
              memcmp(buf_a, snap_data[i], st.st_size) != 0;
    }
    bad |= reffs_snapshot_restore(a->fs, 2, NULL) != 0;
    reffs_snapshot_discard(a->fs, 1);
    reffs_snapshot_discard(a->fs, 2);
    return bad ? differ(o, callno, "the snapshot of the library side changed since it was taken") : 0;
}

static int snap_step(const struct opts *o, struct side *a, long callno)
{
    if (!o->snapshots || !a->fs)
        return 0;
    if (callno % SNAP_EVERY == 0)
        snap_take(a);
    else if (callno % SNAP_EVERY == SNAP_CHECK && callno > SNAP_EVERY)
        return snap_check(o, a, callno);
    return 0;
}

/* Runs one call on both sides; non-zero at the first difference. */
static int step(const struct opts *o, struct side *a, struct side *b, long callno, off_t size[2])
{
    struct call c;
    draw(o, size, &c);
    describe(&c, history[callno % HISTORY], sizeof history[0]);
    if (c.kind == K_WRITE)
        for (off_t k = 0; k < c.len; k++)
            wbuf[k] = (unsigned char)next();
    long ra = side_do(a, &c), rb = side_do(b, &c);
    outcomes[c.kind][ra >= 0 ? 0 : ra == -ENOSPC ? 1 : 2]++;
    if (ra != rb) {
        char msg[200], t1[40], t2[40];
        snprintf(msg, sizeof msg, "returned: %s %s, %s %s", a->name, ret_text(ra, t1), b->name,
                 ret_text(rb, t2));
        return differ(o, callno, msg);
    }
    return compare_file(o, a, b, 0, callno, &size[0]) ||
           compare_file(o, a, b, 1, callno, &size[1]) || snap_step(o, a, callno);
}

/* ---- setup ---- */

static int open_pair(struct side *s, const char *dir)
{
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        unlink(path);
        s->fd[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (s->fd[i] < 0) {
            perror(path);
            return -1;
        }
    }
    return 0;
}

static int lib_pair(struct side *s, uint64_t capacity, const char *mutation)
{
    struct reffs_limits lim = { .capacity = capacity, .mutation = mutation };
    s->fs = reffs_create(&lim);
    if (!s->fs) {
        perror("reffs_create");
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        struct reffs_entry e;
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        if (reffs_mknod(s->fs, REFFS_ROOT_INO, name, S_IFREG | 0644, 0, 0, 0, &e) < 0)
            return -1;
        s->ino[i] = e.st.st_ino;
    }
    return 0;
}

static void print_summary(const struct opts *o, const char *label, long calls, double secs)
{
    printf("%s: %ld calls, seed %" PRIu64 ", clean, %.0f calls/s (", label, calls, o->seed,
           secs > 0 ? calls / secs : 0.0);
    for (int k = 0; k < K_COUNT; k++)
        printf("%s%s %ld ok %ld ENOSPC %ld other errors", k ? "; " : "", kind_name[k],
               outcomes[k][0], outcomes[k][1], outcomes[k][2]);
    printf(")\n");
}

static void usage(void)
{
    fprintf(stderr,
            "usage: reffs_vs_kernel [-n CALLS] [-s SEED] [-m tmpfs|fuse|all] [-b] [-x] [-S]\n"
            "         (-r REFFS_DIR | -l [-c CAPACITY] [-M MUTATION]) [-L LABEL] KERNEL_DIR\n"
            "  -r: RefFS through a mount; -l: the RefFS library in this process\n"
            "  -m: fallocate modes drawn: tmpfs's, those FUSE forwards, or all of ext4's\n"
            "  -b: compare st_blocks too; -x: also negative and near-maximum offsets\n"
            "  -S: (library) check now and then that a snapshot stays as it was taken\n");
}

static int parse(int argc, char **argv, struct opts *o, const char **rdir, int *lib,
                 uint64_t *cap, const char **mut, const char **label)
{
    int ch;
    while ((ch = getopt(argc, argv, "n:s:m:bxSr:lc:M:L:")) != -1) {
        switch (ch) {
        case 'n': o->calls = atol(optarg); break;
        case 's': o->seed = strtoull(optarg, NULL, 0); break;
        case 'm': o->set = optarg; break;
        case 'b': o->blocks = 1; break;
        case 'x': o->specials = 1; break;
        case 'S': o->snapshots = 1; break;
        case 'r': *rdir = optarg; break;
        case 'l': *lib = 1; break;
        case 'c': *cap = strtoull(optarg, NULL, 0); break;
        case 'M': *mut = optarg; break;
        case 'L': *label = optarg; break;
        default: return -1;
        }
    }
    if (optind != argc - 1 || (!*rdir == !*lib) || o->calls <= 0)
        return -1;
    if (strcmp(o->set, "tmpfs") && strcmp(o->set, "fuse") && strcmp(o->set, "all"))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = { .calls = 20000, .seed = 1, .set = "tmpfs" };
    const char *rdir = NULL, *mut = NULL, *label = "reffs_vs_kernel";
    int lib = 0;
    uint64_t cap = 64 << 20;
    if (parse(argc, argv, &o, &rdir, &lib, &cap, &mut, &label) < 0) {
        usage();
        return 2;
    }
    struct side a = { .name = "reffs" }, b = { .name = "kernel" };
    if ((lib ? lib_pair(&a, cap, mut) : open_pair(&a, rdir)) < 0 || open_pair(&b, argv[optind]) < 0)
        return 2;
    wbuf = malloc(BUF_CAP);
    buf_a = malloc(BUF_CAP);
    buf_b = malloc(BUF_CAP);
    snap_data[0] = malloc(BUF_CAP);
    snap_data[1] = malloc(BUF_CAP);
    rng = o.seed * 0x9E3779B97F4A7C15ULL + 1;
    off_t size[2] = { 0, 0 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long n = 1; n <= o.calls; n++)
        if (step(&o, &a, &b, n, size))
            return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    print_summary(&o, label, o.calls, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
