/* Unit tests of RefFS rename: replacement rules, RENAME_NOREPLACE, RENAME_EXCHANGE, link counts. */
#include "reffs_testutil.h"

static struct reffs *fs;
static void setup(void) { fs = t_fs(0, 0); }
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_rename, .init = setup, .fini = teardown);

#define R REFFS_ROOT_INO

Test(reffs_rename, moves_file)
{
    reffs_ino f = t_file(fs, R, "a");
    reffs_ino d = t_dir(fs, R, "d");
    cr_assert_eq(reffs_rename(fs, R, "a", d, "b", 0), 0);
    cr_assert_eq(t_lookup(fs, R, "a"), 0);
    cr_assert_eq(t_lookup(fs, d, "b"), f);
}

Test(reffs_rename, replaces_file_and_frees_it)
{
    reffs_ino a = t_file(fs, R, "a");
    reffs_ino b = t_file(fs, R, "b");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), 0);
    cr_assert_eq(t_lookup(fs, R, "b"), a);
    reffs_forget(fs, b, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, b, &st), -ENOENT);
    cr_assert_eq(t_count_entries(fs, R), 3);
}

Test(reffs_rename, replaces_empty_dir)
{
    reffs_ino a = t_dir(fs, R, "a");
    t_dir(fs, R, "b");
    cr_assert_eq(t_stat(fs, R).st_nlink, 4);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), 0);
    cr_assert_eq(t_lookup(fs, R, "b"), a);
    cr_assert_eq(t_stat(fs, R).st_nlink, 3);
}

Test(reffs_rename, dir_between_parents_moves_link_count)
{
    reffs_ino p = t_dir(fs, R, "p");
    reffs_ino q = t_dir(fs, R, "q");
    reffs_ino s = t_dir(fs, p, "s");
    cr_assert_eq(reffs_rename(fs, p, "s", q, "s", 0), 0);
    cr_assert_eq(t_stat(fs, p).st_nlink, 2);
    cr_assert_eq(t_stat(fs, q).st_nlink, 3);
    cr_assert_eq(t_lookup(fs, s, ".."), q);
}

Test(reffs_rename, EISDIR_file_onto_dir)
{
    t_file(fs, R, "f");
    t_dir(fs, R, "d");
    cr_assert_eq(reffs_rename(fs, R, "f", R, "d", 0), -EISDIR);
}

Test(reffs_rename, ENOTDIR_dir_onto_file)
{
    t_file(fs, R, "f");
    t_dir(fs, R, "d");
    cr_assert_eq(reffs_rename(fs, R, "d", R, "f", 0), -ENOTDIR);
}

Test(reffs_rename, ENOTDIR_parent_not_dir)
{
    reffs_ino f = t_file(fs, R, "f");
    cr_assert_eq(reffs_rename(fs, R, "f", f, "x", 0), -ENOTDIR);
    cr_assert_eq(reffs_rename(fs, f, "x", R, "y", 0), -ENOTDIR);
}

Test(reffs_rename, EINVAL_dir_into_own_subtree)
{
    reffs_ino a = t_dir(fs, R, "a");
    reffs_ino b = t_dir(fs, a, "b");
    cr_assert_eq(reffs_rename(fs, R, "a", b, "x", 0), -EINVAL);
    cr_assert_eq(reffs_rename(fs, R, "a", a, "x", 0), -EINVAL);
}

Test(reffs_rename, ENOTEMPTY_target)
{
    t_dir(fs, R, "a");
    reffs_ino b = t_dir(fs, R, "b");
    t_file(fs, b, "f");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), -ENOTEMPTY);
}

Test(reffs_rename, ENOTEMPTY_onto_own_ancestor)
{
    reffs_ino a = t_dir(fs, R, "a");
    reffs_ino b = t_dir(fs, a, "b");
    t_dir(fs, b, "a");
    cr_assert_eq(reffs_rename(fs, b, "a", R, "a", 0), -ENOTEMPTY);
}

Test(reffs_rename, ENOENT_source)
{
    cr_assert_eq(reffs_rename(fs, R, "nope", R, "x", 0), -ENOENT);
    cr_assert_eq(reffs_rename(fs, 4321, "nope", R, "x", 0), -ENOENT);
}

Test(reffs_rename, ENAMETOOLONG)
{
    char name[300];
    memset(name, 'm', 299);
    name[299] = 0;
    t_file(fs, R, "f");
    cr_assert_eq(reffs_rename(fs, R, "f", R, name, 0), -ENAMETOOLONG);
}

Test(reffs_rename, EBUSY_dot)
{
    reffs_ino d = t_dir(fs, R, "d");
    cr_assert_eq(reffs_rename(fs, d, ".", R, "x", 0), -EBUSY);
}

Test(reffs_rename, EEXIST_noreplace)
{
    reffs_ino a = t_file(fs, R, "a");
    reffs_ino b = t_file(fs, R, "b");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", RENAME_NOREPLACE), -EEXIST);
    cr_assert_eq(t_lookup(fs, R, "a"), a);
    cr_assert_eq(t_lookup(fs, R, "b"), b);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "c", RENAME_NOREPLACE), 0);
}

Test(reffs_rename, EINVAL_bad_flags)
{
    t_file(fs, R, "a");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", RENAME_NOREPLACE | RENAME_EXCHANGE), -EINVAL);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 1u << 7), -EINVAL);
}

Test(reffs_rename, exchange_swaps)
{
    reffs_ino a = t_file(fs, R, "a");
    reffs_ino d = t_dir(fs, R, "d");
    reffs_ino s = t_dir(fs, d, "s");
    cr_assert_eq(reffs_rename(fs, R, "a", d, "s", RENAME_EXCHANGE), 0);
    cr_assert_eq(t_lookup(fs, R, "a"), s);
    cr_assert_eq(t_lookup(fs, d, "s"), a);
    cr_assert_eq(t_lookup(fs, s, ".."), R);
    cr_assert_eq(t_stat(fs, d).st_nlink, 2);
    cr_assert_eq(t_stat(fs, R).st_nlink, 4);
}

Test(reffs_rename, ENOENT_exchange_missing_target)
{
    t_file(fs, R, "a");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", RENAME_EXCHANGE), -ENOENT);
    cr_assert_eq(reffs_rename(fs, R, "b", R, "a", RENAME_EXCHANGE), -ENOENT);
}

Test(reffs_rename, EINVAL_exchange_with_own_subtree)
{
    reffs_ino a = t_dir(fs, R, "a");
    t_dir(fs, a, "b");
    cr_assert_eq(reffs_rename(fs, a, "b", R, "a", RENAME_EXCHANGE), -EINVAL);
}

Test(reffs_rename, onto_itself_is_noop)
{
    reffs_ino a = t_file(fs, R, "a");
    cr_assert_eq(reffs_rename(fs, R, "a", R, "a", 0), 0);
    cr_assert_eq(t_lookup(fs, R, "a"), a);
}

Test(reffs_rename, onto_hard_link_is_noop)
{
    reffs_ino a = t_file(fs, R, "a");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, a, R, "b", &e), 0);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), 0);
    cr_assert_eq(t_lookup(fs, R, "a"), a);
    cr_assert_eq(t_lookup(fs, R, "b"), a);
    cr_assert_eq(t_stat(fs, a).st_nlink, 2);
}

Test(reffs_rename, updates_times)
{
    reffs_ino a = t_file(fs, R, "a");
    struct reffs_setattr sa = { .valid = REFFS_SET_CTIME, .ctime = { 5, 0 } };
    cr_assert_eq(reffs_setattr(fs, a, &sa, NULL), 0);
    cr_assert_eq(reffs_setattr(fs, R, &sa, NULL), 0);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), 0);
    cr_assert_gt(t_stat(fs, a).st_ctime, 5);
    cr_assert_gt(t_stat(fs, R).st_ctime, 5);
}

Test(reffs_rename, replaced_open_file_survives)
{
    reffs_ino a = t_file(fs, R, "a");
    reffs_ino b = t_file(fs, R, "b");
    t_write(fs, b, "bee", 3, 0);
    cr_assert_eq(reffs_open(fs, b), 0);
    cr_assert_eq(reffs_rename(fs, R, "a", R, "b", 0), 0);
    char buf[4];
    cr_assert_eq(reffs_read(fs, b, buf, 4, 0), 3);
    cr_assert_eq(t_lookup(fs, R, "b"), a);
    reffs_release(fs, b);
    reffs_forget(fs, b, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, b, &st), -ENOENT);
}
