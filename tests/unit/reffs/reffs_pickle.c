/* Unit tests of RefFS pickles: round trips, validation errors, and a few hundred damaged files. */
#include <sys/mman.h>
#include <unistd.h>
#include "reffs_testutil.h"

static struct reffs *fs;
static void setup(void) { fs = t_fs(0, 0); }
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_pickle, .init = setup, .fini = teardown);

static int t_memfd(void)
{
    int fd = memfd_create("reffs-pickle-test", 0);
    cr_assert_geq(fd, 0);
    return fd;
}

static int t_memfd_with(const void *p, size_t n)
{
    int fd = t_memfd();
    cr_assert_eq(write(fd, p, n), (ssize_t)n);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* The bytes of a pickle of fs (all snapshots, or key). */
static unsigned char *t_pickle_bytes(struct reffs *f, int all, uint64_t key, size_t *len)
{
    int fd = t_memfd();
    cr_assert_eq(reffs_pickle(f, all, key, fd), 0);
    off_t n = lseek(fd, 0, SEEK_END);
    unsigned char *p = malloc(n);
    cr_assert_eq(pread(fd, p, n, 0), n);
    close(fd);
    *len = (size_t)n;
    return p;
}

static int t_load_bytes(struct reffs *f, const void *p, size_t n, int restore, uint64_t *first)
{
    int fd = t_memfd_with(p, n);
    int r = reffs_load(f, fd, restore, NULL, first);
    close(fd);
    return r;
}

Test(reffs_pickle, roundtrip_one_snapshot)
{
    t_populate(fs);
    char *want = t_dump_fs(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 7), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 7, &n);
    struct reffs *g = t_fs(0, 0);
    uint64_t first = 0;
    cr_assert_eq(t_load_bytes(g, p, n, 1, &first), 0);
    cr_assert_eq(first, 7);
    char *got = t_dump_fs(g);
    cr_assert_str_eq(want, got);
    struct reffs_snap_stats ss;
    reffs_snapshot_stats(g, &ss);
    cr_assert_eq(ss.count, 1);
    reffs_destroy(g);
    free(p);
    free(want);
    free(got);
}

Test(reffs_pickle, roundtrip_all_snapshots)
{
    char *want[3];
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    for (int i = 0; i < 3; i++) {
        char c = (char)('a' + i);
        t_write(fs, f, &c, 1, i * 5000);
        t_dir(fs, REFFS_ROOT_INO, (const char *[]){ "d0", "d1", "d2" }[i]);
        want[i] = t_dump_fs(fs);
        cr_assert_eq(reffs_snapshot_save(fs, 100 + i), 0);
    }
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 1, 0, &n);
    struct reffs *g = t_fs(0, 0);
    cr_assert_eq(t_load_bytes(g, p, n, 0, NULL), 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(reffs_snapshot_restore(g, 100 + i, NULL), 0);
        char *got = t_dump_fs(g);
        cr_assert_str_eq(want[i], got);
        free(got);
        free(want[i]);
    }
    reffs_destroy(g);
    free(p);
}

Test(reffs_pickle, load_without_restore_leaves_live_state)
{
    t_file(fs, REFFS_ROOT_INO, "x");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    struct reffs *g = t_fs(0, 0);
    cr_assert_eq(t_load_bytes(g, p, n, 0, NULL), 0);
    cr_assert_eq(t_lookup(g, REFFS_ROOT_INO, "x"), 0);
    cr_assert_eq(reffs_snapshot_restore(g, 1, NULL), 0);
    cr_assert_neq(t_lookup(g, REFFS_ROOT_INO, "x"), 0);
    reffs_destroy(g);
    free(p);
}

Test(reffs_pickle, load_replaces_equal_key)
{
    t_file(fs, REFFS_ROOT_INO, "from_pickle");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    struct reffs *g = t_fs(0, 0);
    cr_assert_eq(reffs_snapshot_save(g, 1), 0);
    cr_assert_eq(t_load_bytes(g, p, n, 0, NULL), 0);
    cr_assert_eq(reffs_snapshot_restore(g, 1, NULL), 0);
    cr_assert_neq(t_lookup(g, REFFS_ROOT_INO, "from_pickle"), 0);
    reffs_destroy(g);
    free(p);
}

static void count_inode(void *ctx, reffs_ino ino)
{
    (void)ino;
    ++*(int *)ctx;
}

Test(reffs_pickle, load_restore_calls_inval)
{
    t_file(fs, REFFS_ROOT_INO, "x");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    struct reffs *g = t_fs(0, 0);
    int calls = 0;
    struct reffs_inval inval = { count_inode, NULL, &calls };
    int fd = t_memfd_with(p, n);
    cr_assert_eq(reffs_load(g, fd, 1, &inval, NULL), 0);
    close(fd);
    cr_assert_geq(calls, 2);   /* the root changed and "x" appeared */
    cr_assert_neq(t_lookup(g, REFFS_ROOT_INO, "x"), 0);
    reffs_destroy(g);
    free(p);
}

Test(reffs_pickle, pickle_ENOENT_missing_key)
{
    int fd = t_memfd();
    cr_assert_eq(reffs_pickle(fs, 0, 5, fd), -ENOENT);
    close(fd);
}

Test(reffs_pickle, pickle_EBADF_bad_fd)
{
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_pickle(fs, 0, 1, -1), -EBADF);
}

Test(reffs_pickle, empty_pool_pickle_loads_and_restore_ENOENT)
{
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 1, 0, &n);
    cr_assert_eq(t_load_bytes(fs, p, n, 0, NULL), 0);
    cr_assert_eq(t_load_bytes(fs, p, n, 1, NULL), -ENOENT);
    free(p);
}

Test(reffs_pickle, load_EINVAL_foreign_file)
{
    cr_assert_eq(t_load_bytes(fs, "#!/bin/sh\necho hi\n", 18, 0, NULL), -EINVAL);
}

Test(reffs_pickle, load_EINVAL_wrong_version)
{
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    p[8] = 2;
    cr_assert_eq(t_load_bytes(fs, p, n, 0, NULL), -EINVAL);
    free(p);
}

Test(reffs_pickle, load_EBADMSG_truncated)
{
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    cr_assert_eq(t_load_bytes(fs, p, n - 1, 0, NULL), -EBADMSG);
    cr_assert_eq(t_load_bytes(fs, p, 20, 0, NULL), -EBADMSG);
    cr_assert_eq(t_load_bytes(fs, p, 4, 0, NULL), -EBADMSG);
    cr_assert_eq(t_load_bytes(fs, p, 0, 0, NULL), -EBADMSG);
    free(p);
}

Test(reffs_pickle, load_EBADMSG_bit_flip_in_body)
{
    t_populate(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    p[n - 10] ^= 0x10;
    cr_assert_eq(t_load_bytes(fs, p, n, 0, NULL), -EBADMSG);
    free(p);
}

Test(reffs_pickle, load_EBADMSG_trailing_junk)
{
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 0, 1, &n);
    p = realloc(p, n + 3);
    memcpy(p + n, "xyz", 3);
    cr_assert_eq(t_load_bytes(fs, p, n + 3, 0, NULL), -EBADMSG);
    free(p);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One damaged variant of the pickle p (n bytes) into out; returns its length. */
static size_t damage(const unsigned char *p, size_t n, unsigned char *out, int kind)
{
    memcpy(out, p, n);
    switch (kind) {
    case 0:
        return rnd() % n;
    case 1:
        for (int i = 0, k = 1 + rnd() % 3; i < k; i++)
            out[rnd() % n] ^= (unsigned char)(1u << (rnd() % 8));
        return n;
    case 2:
        out[8 + rnd() % 8] ^= (unsigned char)(1 + rnd() % 255);
        return n;
    case 3: {
        size_t len = rnd() % n;
        for (size_t i = 0; i < len; i++)
            out[i] = (unsigned char)rnd();
        if (rnd() % 2)
            memcpy(out, "REFFSPK1", len < 8 ? len : 8);
        return len;
    }
    default:
        out[rnd() % 104] = (unsigned char)rnd();
        return n;
    }
}

Test(reffs_pickle, damaged_pickles_never_crash_or_change_pool, .timeout = 120)
{
    t_populate(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_file(fs, REFFS_ROOT_INO, "later");
    cr_assert_eq(reffs_snapshot_save(fs, 2), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 1, 0, &n);
    struct reffs *g = t_fs(0, 0);
    t_file(g, REFFS_ROOT_INO, "mine");
    cr_assert_eq(reffs_snapshot_save(g, 1), 0);
    char *live = t_dump_fs(g);
    unsigned char *buf = malloc(n);
    for (int i = 0; i < 400; i++) {
        size_t len = damage(p, n, buf, i % 5);
        if (len == n && !memcmp(buf, p, n))
            continue;   /* the damage cancelled out: an intact pickle may change the pool */
        int r = t_load_bytes(g, buf, len, i % 2, NULL);
        cr_assert(r == -EBADMSG || r == -EINVAL, "variant %d kind %d: %d", i, i % 5, r);
        struct reffs_snap_stats ss;
        reffs_snapshot_stats(g, &ss);
        cr_assert_eq(ss.count, 1, "variant %d kind %d: load gave %d, pool has %llu snapshots", i,
                     i % 5, r, (unsigned long long)ss.count);
    }
    char *after = t_dump_fs(g);
    cr_assert_str_eq(live, after);
    cr_assert_eq(reffs_snapshot_restore(g, 1, NULL), 0);
    cr_assert_neq(t_lookup(g, REFFS_ROOT_INO, "mine"), 0);
    cr_assert_eq(t_lookup(g, REFFS_ROOT_INO, "later"), 0);
    free(after);
    free(live);
    free(buf);
    free(p);
    reffs_destroy(g);
}

Test(reffs_pickle, shared_blocks_written_once)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    static char buf[1 << 20];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)rnd();
    t_write(fs, f, buf, sizeof buf, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_write(fs, f, "x", 1, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 2), 0);
    size_t n;
    unsigned char *p = t_pickle_bytes(fs, 1, 0, &n);
    cr_assert_lt(n, (1 << 20) + 64 * 1024, "pickle of two near-equal 1 MiB states: %zu bytes", n);
    free(p);
}
