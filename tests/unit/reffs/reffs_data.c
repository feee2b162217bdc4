/* Unit tests of RefFS file data: read, write, sparse files, truncate, fallocate, capacity, statfs. */
#include "reffs_testutil.h"

static struct reffs *fs;
static reffs_ino f;
static void setup(void)
{
    fs = t_fs(0, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
}
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_data, .init = setup, .fini = teardown);

static void small_fs(uint64_t capacity)
{
    reffs_destroy(fs);
    fs = t_fs(capacity, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
}

Test(reffs_data, write_then_read)
{
    t_write(fs, f, "hello world", 11, 0);
    char buf[32] = { 0 };
    cr_assert_eq(reffs_read(fs, f, buf, sizeof buf, 0), 11);
    cr_assert_str_eq(buf, "hello world");
    cr_assert_eq(t_stat(fs, f).st_size, 11);
    cr_assert_eq(t_stat(fs, f).st_blocks, 8);
}

Test(reffs_data, read_past_eof_is_zero_bytes)
{
    t_write(fs, f, "abc", 3, 0);
    char buf[4];
    cr_assert_eq(reffs_read(fs, f, buf, 4, 3), 0);
    cr_assert_eq(reffs_read(fs, f, buf, 4, 100), 0);
}

Test(reffs_data, sparse_write_reads_zeros)
{
    t_write(fs, f, "x", 1, 10000);
    cr_assert_eq(t_stat(fs, f).st_size, 10001);
    cr_assert_eq(t_stat(fs, f).st_blocks, 8);
    char buf[10001];
    memset(buf, 'q', sizeof buf);
    cr_assert_eq(reffs_read(fs, f, buf, sizeof buf, 0), 10001);
    for (int i = 0; i < 10000; i++)
        cr_assert_eq(buf[i], 0);
    cr_assert_eq(buf[10000], 'x');
}

Test(reffs_data, write_across_blocks)
{
    static char src[10000], dst[10000];
    for (int i = 0; i < 10000; i++)
        src[i] = (char)(i * 7);
    t_write(fs, f, src, sizeof src, 4000);
    cr_assert_eq(reffs_read(fs, f, dst, sizeof dst, 4000), 10000);
    cr_assert_eq(memcmp(src, dst, sizeof src), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 4 * 8);
}

Test(reffs_data, huge_sparse_offset)
{
    t_write(fs, f, "z", 1, (off_t)1 << 40);
    cr_assert_eq(t_stat(fs, f).st_size, ((off_t)1 << 40) + 1);
    char c = 0;
    cr_assert_eq(reffs_read(fs, f, &c, 1, (off_t)1 << 40), 1);
    cr_assert_eq(c, 'z');
}

Test(reffs_data, write_EFBIG)
{
    cr_assert_eq(reffs_write(fs, f, "z", 1, (off_t)1 << 50), -EFBIG);
}

Test(reffs_data, write_EINVAL_negative_offset)
{
    cr_assert_eq(reffs_write(fs, f, "z", 1, -1), -EINVAL);
}

Test(reffs_data, read_EINVAL_negative_offset)
{
    char c;
    cr_assert_eq(reffs_read(fs, f, &c, 1, -5), -EINVAL);
}

Test(reffs_data, read_write_EISDIR)
{
    char c;
    cr_assert_eq(reffs_read(fs, REFFS_ROOT_INO, &c, 1, 0), -EISDIR);
    cr_assert_eq(reffs_write(fs, REFFS_ROOT_INO, "c", 1, 0), -EISDIR);
}

Test(reffs_data, read_write_ENOENT)
{
    char c;
    cr_assert_eq(reffs_read(fs, 777, &c, 1, 0), -ENOENT);
    cr_assert_eq(reffs_write(fs, 777, "c", 1, 0), -ENOENT);
}

Test(reffs_data, read_write_EINVAL_on_fifo)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "p", S_IFIFO | 0644, 0, 0, 0, &e), 0);
    char c;
    cr_assert_eq(reffs_read(fs, e.st.st_ino, &c, 1, 0), -EINVAL);
    cr_assert_eq(reffs_write(fs, e.st.st_ino, "c", 1, 0), -EINVAL);
}

Test(reffs_data, write_updates_mtime_ctime)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_MTIME | REFFS_SET_CTIME,
                                .mtime = { 7, 0 }, .ctime = { 7, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    t_write(fs, f, "a", 1, 0);
    cr_assert_gt(t_stat(fs, f).st_mtime, 7);
    cr_assert_gt(t_stat(fs, f).st_ctime, 7);
}

Test(reffs_data, write_ENOSPC_when_full)
{
    small_fs(2 * 4096);
    static char buf[8192];
    t_write(fs, f, buf, 8192, 0);
    cr_assert_eq(reffs_write(fs, f, "x", 1, 8192), -ENOSPC);
    cr_assert_eq(t_stat(fs, f).st_size, 8192);
    cr_assert_eq(t_bfree(fs), 0);
    /* Rewriting allocated blocks needs no space. */
    t_write(fs, f, "y", 1, 100);
}

Test(reffs_data, write_short_when_space_runs_out)
{
    small_fs(2 * 4096);
    static char buf[12288];
    memset(buf, 'k', sizeof buf);
    cr_assert_eq(reffs_write(fs, f, buf, sizeof buf, 0), 8192);
    cr_assert_eq(t_stat(fs, f).st_size, 8192);
    char c;
    cr_assert_eq(reffs_read(fs, f, &c, 1, 8191), 1);
    cr_assert_eq(c, 'k');
}

Test(reffs_data, truncate_shrink_then_extend_reads_zeros)
{
    t_write(fs, f, "abcdefghij", 10, 0);
    cr_assert_eq(t_truncate(fs, f, 3), 0);
    cr_assert_eq(t_truncate(fs, f, 10), 0);
    char buf[10];
    cr_assert_eq(reffs_read(fs, f, buf, 10, 0), 10);
    cr_assert_eq(memcmp(buf, "abc\0\0\0\0\0\0\0", 10), 0);
}

Test(reffs_data, truncate_shrink_frees_blocks)
{
    static char buf[3 * 4096];
    t_write(fs, f, buf, sizeof buf, 0);
    uint64_t before = t_bfree(fs);
    cr_assert_eq(t_truncate(fs, f, 4097), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 16);
    cr_assert_eq(t_bfree(fs), before + 1);
    cr_assert_eq(t_truncate(fs, f, 0), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 0);
}

Test(reffs_data, truncate_extend_is_sparse)
{
    cr_assert_eq(t_truncate(fs, f, 1 << 20), 0);
    cr_assert_eq(t_stat(fs, f).st_size, 1 << 20);
    cr_assert_eq(t_stat(fs, f).st_blocks, 0);
}

Test(reffs_data, truncate_EISDIR)
{
    cr_assert_eq(t_truncate(fs, REFFS_ROOT_INO, 0), -EISDIR);
}

Test(reffs_data, truncate_EINVAL_negative_and_non_regular)
{
    cr_assert_eq(t_truncate(fs, f, -1), -EINVAL);
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "t", 0, 0, &e), 0);
    cr_assert_eq(t_truncate(fs, e.st.st_ino, 0), -EINVAL);
}

Test(reffs_data, truncate_EFBIG)
{
    cr_assert_eq(t_truncate(fs, f, (off_t)1 << 50), -EFBIG);
}

Test(reffs_data, truncate_changes_mtime_only_when_size_changes)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_MTIME, .mtime = { 9, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(t_truncate(fs, f, 0), 0);
    cr_assert_eq(t_stat(fs, f).st_mtime, 9);
    cr_assert_eq(t_truncate(fs, f, 5), 0);
    cr_assert_gt(t_stat(fs, f).st_mtime, 9);
}

Test(reffs_data, fallocate_allocates_and_extends)
{
    cr_assert_eq(reffs_fallocate(fs, f, 0, 0, 10000), 0);
    cr_assert_eq(t_stat(fs, f).st_size, 10000);
    cr_assert_eq(t_stat(fs, f).st_blocks, 24);
    char buf[100];
    cr_assert_eq(reffs_read(fs, f, buf, 100, 5000), 100);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(buf[i], 0);
}

Test(reffs_data, fallocate_keep_size)
{
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, 0, 8192), 0);
    cr_assert_eq(t_stat(fs, f).st_size, 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 16);
}

/* ext4 and tmpfs both free them on a truncate to the current size; an extend keeps them. */
Test(reffs_data, truncate_to_same_size_frees_keep_size_blocks_past_eof)
{
    t_write(fs, f, "abc", 3, 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, 0, 4 * 4096), 0);
    cr_assert_eq(t_truncate(fs, f, 4096), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 32);
    cr_assert_eq(t_truncate(fs, f, 4096), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 8);
    char buf[3];
    cr_assert_eq(reffs_read(fs, f, buf, 3, 0), 3);
    cr_assert_eq(memcmp(buf, "abc", 3), 0);
}

Test(reffs_data, fallocate_keeps_existing_data)
{
    t_write(fs, f, "data", 4, 4096);
    cr_assert_eq(reffs_fallocate(fs, f, 0, 0, 3 * 4096), 0);
    char buf[4];
    cr_assert_eq(reffs_read(fs, f, buf, 4, 4096), 4);
    cr_assert_eq(memcmp(buf, "data", 4), 0);
    cr_assert_eq(t_stat(fs, f).st_blocks, 24);
}

Test(reffs_data, fallocate_EOPNOTSUPP_modes_ext4_refuses)
{
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_UNSHARE_RANGE, 0, 10), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE, 0, 10), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, 0x80 /* FALLOC_FL_WRITE_ZEROES */, 0, 10), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_NO_HIDE_STALE, 0, 10), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, 0x100, 0, 10), -EOPNOTSUPP);
}

Test(reffs_data, fallocate_EINVAL_bad_range)
{
    cr_assert_eq(reffs_fallocate(fs, f, 0, 0, 0), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, 0, -1, 10), -EINVAL);
}

Test(reffs_data, fallocate_EINVAL_bad_range_comes_before_EOPNOTSUPP)
{
    cr_assert_eq(reffs_fallocate(fs, f, 0x100, 0, 0), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_PUNCH_HOLE, -1, 10), -EINVAL);
}

Test(reffs_data, fallocate_ENOSPC_all_or_nothing)
{
    small_fs(4 * 4096);
    cr_assert_eq(reffs_fallocate(fs, f, 0, 0, 5 * 4096), -ENOSPC);
    cr_assert_eq(t_stat(fs, f).st_blocks, 0);
    cr_assert_eq(t_stat(fs, f).st_size, 0);
    cr_assert_eq(reffs_fallocate(fs, f, 0, 0, 4 * 4096), 0);
}

Test(reffs_data, fallocate_EFBIG)
{
    cr_assert_eq(reffs_fallocate(fs, f, 0, (off_t)1 << 50, 10), -EFBIG);
}

Test(reffs_data, fallocate_EISDIR_ESPIPE_ENODEV_by_type)
{
    cr_assert_eq(reffs_fallocate(fs, REFFS_ROOT_INO, 0, 0, 10), -EISDIR);
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "p", S_IFIFO | 0644, 0, 0, 0, &e), 0);
    cr_assert_eq(reffs_fallocate(fs, e.st.st_ino, 0, 0, 10), -ESPIPE);
    cr_assert_eq(reffs_fallocate(fs, e.st.st_ino, FALLOC_FL_COLLAPSE_RANGE, 0, 4096), -ESPIPE);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "c", S_IFCHR | 0644, makedev(1, 3), 0, 0, &e), 0);
    cr_assert_eq(reffs_fallocate(fs, e.st.st_ino, 0, 0, 10), -ENODEV);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "s", S_IFSOCK | 0644, 0, 0, 0, &e), 0);
    cr_assert_eq(reffs_fallocate(fs, e.st.st_ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 10), -ENODEV);
}

Test(reffs_data, fallocate_ENOENT)
{
    cr_assert_eq(reffs_fallocate(fs, 999, 0, 0, 10), -ENOENT);
}

Test(reffs_data, fsync_ok_and_ENOENT)
{
    cr_assert_eq(reffs_fsync(fs, f), 0);
    cr_assert_eq(reffs_fsync(fs, 999), -ENOENT);
}

Test(reffs_data, statfs_reports_limits_and_usage)
{
    small_fs(100 * 4096);
    struct statvfs sv;
    cr_assert_eq(reffs_statfs(fs, &sv), 0);
    cr_assert_eq(sv.f_bsize, 4096);
    cr_assert_eq(sv.f_blocks, 100);
    cr_assert_eq(sv.f_bfree, 100);
    cr_assert_eq(sv.f_bavail, 100);
    cr_assert_eq(sv.f_files, 65536);
    cr_assert_eq(sv.f_ffree, 65536 - 2);
    cr_assert_eq(sv.f_namemax, 255);
    t_write(fs, f, "x", 1, 0);
    cr_assert_eq(t_bfree(fs), 99);
}

Test(reffs_data, default_limits)
{
    struct statvfs sv;
    cr_assert_eq(reffs_statfs(fs, &sv), 0);
    cr_assert_eq(sv.f_blocks, (1ULL << 30) / 4096);
    cr_assert_eq(sv.f_files, 65536);
}

Test(reffs_data, unlink_returns_space)
{
    small_fs(10 * 4096);
    static char buf[4 * 4096];
    t_write(fs, f, buf, sizeof buf, 0);
    cr_assert_eq(t_bfree(fs), 6);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    cr_assert_eq(t_bfree(fs), 10);
}
