/* Crash copies of a kernel fs's device: an instant's copy of its image, recovered on a second loop device, checked by the format's checker. */
#include "backend/crash_image.h"
#include "backend/device/image_check.h"
#include "backend/base/common.h"
#include "lib/system/helpers.h"
#include "engine/vocab/fsinfo.h"
#include "tree/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK CRASH_IMAGE_BLOCK
#define QUIET_WAIT 2.0          /* seconds a copy may wait for the device to go idle */

/* A file the copy is written to, on a loop device of its own, and the checker that may run on
 * it in a thread while the other slot's file is mounted. */
struct slot {
    int fd, loopnr;
    char path[1100], dev[32];
    pthread_t checker;
    int checking;               /* the thread runs (or ended and is not joined yet) */
    const char *cmd;            /* its checker command */
    double timeout;
    int rc;                     /* its verdict (bk_image_check_text) and why */
    char why[700];
    double took;                /* its seconds */
};

struct crash_image {
    struct backend *b;
    uint64_t size;
    size_t nblocks;
    unsigned char *buf;         /* the copy as taken */
    unsigned char *hole;        /* per block: 1 if the image file had a hole there */
    unsigned char *base, *base_hole;  /* crash_image_base: the image before a recorded step */
    int near_base;              /* buf is base but in the blocks crash_image_from_base_but is
                                   given (the step's writes landed nowhere else) */
    int live_fd;                /* b->image, read-only */
    int live_loop;              /* the loop device b is mounted from (for its I/O counters) */
    struct slot slot[2];
    int nslots, cur;            /* the slot the copy is written to and mounted from */
    int mounted;
    char mnt[1100];
    unsigned long mflags;
    char mdata[256];
};

/* ---- the live device's I/O counters ---- */

struct loop_search {
    const char *image;
    int found;
};

/* 1 (the search ends) when /sys/block's entry name is a loop device backed by the image. */
static int loop_backs_image(void *ctx, const char *name)
{
    struct loop_search *s = ctx;
    char file[4096];
    int nr = bk_loop_backing_file(name, file, sizeof file);
    if (nr >= 0 && strcmp(file, s->image) == 0)
        s->found = nr;
    return s->found >= 0;
}

/* The loop device whose backing file is image, or -1. */
static int loop_of(const char *image)
{
    struct loop_search s = { image, -1 };
    tree_dir_names("/sys/block", loop_backs_image, &s);
    return s.found;
}

/* Writes and discards completed, and requests in flight (/sys/block/loopN/stat). */
struct io_count {
    unsigned long long writes, discards, inflight;
};

static int io_count(int nr, struct io_count *c)
{
    char path[64];
    unsigned long long v[17] = { 0 };
    snprintf(path, sizeof path, "/sys/block/loop%d/stat", nr);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                   "%llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                   &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15], &v[16]);
    fclose(f);
    if (n < 11)
        return -1;
    *c = (struct io_count){ v[4], v[11], v[8] };
    return 0;
}

/* ---- reading and writing the copy ---- */

/* Reads the image's data regions into buf; its holes (never written) are only marked, so a
 * large sparse image costs what its data costs. */
static int read_image_into(struct crash_image *c, unsigned char *buf, unsigned char *hole)
{
    size_t pos = 0;
    memset(hole, 1, c->nblocks);
    while (pos < c->size) {
        off_t data = lseek(c->live_fd, (off_t)pos, SEEK_DATA), end;
        if (data < 0 && errno == ENXIO)
            break;
        end = data < 0 ? (off_t)c->size : lseek(c->live_fd, data, SEEK_HOLE);
        if (data < 0)
            data = (off_t)pos;                  /* no SEEK_DATA: read it all */
        if (end < 0 || (uint64_t)end > c->size)
            end = (off_t)c->size;
        size_t from = (size_t)data / BLOCK * BLOCK, to = ((size_t)end + BLOCK - 1) / BLOCK * BLOCK;
        to = to > c->size ? c->size : to;
        if (pread_all(c->live_fd, buf + from, to - from, (off_t)from) < 0)
            return -1;
        memset(hole + from / BLOCK, 0, (to - from + BLOCK - 1) / BLOCK);
        pos = to;
    }
    return 0;
}

static int read_image(struct crash_image *c)
{
    return read_image_into(c, c->buf, c->hole);
}

static int block_empty(const struct crash_image *c, size_t i)
{
    const unsigned char *p = c->buf + i * BLOCK;
    size_t len = (i + 1) * BLOCK > c->size ? c->size - i * BLOCK : BLOCK;
    return c->hole[i] || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/* Writes runs of non-empty blocks from buf to fd, whose range is all holes. */
static int write_blocks(const struct crash_image *c, int fd)
{
    for (size_t i = 0; i < c->nblocks;) {
        if (block_empty(c, i)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < c->nblocks && !block_empty(c, j))
            j++;
        size_t len = (j * BLOCK > c->size ? c->size : j * BLOCK) - i * BLOCK;
        if (pwrite_all(fd, c->buf + i * BLOCK, len, (off_t)(i * BLOCK)) < 0)
            return -1;
        i = j;
    }
    return 0;
}

/* ---- set-up ---- */

static int open_slot(struct crash_image *c, struct slot *sl, int k)
{
    struct backend *b = c->b;
    snprintf(sl->path, sizeof sl->path, BK_SHM_DIR "/metis-%s/%s.crash%s.img", b->run_id,
             b->cfg->name, k ? "2" : "");
    sl->fd = open(sl->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (sl->fd < 0 || ftruncate(sl->fd, (off_t)c->size) < 0)
        return bk_err(b, "crash setup", "cannot create %s: %s", sl->path, strerror(errno));
    sl->loopnr = bk_loop_attach(sl->fd, sl->path);
    if (sl->loopnr < 0)
        return bk_err(b, "crash setup", "cannot attach %s to a loop device: %s", sl->path,
                      strerror(errno));
    snprintf(sl->dev, sizeof sl->dev, "/dev/loop%d", sl->loopnr);
    return 0;
}

static int open_files(struct crash_image *c)
{
    struct backend *b = c->b;
    c->live_fd = open(b->image, O_RDONLY | O_CLOEXEC);
    if (c->live_fd < 0)
        return bk_err(b, "crash setup", "cannot open %s: %s", b->image, strerror(errno));
    for (int k = 0; k < c->nslots; k++)
        if (open_slot(c, &c->slot[k], k) < 0)
            return -1;
    if (mkdir(c->mnt, 0755) < 0 && errno != EEXIST)
        return bk_err(b, "crash setup", "cannot make %s: %s", c->mnt, strerror(errno));
    return 0;
}

static int setup(struct crash_image *c)
{
    struct backend *b = c->b;
    const struct fs_config *cfg = b->cfg;
    c->size = cfg->size ? cfg->size : fs_format_default_size(cfg->fstype);
    c->nblocks = (c->size + BLOCK - 1) / BLOCK;
    snprintf(c->mnt, sizeof c->mnt, "%s.crash", b->mnt);
    if (!(c->buf = malloc(c->size)) || !(c->hole = malloc(c->nblocks)))
        return bk_err(b, "crash setup", "out of memory for a %llu-byte copy",
                      (unsigned long long)c->size);
    if (bk_mount_opts(cfg->mount_opts, &c->mflags, c->mdata, sizeof c->mdata) < 0)
        return bk_err(b, "crash setup", "mount_opts too long");
    if (open_files(c) < 0)
        return -1;
    if ((c->live_loop = loop_of(b->image)) < 0)
        return bk_err(b, "crash setup", "no loop device has %s attached", b->image);
    return 0;
}

struct crash_image *crash_image_open(struct backend *b, int two)
{
    struct crash_image *c = calloc(1, sizeof *c);
    if (!c) {
        bk_err(b, "crash setup", "out of memory");
        return NULL;
    }
    c->b = b;
    c->live_fd = c->live_loop = -1;
    c->nslots = two ? 2 : 1;
    for (int k = 0; k < 2; k++)
        c->slot[k].fd = c->slot[k].loopnr = -1;
    if (setup(c) == 0)
        return c;
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    crash_image_close(c);
    memcpy(b->err, err, sizeof err);
    return NULL;
}

/* ext2/3/4 superblock: magic 0xEF53 at 1024 + 0x38, s_feature_compat at 1024 + 0x5C, whose
 * bit 0x4 is has_journal. */
int crash_image_has_journal(struct crash_image *c)
{
    unsigned char sb[0x60];
    const char *t = c->b->cfg->fstype;
    if (strcmp(t, "ext2") && strcmp(t, "ext3") && strcmp(t, "ext4"))
        return 1;
    if (pread_all(c->live_fd, sb, sizeof sb, 1024) < 0)
        return bk_err(c->b, "crash setup", "cannot read the superblock of %s: %s",
                      c->b->image, strerror(errno));
    if (sb[0x38] != 0x53 || sb[0x39] != 0xEF)
        return bk_err(c->b, "crash setup", "%s holds no ext2/3/4 superblock", c->b->image);
    return (sb[0x5C] & 0x4) != 0;
}

/* ---- the copy ---- */

int crash_image_copy(struct crash_image *c)
{
    struct io_count before, after;
    double end = now_seconds() + QUIET_WAIT, pause = 1e-4;
    for (;;) {
        if (io_count(c->live_loop, &before) < 0)
            return bk_err(c->b, "crash copy", "cannot read the counters of loop%d", c->live_loop);
        /* A copy is an instant's only if no write was in flight or completed meanwhile. */
        if (before.inflight == 0) {
            c->near_base = 0;
            if (read_image(c) < 0)
                return bk_err(c->b, "crash copy", "reading %s: %s", c->b->image, strerror(errno));
            if (io_count(c->live_loop, &after) == 0 && after.inflight == 0 &&
                after.writes == before.writes && after.discards == before.discards)
                return 0;
        }
        if (now_seconds() > end)
            return bk_err(c->b, "crash copy", "loop%d never stayed idle for %.0f s", c->live_loop,
                          QUIET_WAIT);
        bk_sleep(pause);
        pause = pause < 0.01 ? pause * 2 : pause;
    }
}

/* ---- states built from a recorded stream ---- */

int crash_image_base(struct crash_image *c)
{
    if ((!c->base && !(c->base = malloc(c->size))) ||
        (!c->base_hole && !(c->base_hole = malloc(c->nblocks))))
        return bk_err(c->b, "crash base", "out of memory for a %llu-byte copy",
                      (unsigned long long)c->size);
    c->near_base = 0;
    if (read_image_into(c, c->base, c->base_hole) < 0)
        return bk_err(c->b, "crash base", "reading %s: %s", c->b->image, strerror(errno));
    return 0;
}

void crash_image_from_base(struct crash_image *c)
{
    if (!c->base)
        return;
    memcpy(c->buf, c->base, c->size);
    memcpy(c->hole, c->base_hole, c->nblocks);
    c->near_base = 1;
}

void crash_image_from_base_but(struct crash_image *c, const size_t *blocks, size_t n)
{
    if (!c->near_base) {
        crash_image_from_base(c);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = blocks[k];
        if (i >= c->nblocks)
            continue;
        size_t at = i * BLOCK, len = at + BLOCK > c->size ? c->size - at : BLOCK;
        memcpy(c->buf + at, c->base + at, len);
        c->hole[i] = c->base_hole[i];
    }
}

/* A block once a hole now holds zeros first, then what lands in it. */
static void fill_holes(struct crash_image *c, uint64_t off, uint64_t len)
{
    for (uint64_t i = off / BLOCK; i < (off + len + BLOCK - 1) / BLOCK && i < c->nblocks; i++)
        if (c->hole[i]) {
            uint64_t at = i * BLOCK, n = at + BLOCK > c->size ? c->size - at : BLOCK;
            memset(c->buf + at, 0, n);
            c->hole[i] = 0;
        }
}

void crash_image_write(struct crash_image *c, uint64_t off, const void *data, uint64_t len)
{
    if (off >= c->size)
        return;
    len = off + len > c->size ? c->size - off : len;
    fill_holes(c, off, len);
    if (data)
        memcpy(c->buf + off, data, len);
    else
        memset(c->buf + off, 0, len);
}

int crash_image_key(struct crash_image *c, const size_t *blocks, size_t n,
                    unsigned char key[CRASH_IMAGE_KEY])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (size_t k = 0; k < n && ok; k++) {
        size_t i = blocks[k];
        if (i >= c->nblocks)
            continue;
        size_t len = (i + 1) * BLOCK > c->size ? c->size - i * BLOCK : BLOCK;
        /* A hole and a block of zeros mount alike, but they are told apart all the same. */
        ok = EVP_DigestUpdate(ctx, &c->hole[i], 1) &&
             (c->hole[i] || EVP_DigestUpdate(ctx, c->buf + i * BLOCK, len));
    }
    ok = ok && EVP_DigestFinal_ex(ctx, key, NULL);
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : bk_err(c->b, "crash key", "sha256 of the copy's blocks failed");
}

int crash_image_store(struct crash_image *c)
{
    struct slot *sl = &c->slot[c->cur];
    if (sl->checking)
        return bk_err(c->b, "crash mount", "%s is still being checked", sl->path);
    if (fallocate(sl->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)c->size) < 0 ||
        write_blocks(c, sl->fd) < 0)
        return bk_err(c->b, "crash mount", "writing %s: %s", sl->path, strerror(errno));
    return 0;
}

int crash_image_mount(struct crash_image *c, int ro, int *rootfd, char *why, size_t len)
{
    struct backend *b = c->b;
    *rootfd = -1;
    const char *dev = c->slot[c->cur].dev;
    if (mount(dev, c->mnt, b->cfg->fstype, c->mflags | (ro ? MS_RDONLY : 0),
              c->mdata[0] ? c->mdata : NULL) < 0) {
        snprintf(why, len, "mount %s (%s) of the copy: %s", dev, b->cfg->fstype, strerror(errno));
        return 1;
    }
    c->mounted = 1;
    *rootfd = open(c->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*rootfd >= 0)
        return 0;
    snprintf(why, len, "cannot open the copy's root %s: %s", c->mnt, strerror(errno));
    crash_image_umount(c, -1);
    return 1;
}

int crash_image_umount(struct crash_image *c, int rootfd)
{
    if (rootfd >= 0)
        close(rootfd);
    if (!c->mounted)
        return 0;
    c->mounted = 0;
    if (bk_unmount(c->mnt, 1.0) < 0)
        return bk_err(c->b, "crash umount", "%s stayed busy (detached lazily)", c->mnt);
    return 0;
}

int crash_image_fsck(struct crash_image *c, const char *checker, char *why, size_t len)
{
    return bk_image_check(c->b, checker, c->slot[c->cur].path, why, len);
}

static void *check_slot(void *arg)
{
    struct slot *sl = arg;
    double t = now_seconds();
    sl->rc = bk_image_check_text(sl->timeout, sl->cmd, sl->path, sl->why, sizeof sl->why);
    sl->took = now_seconds() - t;
    return NULL;
}

int crash_image_fsck_start(struct crash_image *c, const char *checker)
{
    struct slot *sl = &c->slot[c->cur];
    int k = c->cur;
    if (sl->checking)
        return bk_err(c->b, "crash check", "%s is being checked already", sl->path);
    sl->cmd = checker;
    sl->timeout = bk_setup_timeout(c->b);
    /* Signals stay the main thread's: its handlers and the calls they interrupt are there. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&sl->checker, NULL, check_slot, sl);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err)
        return bk_err(c->b, "crash check", "no thread for the checker: %s", strerror(err));
    sl->checking = 1;
    c->cur = (c->cur + 1) % c->nslots;
    return k;
}

int crash_image_fsck_wait(struct crash_image *c, int slot, char *why, size_t len, double *ran)
{
    if (slot < 0 || slot >= c->nslots || !c->slot[slot].checking)
        return 0;
    struct slot *sl = &c->slot[slot];
    pthread_join(sl->checker, NULL);
    sl->checking = 0;
    if (ran)
        *ran = sl->took;
    if (sl->rc < 0)
        return bk_err(c->b, "image check", "%s", sl->why);
    if (sl->rc > 0 && why)
        snprintf(why, len, "%s", sl->why);
    return sl->rc;
}

int crash_image_save(struct crash_image *c, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return bk_err(c->b, "crash save", "%s: %s", path, strerror(errno));
    int rc = ftruncate(fd, (off_t)c->size) < 0 || write_blocks(c, fd) < 0 ? -1 : 0;
    if (close(fd) < 0 || rc < 0)
        return bk_err(c->b, "crash save", "writing %s: %s", path, strerror(errno));
    return 0;
}

void crash_image_close(struct crash_image *c)
{
    if (!c)
        return;
    if (c->mounted || bk_is_mounted(c->mnt))
        bk_unmount(c->mnt, 1.0);
    for (int k = 0; k < 2; k++) {
        struct slot *sl = &c->slot[k];
        if (sl->checking)
            pthread_join(sl->checker, NULL);
        if (sl->loopnr >= 0)
            bk_loop_detach(sl->loopnr);
        if (sl->fd >= 0) {
            close(sl->fd);
            unlink(sl->path);
        }
    }
    if (c->live_fd >= 0)
        close(c->live_fd);
    if (c->mnt[0])
        rmdir(c->mnt);
    free(c->buf);
    free(c->hole);
    free(c->base);
    free(c->base_hole);
    free(c);
}
