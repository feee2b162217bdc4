/* Unit tests of RefFS attributes: chmod, chown and its setuid clearing, utimens, access. */
#include <unistd.h>
#include "reffs_testutil.h"

static struct reffs *fs;
static reffs_ino f;
static void setup(void)
{
    fs = t_fs(0, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
}
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_attr, .init = setup, .fini = teardown);

static int chown_(reffs_ino ino, unsigned valid, uid_t uid, gid_t gid)
{
    struct reffs_setattr sa = { .valid = valid, .uid = uid, .gid = gid };
    return reffs_setattr(fs, ino, &sa, NULL);
}

Test(reffs_attr, chmod_keeps_permission_and_special_bits)
{
    cr_assert_eq(t_chmod(fs, f, 07755), 0);
    struct stat st = t_stat(fs, f);
    cr_assert(S_ISREG(st.st_mode));
    cr_assert_eq(st.st_mode & 07777, 07755);
}

Test(reffs_attr, chmod_ignores_type_bits)
{
    cr_assert_eq(t_chmod(fs, f, S_IFDIR | 0600), 0);
    cr_assert(S_ISREG(t_stat(fs, f).st_mode));
    cr_assert_eq(t_stat(fs, f).st_mode & 07777, 0600);
}

Test(reffs_attr, chmod_keeps_sticky_on_dir)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(t_chmod(fs, d, 01777), 0);
    cr_assert_eq(t_stat(fs, d).st_mode & 07777, 01777);
}

Test(reffs_attr, setattr_ENOENT)
{
    cr_assert_eq(t_chmod(fs, 5555, 0644), -ENOENT);
}

Test(reffs_attr, setattr_returns_new_stat)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_MODE, .mode = 0400 };
    struct stat st;
    cr_assert_eq(reffs_setattr(fs, f, &sa, &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0400);
}

Test(reffs_attr, chown_sets_owner_and_group)
{
    cr_assert_eq(chown_(f, REFFS_SET_UID | REFFS_SET_GID, 10, 20), 0);
    cr_assert_eq(t_stat(fs, f).st_uid, 10);
    cr_assert_eq(t_stat(fs, f).st_gid, 20);
}

Test(reffs_attr, chown_minus_one_keeps)
{
    cr_assert_eq(chown_(f, REFFS_SET_UID | REFFS_SET_GID, 10, 20), 0);
    cr_assert_eq(chown_(f, REFFS_SET_UID | REFFS_SET_GID, (uid_t)-1, 30), 0);
    cr_assert_eq(t_stat(fs, f).st_uid, 10);
    cr_assert_eq(t_stat(fs, f).st_gid, 30);
    cr_assert_eq(chown_(f, REFFS_SET_UID | REFFS_SET_GID, 40, (gid_t)-1), 0);
    cr_assert_eq(t_stat(fs, f).st_uid, 40);
    cr_assert_eq(t_stat(fs, f).st_gid, 30);
}

Test(reffs_attr, chown_clears_setuid_and_exec_setgid)
{
    cr_assert_eq(t_chmod(fs, f, 06755), 0);
    cr_assert_eq(chown_(f, REFFS_SET_UID, 1, 0), 0);
    cr_assert_eq(t_stat(fs, f).st_mode & 07777, 0755);
}

Test(reffs_attr, chown_keeps_setgid_without_group_exec)
{
    cr_assert_eq(t_chmod(fs, f, 06745), 0);
    cr_assert_eq(chown_(f, REFFS_SET_GID, 0, 5), 0);
    cr_assert_eq(t_stat(fs, f).st_mode & 07777, 02745);
}

Test(reffs_attr, chown_with_mode_takes_given_mode)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_UID | REFFS_SET_MODE, .uid = 3, .mode = 04755 };
    cr_assert_eq(t_chmod(fs, f, 04755), 0);
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(t_stat(fs, f).st_mode & 07777, 04755);
}

Test(reffs_attr, chown_keeps_setgid_on_directory)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(t_chmod(fs, d, 02775), 0);
    cr_assert_eq(chown_(d, REFFS_SET_UID, 7, 0), 0);
    cr_assert_eq(t_stat(fs, d).st_mode & 07777, 02775);
}

Test(reffs_attr, setattr_updates_ctime)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_CTIME, .ctime = { 3, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(t_stat(fs, f).st_ctime, 3);
    cr_assert_eq(t_chmod(fs, f, 0600), 0);
    cr_assert_gt(t_stat(fs, f).st_ctime, 3);
}

Test(reffs_attr, utimens_sets_given_times)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_ATIME | REFFS_SET_MTIME,
                                .atime = { 100, 5 }, .mtime = { 200, 6 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    struct stat st = t_stat(fs, f);
    cr_assert_eq(st.st_atim.tv_sec, 100);
    cr_assert_eq(st.st_atim.tv_nsec, 5);
    cr_assert_eq(st.st_mtim.tv_sec, 200);
    cr_assert_eq(st.st_mtim.tv_nsec, 6);
    cr_assert_gt(st.st_ctime, 200);
}

Test(reffs_attr, utimens_now)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_ATIME | REFFS_SET_MTIME,
                                .atime = { 1, 0 }, .mtime = { 1, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    sa.mtime.tv_nsec = UTIME_NOW;
    sa.valid = REFFS_SET_MTIME;
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_gt(t_stat(fs, f).st_mtime, 1000);
    cr_assert_eq(t_stat(fs, f).st_atime, 1);
}

Test(reffs_attr, utimens_omit_keeps)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_ATIME | REFFS_SET_MTIME,
                                .atime = { 1, 0 }, .mtime = { 2, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    sa.atime.tv_nsec = UTIME_OMIT;
    sa.mtime.tv_sec = 50;
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(t_stat(fs, f).st_atime, 1);
    cr_assert_eq(t_stat(fs, f).st_mtime, 50);
}

Test(reffs_attr, access_F_OK_and_ENOENT)
{
    cr_assert_eq(reffs_access(fs, f, F_OK), 0);
    cr_assert_eq(reffs_access(fs, 4444, F_OK), -ENOENT);
}

Test(reffs_attr, access_root_reads_and_writes_anything)
{
    cr_assert_eq(t_chmod(fs, f, 0), 0);
    cr_assert_eq(reffs_access(fs, f, R_OK | W_OK), 0);
}

Test(reffs_attr, access_EACCES_exec_without_x_bit)
{
    cr_assert_eq(reffs_access(fs, f, X_OK), -EACCES);
    cr_assert_eq(t_chmod(fs, f, 0601), 0);
    cr_assert_eq(reffs_access(fs, f, X_OK), 0);
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(t_chmod(fs, d, 0), 0);
    cr_assert_eq(reffs_access(fs, d, X_OK), 0);
}

Test(reffs_attr, access_EINVAL_bad_mask)
{
    cr_assert_eq(reffs_access(fs, f, 0x100), -EINVAL);
}

Test(reffs_attr, link_updates_ctime)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_CTIME, .ctime = { 3, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), 0);
    cr_assert_gt(t_stat(fs, f).st_ctime, 3);
}

Test(reffs_attr, unlink_updates_ctime_of_remaining_link)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), 0);
    struct reffs_setattr sa = { .valid = REFFS_SET_CTIME, .ctime = { 3, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "g"), 0);
    cr_assert_gt(t_stat(fs, f).st_ctime, 3);
}
