/* Unit tests of RefFS byte-range calls: fallocate's punch, zero, collapse and insert modes, and copy_file_range. */
#include "reffs_testutil.h"

#define B 4096
#define PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define MAXSIZE 0xFFFFFFFF000LL   /* 16 TiB - 4 KiB, RefFS's maximum file size */

static struct reffs *fs;
static reffs_ino f, g;
static void setup(void)
{
    fs = t_fs(0, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
    g = t_file(fs, REFFS_ROOT_INO, "g");
}
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_range, .init = setup, .fini = teardown);

static void small_fs(uint64_t capacity)
{
    reffs_destroy(fs);
    fs = t_fs(capacity, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
    g = t_file(fs, REFFS_ROOT_INO, "g");
}

/* Never zero, and different one or two blocks away, so moved data shows where it came from. */
static unsigned char pat(off_t i)
{
    return (unsigned char)(1 + (i * 7 + i / B) % 251);
}

/* ino holds the pattern in [0, size). */
static void fill(reffs_ino ino, off_t size)
{
    unsigned char *b = malloc(size);
    for (off_t i = 0; i < size; i++)
        b[i] = pat(i);
    t_write(fs, ino, b, size, 0);
    free(b);
}

/* Bytes [from, to) of ino read as the pattern bytes of offset i + shift. */
static int has_pat(reffs_ino ino, off_t from, off_t to, off_t shift)
{
    unsigned char *b = malloc(to - from);
    int ok = reffs_read(fs, ino, b, to - from, from) == to - from;
    for (off_t i = from; ok && i < to; i++)
        ok = b[i - from] == pat(i + shift);
    free(b);
    return ok;
}

static int is_zero(reffs_ino ino, off_t from, off_t to)
{
    unsigned char *b = malloc(to - from);
    int ok = reffs_read(fs, ino, b, to - from, from) == to - from;
    for (off_t i = 0; ok && i < to - from; i++)
        ok = b[i] == 0;
    free(b);
    return ok;
}

/* Allocated 4096-byte blocks. */
static long nblocks(reffs_ino ino)
{
    return (long)t_stat(fs, ino).st_blocks / 8;
}

static off_t size_of(reffs_ino ino)
{
    return t_stat(fs, ino).st_size;
}

/* ---- mode checks shared by every mode ---- */

Test(reffs_range, EOPNOTSUPP_punch_hole_without_keep_size)
{
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_PUNCH_HOLE, 0, B), -EOPNOTSUPP);
    cr_assert(has_pat(f, 0, 2 * B, 0));
}

Test(reffs_range, EOPNOTSUPP_keep_size_with_collapse_or_insert)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE, 0, B), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE | FALLOC_FL_KEEP_SIZE, 0, B), -EOPNOTSUPP);
}

Test(reffs_range, EOPNOTSUPP_two_operations_in_one_mode)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE | PUNCH, 0, B), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_PUNCH_HOLE, 0, B), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE, 0, B), -EOPNOTSUPP);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE, 0, B), -EOPNOTSUPP);
    cr_assert_eq(size_of(f), 4 * B);
}

Test(reffs_range, EFBIG_range_past_the_maximum_in_every_mode)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, MAXSIZE - 10, 20), -EFBIG);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, MAXSIZE - 10, 20), -EFBIG);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, MAXSIZE, B), -EFBIG);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, B, MAXSIZE), -EFBIG);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, MAXSIZE - 1, 1), 0);
}

Test(reffs_range, every_mode_updates_mtime_and_ctime)
{
    static const int modes[] = { PUNCH, FALLOC_FL_ZERO_RANGE, FALLOC_FL_COLLAPSE_RANGE,
                                 FALLOC_FL_INSERT_RANGE };
    fill(f, 8 * B);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        struct reffs_setattr sa = { .valid = REFFS_SET_MTIME | REFFS_SET_CTIME,
                                    .mtime = { 7, 0 }, .ctime = { 7, 0 } };
        cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
        cr_assert_eq(reffs_fallocate(fs, f, modes[i], B, B), 0, "mode %#x", modes[i]);
        cr_assert_gt(t_stat(fs, f).st_mtime, 7, "mode %#x", modes[i]);
        cr_assert_gt(t_stat(fs, f).st_ctime, 7, "mode %#x", modes[i]);
    }
}

/* ---- PUNCH_HOLE ---- */

Test(reffs_range, punch_frees_whole_blocks_and_zeroes_partial_ones)
{
    fill(f, 5 * B + 100);
    uint64_t bfree = t_bfree(fs);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 1000, 3 * B + 500 - 1000), 0);
    cr_assert_eq(size_of(f), 5 * B + 100);
    cr_assert_eq(nblocks(f), 4);
    cr_assert_eq(t_bfree(fs), bfree + 2);
    cr_assert(has_pat(f, 0, 1000, 0));
    cr_assert(is_zero(f, 1000, 3 * B + 500));
    cr_assert(has_pat(f, 3 * B + 500, 5 * B + 100, 0));
}

Test(reffs_range, punch_inside_one_block_zeroes_only_its_bytes)
{
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 100, 200), 0);
    cr_assert_eq(nblocks(f), 2);
    cr_assert(has_pat(f, 0, 100, 0));
    cr_assert(is_zero(f, 100, 300));
    cr_assert(has_pat(f, 300, 2 * B, 0));
}

Test(reffs_range, punch_partial_blocks_at_both_ends_without_a_whole_one)
{
    fill(f, 3 * B);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 1000, 5000), 0);
    cr_assert_eq(nblocks(f), 3);
    cr_assert(has_pat(f, 0, 1000, 0));
    cr_assert(is_zero(f, 1000, 6000));
    cr_assert(has_pat(f, 6000, 3 * B, 0));
}

/* ext4: the hole ends at the end of the block holding EOF; tmpfs would free the rest too. */
Test(reffs_range, punch_stops_at_the_end_of_the_block_holding_eof)
{
    fill(f, B + 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, 0, 8 * B), 0);
    cr_assert_eq(nblocks(f), 8);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 0, 8 * B), 0);
    cr_assert_eq(nblocks(f), 6);
    cr_assert_eq(size_of(f), B + 100);
    cr_assert(is_zero(f, 0, B + 100));
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 4 * B, B), 0);
    cr_assert_eq(nblocks(f), 6);
}

Test(reffs_range, punch_of_an_empty_file_frees_no_keep_size_block)
{
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, 0, 4 * B), 0);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 0, 4 * B), 0);
    cr_assert_eq(nblocks(f), 4);
}

Test(reffs_range, punch_of_holes_allocates_nothing)
{
    cr_assert_eq(t_truncate(fs, f, 10 * B), 0);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 100, 9 * B), 0);
    cr_assert_eq(nblocks(f), 0);
    cr_assert_eq(size_of(f), 10 * B);
}

Test(reffs_range, punch_needs_no_free_space)
{
    small_fs(3 * B);
    fill(f, 3 * B);
    cr_assert_eq(t_bfree(fs), 0);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, 100, 200), 0);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, B, B), 0);
    cr_assert_eq(t_bfree(fs), 1);
}

Test(reffs_range, punch_on_blocks_shared_with_a_snapshot_leaves_the_snapshot_intact)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_fallocate(fs, f, PUNCH, B / 2, 2 * B), 0);
    cr_assert(is_zero(f, B / 2, B / 2 + 2 * B));
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert(has_pat(f, 0, 4 * B, 0));
    cr_assert_eq(nblocks(f), 4);
}

/* ---- ZERO_RANGE ---- */

Test(reffs_range, zero_range_zeroes_data_and_keeps_its_blocks)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, 1000, 2 * B + 7), 0);
    cr_assert_eq(nblocks(f), 4);
    cr_assert_eq(size_of(f), 4 * B);
    cr_assert(has_pat(f, 0, 1000, 0));
    cr_assert(is_zero(f, 1000, 2 * B + 1007));
    cr_assert(has_pat(f, 2 * B + 1007, 4 * B, 0));
}

Test(reffs_range, zero_range_allocates_every_block_it_touches_partial_ones_too)
{
    cr_assert_eq(t_truncate(fs, f, 10 * B), 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, 100, 2 * B + 200), 0);
    cr_assert_eq(nblocks(f), 3);
    cr_assert_eq(size_of(f), 10 * B);
    cr_assert(is_zero(f, 0, 10 * B));
}

Test(reffs_range, zero_range_without_keep_size_extends_the_file)
{
    fill(f, 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, B, 50), 0);
    cr_assert_eq(size_of(f), B + 50);
    cr_assert_eq(nblocks(f), 2);
    cr_assert(has_pat(f, 0, 100, 0));
    cr_assert(is_zero(f, 100, B + 50));
}

Test(reffs_range, zero_range_with_keep_size_allocates_past_eof_and_keeps_the_size)
{
    fill(f, 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 3 * B, 10), 0);
    cr_assert_eq(size_of(f), 100);
    cr_assert_eq(nblocks(f), 2);
}

Test(reffs_range, zero_range_ENOSPC_allocates_nothing_and_zeroes_nothing)
{
    small_fs(4 * B);
    fill(f, B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, 0, 5 * B), -ENOSPC);
    cr_assert_eq(nblocks(f), 1);
    cr_assert_eq(size_of(f), B);
    cr_assert(has_pat(f, 0, B, 0));
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, 0, 4 * B), 0);
    cr_assert_eq(t_bfree(fs), 0);
}

Test(reffs_range, zero_range_on_blocks_shared_with_a_snapshot_leaves_the_snapshot_intact)
{
    fill(f, 3 * B);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_ZERO_RANGE, 10, 2 * B), 0);
    cr_assert(is_zero(f, 10, 2 * B + 10));
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert(has_pat(f, 0, 3 * B, 0));
}

/* ---- COLLAPSE_RANGE ---- */

Test(reffs_range, collapse_moves_later_data_back_and_shrinks_the_file)
{
    fill(f, 5 * B + 100);
    uint64_t bfree = t_bfree(fs);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, B, 2 * B), 0);
    cr_assert_eq(size_of(f), 3 * B + 100);
    cr_assert_eq(nblocks(f), 4);
    cr_assert_eq(t_bfree(fs), bfree + 2);
    cr_assert(has_pat(f, 0, B, 0));
    cr_assert(has_pat(f, B, 3 * B + 100, 2 * B));
}

Test(reffs_range, collapse_EINVAL_offset_or_length_not_block_aligned)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 100, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, B, 100), -EINVAL);
    cr_assert_eq(size_of(f), 4 * B);
    cr_assert(has_pat(f, 0, 4 * B, 0));
}

Test(reffs_range, collapse_EINVAL_range_reaching_or_passing_eof)
{
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, B, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 0, 2 * B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, B, 2 * B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 4 * B, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, g, FALLOC_FL_COLLAPSE_RANGE, 0, B), -EINVAL);
    t_write(fs, f, "x", 1, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, B, B), 0);
    cr_assert_eq(size_of(f), B + 1);
}

Test(reffs_range, collapse_keeps_holes_holes)
{
    cr_assert_eq(t_truncate(fs, f, 8 * B), 0);
    t_write(fs, f, "x", 1, 3 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 0, 2 * B), 0);
    cr_assert_eq(size_of(f), 6 * B);
    cr_assert_eq(nblocks(f), 1);
    char c;
    cr_assert_eq(reffs_read(fs, f, &c, 1, B), 1);
    cr_assert_eq(c, 'x');
}

Test(reffs_range, collapse_moves_keep_size_blocks_past_eof_as_well)
{
    fill(f, 2 * B + 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, 0, 6 * B), 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 0, B), 0);
    cr_assert_eq(nblocks(f), 5);
    cr_assert_eq(size_of(f), B + 100);
    cr_assert(has_pat(f, 0, B + 100, B));
}

Test(reffs_range, collapse_on_blocks_shared_with_a_snapshot_leaves_the_snapshot_intact)
{
    fill(f, 4 * B + 1);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_COLLAPSE_RANGE, 0, 2 * B), 0);
    cr_assert(has_pat(f, 0, 2 * B + 1, 2 * B));
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert_eq(size_of(f), 4 * B + 1);
    cr_assert(has_pat(f, 0, 4 * B + 1, 0));
}

/* ---- INSERT_RANGE ---- */

Test(reffs_range, insert_opens_a_hole_and_moves_later_data_on)
{
    fill(f, 3 * B + 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, B, 2 * B), 0);
    cr_assert_eq(size_of(f), 5 * B + 100);
    cr_assert_eq(nblocks(f), 4);
    cr_assert(has_pat(f, 0, B, 0));
    cr_assert(is_zero(f, B, 3 * B));
    cr_assert(has_pat(f, 3 * B, 5 * B + 100, -2 * B));
}

Test(reffs_range, insert_EINVAL_offset_or_length_not_block_aligned)
{
    fill(f, 4 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 100, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, B, 100), -EINVAL);
    cr_assert_eq(size_of(f), 4 * B);
}

Test(reffs_range, insert_EINVAL_at_or_past_eof)
{
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 2 * B, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 3 * B, B), -EINVAL);
    cr_assert_eq(reffs_fallocate(fs, g, FALLOC_FL_INSERT_RANGE, 0, B), -EINVAL);
    cr_assert_eq(size_of(f), 2 * B);
}

Test(reffs_range, insert_EFBIG_when_the_size_would_pass_the_maximum)
{
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 0, MAXSIZE - B), -EFBIG);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 100, MAXSIZE - B), -EINVAL);
    cr_assert_eq(size_of(f), 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 0, MAXSIZE - 2 * B), 0);
    cr_assert_eq(size_of(f), MAXSIZE);
    cr_assert(has_pat(f, MAXSIZE - 2 * B, MAXSIZE, -(MAXSIZE - 2 * B)));
}

Test(reffs_range, insert_needs_no_free_space)
{
    small_fs(2 * B);
    fill(f, 2 * B);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 0, B), 0);
    cr_assert_eq(size_of(f), 3 * B);
}

Test(reffs_range, insert_frees_keep_size_blocks_pushed_past_the_maximum)
{
    fill(f, 100);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_KEEP_SIZE, MAXSIZE - B, B), 0);
    cr_assert_eq(nblocks(f), 2);
    uint64_t bfree = t_bfree(fs);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 0, B), 0);
    cr_assert_eq(nblocks(f), 1);
    cr_assert_eq(t_bfree(fs), bfree + 1);
    cr_assert(has_pat(f, B, B + 100, -B));
}

Test(reffs_range, insert_on_blocks_shared_with_a_snapshot_leaves_the_snapshot_intact)
{
    fill(f, 2 * B + 1);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_fallocate(fs, f, FALLOC_FL_INSERT_RANGE, 0, B), 0);
    cr_assert(has_pat(f, B, 3 * B + 1, -B));
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert_eq(size_of(f), 2 * B + 1);
    cr_assert(has_pat(f, 0, 2 * B + 1, 0));
}

/* ---- copy_file_range ---- */

Test(reffs_range, copy_range_copies_bytes_and_extends_the_destination)
{
    fill(f, 3 * B + 100);
    cr_assert_eq(reffs_copy_range(fs, f, 100, g, 5000, 2 * B, 0), 2 * B);
    cr_assert_eq(size_of(g), 5000 + 2 * B);
    cr_assert(is_zero(g, 0, 5000));
    cr_assert(has_pat(g, 5000, 5000 + 2 * B, 100 - 5000));
    cr_assert(has_pat(f, 0, 3 * B + 100, 0));
}

Test(reffs_range, copy_range_stops_at_the_source_eof)
{
    fill(f, 3 * B + 100);
    cr_assert_eq(reffs_copy_range(fs, f, 3 * B, g, 0, 1 << 20, 0), 100);
    cr_assert_eq(size_of(g), 100);
    cr_assert_eq(reffs_copy_range(fs, f, 3 * B + 100, g, 0, 10, 0), 0);
    cr_assert_eq(reffs_copy_range(fs, f, 9 * B, g, 0, 10, 0), 0);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 0, 0, 0), 0);
    cr_assert_eq(size_of(g), 100);
}

Test(reffs_range, copy_range_within_one_file_when_the_ranges_do_not_overlap)
{
    fill(f, 3 * B + 100);
    cr_assert_eq(reffs_copy_range(fs, f, 0, f, 3 * B + 100, 200, 0), 200);
    cr_assert_eq(size_of(f), 3 * B + 300);
    cr_assert(has_pat(f, 3 * B + 100, 3 * B + 300, -(3 * B + 100)));
    cr_assert_eq(reffs_copy_range(fs, f, 10, f, 20, 10, 0), 10);
    cr_assert(has_pat(f, 20, 30, -10));
}

Test(reffs_range, copy_range_EINVAL_overlapping_ranges_of_one_file_after_cutting_at_eof)
{
    fill(f, 5 * B + 100);
    cr_assert_eq(reffs_copy_range(fs, f, 0, f, 100, B, 0), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, f, 100, f, 100, 10, 0), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, f, 5 * B, f, 5 * B + 50, B, 0), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, f, 5 * B + 100, f, 5 * B, B, 0), 0);
    cr_assert_eq(reffs_copy_range(fs, f, 5 * B, f, 5 * B + 100, B, 0), 100);
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "f2", &e), 0);
    cr_assert_eq(reffs_copy_range(fs, e.st.st_ino, 0, f, 100, B, 0), -EINVAL);
}

Test(reffs_range, copy_range_EINVAL_flags)
{
    fill(f, B);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 0, 10, 1), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, REFFS_ROOT_INO, 0, g, 0, 10, 1), -EINVAL);
}

Test(reffs_range, copy_range_EISDIR_directory_and_EINVAL_other_types)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "p", S_IFIFO | 0644, 0, 0, 0, &e), 0);
    cr_assert_eq(reffs_copy_range(fs, REFFS_ROOT_INO, 0, g, 0, 10, 0), -EISDIR);
    cr_assert_eq(reffs_copy_range(fs, f, 0, REFFS_ROOT_INO, 0, 10, 0), -EISDIR);
    cr_assert_eq(reffs_copy_range(fs, e.st.st_ino, 0, REFFS_ROOT_INO, 0, 10, 0), -EISDIR);
    cr_assert_eq(reffs_copy_range(fs, e.st.st_ino, 0, g, 0, 10, 0), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, f, 0, e.st.st_ino, 0, 0, 0), -EINVAL);
}

Test(reffs_range, copy_range_EOVERFLOW_wrapping_offset_EINVAL_negative_one)
{
    fill(f, B);
    cr_assert_eq(reffs_copy_range(fs, f, -1, g, 0, 10, 0), -EOVERFLOW);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, -1, 10, 0), -EOVERFLOW);
    cr_assert_eq(reffs_copy_range(fs, f, -5000, g, 0, 10, 0), -EINVAL);
    cr_assert_eq(reffs_copy_range(fs, f, -1, g, 0, 0, 0), -EINVAL);
}

Test(reffs_range, copy_range_EFBIG_at_the_maximum_and_short_below_it)
{
    fill(f, B);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, MAXSIZE, 10, 0), -EFBIG);
    cr_assert_eq(reffs_copy_range(fs, f, B, g, MAXSIZE + 5, 10, 0), -EFBIG);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, MAXSIZE - 5, 10, 0), 5);
    cr_assert_eq(size_of(g), MAXSIZE);
}

Test(reffs_range, copy_range_writes_source_holes_as_zeros_and_allocates_them)
{
    cr_assert_eq(t_truncate(fs, f, 3 * B), 0);
    t_write(fs, f, "x", 1, B);
    fill(g, 3 * B);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 0, 3 * B, 0), 3 * B);
    cr_assert(is_zero(g, 0, B));
    cr_assert(is_zero(g, B + 1, 3 * B));
    reffs_ino h = t_file(fs, REFFS_ROOT_INO, "h");
    cr_assert_eq(reffs_copy_range(fs, f, 0, h, 0, 3 * B, 0), 3 * B);
    cr_assert_eq(nblocks(h), 3);
}

Test(reffs_range, copy_range_short_when_space_runs_out_ENOSPC_when_none_fits)
{
    small_fs(5 * B);
    fill(f, 3 * B);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 0, 3 * B, 0), 2 * B);
    cr_assert_eq(size_of(g), 2 * B);
    cr_assert(has_pat(g, 0, 2 * B, 0));
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 2 * B, B, 0), -ENOSPC);
    cr_assert_eq(reffs_copy_range(fs, f, B, g, 0, 2 * B, 0), 2 * B);
}

Test(reffs_range, copy_range_ENOENT)
{
    cr_assert_eq(reffs_copy_range(fs, 999, 0, g, 0, 10, 0), -ENOENT);
    cr_assert_eq(reffs_copy_range(fs, f, 0, 999, 0, 10, 0), -ENOENT);
}

Test(reffs_range, copy_range_updates_the_destination_mtime_and_ctime)
{
    fill(f, B);
    struct reffs_setattr sa = { .valid = REFFS_SET_MTIME | REFFS_SET_CTIME,
                                .mtime = { 7, 0 }, .ctime = { 7, 0 } };
    cr_assert_eq(reffs_setattr(fs, g, &sa, NULL), 0);
    cr_assert_eq(reffs_copy_range(fs, f, 0, g, 0, 10, 0), 10);
    cr_assert_gt(t_stat(fs, g).st_mtime, 7);
    cr_assert_gt(t_stat(fs, g).st_ctime, 7);
}

Test(reffs_range, copy_range_into_blocks_shared_with_a_snapshot_leaves_the_snapshot_intact)
{
    fill(f, 2 * B);
    fill(g, 2 * B);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_copy_range(fs, f, B, g, 10, B, 0), B);
    cr_assert_eq(reffs_copy_range(fs, g, 0, g, B + 10, 100, 0), 100);
    cr_assert(has_pat(g, 10, B + 10, B - 10));
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert(has_pat(g, 0, 2 * B, 0));
}
