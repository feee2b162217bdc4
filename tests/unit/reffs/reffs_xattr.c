/* Unit tests of RefFS extended attributes: flags, namespaces, sizes, listing, capacity. */
#include "reffs_testutil.h"

static struct reffs *fs;
static reffs_ino f;
static void setup(void)
{
    fs = t_fs(0, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
}
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_xattr, .init = setup, .fini = teardown);

Test(reffs_xattr, set_get_roundtrip)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "val", 3, 0), 0);
    char buf[8];
    cr_assert_eq(reffs_getxattr(fs, f, "user.a", buf, sizeof buf), 3);
    cr_assert_eq(memcmp(buf, "val", 3), 0);
    cr_assert_eq(reffs_getxattr(fs, f, "user.a", NULL, 0), 3);
}

Test(reffs_xattr, empty_value)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.e", NULL, 0, 0), 0);
    char buf[1];
    cr_assert_eq(reffs_getxattr(fs, f, "user.e", buf, sizeof buf), 0);
}

Test(reffs_xattr, replace_value)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "one", 3, 0), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "four", 4, XATTR_REPLACE), 0);
    char buf[8];
    cr_assert_eq(reffs_getxattr(fs, f, "user.a", buf, sizeof buf), 4);
    cr_assert_eq(memcmp(buf, "four", 4), 0);
}

Test(reffs_xattr, set_EEXIST_with_create)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, XATTR_CREATE), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "2", 1, XATTR_CREATE), -EEXIST);
}

Test(reffs_xattr, set_ENODATA_with_replace)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, XATTR_REPLACE), -ENODATA);
}

Test(reffs_xattr, set_EINVAL_bad_flags)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, 0x10), -EINVAL);
}

Test(reffs_xattr, set_EINVAL_bare_prefix)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.", "1", 1, 0), -EINVAL);
}

Test(reffs_xattr, get_ENODATA_missing)
{
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, f, "user.none", buf, sizeof buf), -ENODATA);
}

Test(reffs_xattr, get_ERANGE_small_buffer)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "12345", 5, 0), 0);
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, f, "user.a", buf, sizeof buf), -ERANGE);
}

Test(reffs_xattr, set_E2BIG_value)
{
    static char big[65537];
    cr_assert_eq(reffs_setxattr(fs, f, "user.big", big, sizeof big, 0), -E2BIG);
    cr_assert_eq(reffs_setxattr(fs, f, "user.big", big, 65536, 0), 0);
}

Test(reffs_xattr, ERANGE_long_or_empty_name)
{
    char name[300] = "user.";
    memset(name + 5, 'n', 251);
    name[256] = 0;
    cr_assert_eq(reffs_setxattr(fs, f, name, "1", 1, 0), -ERANGE);
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, f, name, buf, sizeof buf), -ERANGE);
    cr_assert_eq(reffs_removexattr(fs, f, name), -ERANGE);
    cr_assert_eq(reffs_setxattr(fs, f, "", "1", 1, 0), -ERANGE);
    name[255] = 0;
    cr_assert_eq(reffs_setxattr(fs, f, name, "1", 1, 0), 0);
}

Test(reffs_xattr, EOPNOTSUPP_unknown_namespace)
{
    char buf[4];
    cr_assert_eq(reffs_setxattr(fs, f, "system.posix_acl_access", "1", 1, 0), -EOPNOTSUPP);
    cr_assert_eq(reffs_setxattr(fs, f, "foo.bar", "1", 1, 0), -EOPNOTSUPP);
    cr_assert_eq(reffs_getxattr(fs, f, "foo.bar", buf, sizeof buf), -EOPNOTSUPP);
    cr_assert_eq(reffs_removexattr(fs, f, "foo.bar"), -EOPNOTSUPP);
}

Test(reffs_xattr, trusted_and_security_namespaces)
{
    cr_assert_eq(reffs_setxattr(fs, f, "trusted.t", "1", 1, 0), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "security.s", "2", 1, 0), 0);
}

Test(reffs_xattr, user_namespace_EPERM_on_symlink)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "t", 0, 0, &e), 0);
    cr_assert_eq(reffs_setxattr(fs, e.st.st_ino, "user.a", "1", 1, 0), -EPERM);
    cr_assert_eq(reffs_removexattr(fs, e.st.st_ino, "user.a"), -EPERM);
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, e.st.st_ino, "user.a", buf, 4), -ENODATA);
    cr_assert_eq(reffs_setxattr(fs, e.st.st_ino, "trusted.a", "1", 1, 0), 0);
}

Test(reffs_xattr, list_names)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, 0), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "trusted.bb", "2", 1, 0), 0);
    cr_assert_eq(reffs_listxattr(fs, f, NULL, 0), 18);
    char buf[32];
    cr_assert_eq(reffs_listxattr(fs, f, buf, sizeof buf), 18);
    cr_assert_eq(memcmp(buf, "user.a\0trusted.bb\0", 18), 0);
}

Test(reffs_xattr, list_ERANGE_small_buffer)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, 0), 0);
    char buf[4];
    cr_assert_eq(reffs_listxattr(fs, f, buf, sizeof buf), -ERANGE);
}

Test(reffs_xattr, list_empty)
{
    cr_assert_eq(reffs_listxattr(fs, f, NULL, 0), 0);
}

Test(reffs_xattr, remove)
{
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, 0), 0);
    cr_assert_eq(reffs_removexattr(fs, f, "user.a"), 0);
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, f, "user.a", buf, sizeof buf), -ENODATA);
}

Test(reffs_xattr, remove_ENODATA_missing)
{
    cr_assert_eq(reffs_removexattr(fs, f, "user.x"), -ENODATA);
}

Test(reffs_xattr, ENOENT_inode)
{
    char buf[4];
    cr_assert_eq(reffs_setxattr(fs, 999, "user.a", "1", 1, 0), -ENOENT);
    cr_assert_eq(reffs_getxattr(fs, 999, "user.a", buf, 4), -ENOENT);
    cr_assert_eq(reffs_listxattr(fs, 999, buf, 4), -ENOENT);
    cr_assert_eq(reffs_removexattr(fs, 999, "user.a"), -ENOENT);
}

Test(reffs_xattr, set_ENOSPC_counts_against_capacity)
{
    reffs_destroy(fs);
    fs = t_fs(4096, 0);
    f = t_file(fs, REFFS_ROOT_INO, "f");
    static char v[4000];
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", v, sizeof v, 0), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "user.b", v, 100, 0), -ENOSPC);
    cr_assert_eq(reffs_write(fs, f, "x", 1, 0), -ENOSPC);
    cr_assert_eq(reffs_removexattr(fs, f, "user.a"), 0);
    cr_assert_eq(reffs_write(fs, f, "x", 1, 0), 1);
}

Test(reffs_xattr, set_updates_ctime)
{
    struct reffs_setattr sa = { .valid = REFFS_SET_CTIME, .ctime = { 3, 0 } };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    cr_assert_eq(reffs_setxattr(fs, f, "user.a", "1", 1, 0), 0);
    cr_assert_gt(t_stat(fs, f).st_ctime, 3);
}

Test(reffs_xattr, on_directory)
{
    cr_assert_eq(reffs_setxattr(fs, REFFS_ROOT_INO, "user.d", "dd", 2, 0), 0);
    char buf[4];
    cr_assert_eq(reffs_getxattr(fs, REFFS_ROOT_INO, "user.d", buf, 4), 2);
}
