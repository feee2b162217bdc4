/* Unit tests of RefFS name-space operations: lookup, mknod, mkdir, symlink, link, unlink, rmdir, readdir. */
#include "reffs_testutil.h"

static struct reffs *fs;
static void setup(void) { fs = t_fs(0, 0); }
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_ns, .init = setup, .fini = teardown);

Test(reffs_ns, root_is_dir_with_two_links)
{
    struct stat st = t_stat(fs, REFFS_ROOT_INO);
    cr_assert(S_ISDIR(st.st_mode));
    cr_assert_eq(st.st_nlink, 2);
    cr_assert_eq(st.st_ino, REFFS_ROOT_INO);
}

Test(reffs_ns, mknod_creates_regular_file)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    struct stat st = t_stat(fs, f);
    cr_assert(S_ISREG(st.st_mode));
    cr_assert_eq(st.st_mode & 07777, 0644);
    cr_assert_eq(st.st_nlink, 1);
    cr_assert_eq(st.st_size, 0);
    cr_assert_eq(st.st_blksize, 4096);
    cr_assert_eq(t_lookup(fs, REFFS_ROOT_INO, "f"), f);
}

Test(reffs_ns, mknod_type_zero_is_regular)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "f", 0600, 0, 0, 0, &e), 0);
    cr_assert(S_ISREG(e.st.st_mode));
}

Test(reffs_ns, mknod_fifo_and_chardev)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "p", S_IFIFO | 0600, 0, 0, 0, &e), 0);
    cr_assert(S_ISFIFO(e.st.st_mode));
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "c", S_IFCHR | 0600, makedev(1, 3), 0, 0, &e), 0);
    cr_assert(S_ISCHR(e.st.st_mode));
    cr_assert_eq(e.st.st_rdev, makedev(1, 3));
}

/* bind(2) of a unix socket on a path is a mknod of S_IFSOCK through FUSE. */
Test(reffs_ns, mknod_socket_is_a_socket_with_its_mode_and_no_data)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "s", S_IFSOCK | 0755, 0, 0, 0, &e), 0);
    cr_assert(S_ISSOCK(e.st.st_mode));
    cr_assert_eq(e.st.st_mode & 07777, 0755);
    cr_assert_eq(e.st.st_size, 0);
    cr_assert_eq(t_lookup(fs, REFFS_ROOT_INO, "s"), e.st.st_ino);
    char c;
    cr_assert_eq(reffs_read(fs, e.st.st_ino, &c, 1, 0), -EINVAL);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "s"), 0);
}

Test(reffs_ns, mknod_owner_is_caller)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "f", S_IFREG | 0600, 0, 1000, 100, &e), 0);
    cr_assert_eq(e.st.st_uid, 1000);
    cr_assert_eq(e.st.st_gid, 100);
}

Test(reffs_ns, mknod_EEXIST)
{
    t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "f", S_IFREG | 0644, 0, 0, 0, &e), -EEXIST);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, ".", S_IFREG | 0644, 0, 0, 0, &e), -EEXIST);
}

Test(reffs_ns, mknod_ENOENT_parent)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, 999, "f", S_IFREG | 0644, 0, 0, 0, &e), -ENOENT);
}

Test(reffs_ns, mknod_ENOTDIR_parent)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, f, "g", S_IFREG | 0644, 0, 0, 0, &e), -ENOTDIR);
}

Test(reffs_ns, mknod_ENAMETOOLONG)
{
    char name[300];
    memset(name, 'a', 256);
    name[256] = 0;
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, name, S_IFREG | 0644, 0, 0, 0, &e), -ENAMETOOLONG);
    name[255] = 0;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, name, S_IFREG | 0644, 0, 0, 0, &e), 0);
}

Test(reffs_ns, mknod_EPERM_for_directory_type)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "d", S_IFDIR | 0755, 0, 0, 0, &e), -EPERM);
}

Test(reffs_ns, mknod_EINVAL_for_symlink_type)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "l", S_IFLNK | 0777, 0, 0, 0, &e), -EINVAL);
}

Test(reffs_ns, mknod_EINVAL_for_slash_in_name)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "a/b", S_IFREG | 0644, 0, 0, 0, &e), -EINVAL);
}

Test(reffs_ns, mknod_ENOSPC_inode_limit)
{
    reffs_destroy(fs);
    fs = t_fs(0, 3);
    t_file(fs, REFFS_ROOT_INO, "a");
    t_file(fs, REFFS_ROOT_INO, "b");
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "c", S_IFREG | 0644, 0, 0, 0, &e), -ENOSPC);
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "d", 0755, 0, 0, &e), -ENOSPC);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "a"), 0);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "c", S_IFREG | 0644, 0, 0, 0, &e), 0);
}

Test(reffs_ns, create_updates_parent_mtime_ctime)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    struct reffs_setattr sa = { .valid = REFFS_SET_MTIME | REFFS_SET_CTIME,
                                .mtime = { 1, 0 }, .ctime = { 1, 0 } };
    cr_assert_eq(reffs_setattr(fs, d, &sa, NULL), 0);
    t_file(fs, d, "f");
    struct stat st = t_stat(fs, d);
    cr_assert_gt(st.st_mtime, 1);
    cr_assert_gt(st.st_ctime, 1);
}

Test(reffs_ns, lookup_ENOENT)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_lookup(fs, REFFS_ROOT_INO, "nope", &e), -ENOENT);
}

Test(reffs_ns, lookup_ENOTDIR)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_lookup(fs, f, "x", &e), -ENOTDIR);
}

Test(reffs_ns, lookup_ENAMETOOLONG)
{
    char name[300];
    memset(name, 'x', 299);
    name[299] = 0;
    struct reffs_entry e;
    cr_assert_eq(reffs_lookup(fs, REFFS_ROOT_INO, name, &e), -ENAMETOOLONG);
}

Test(reffs_ns, lookup_dot_and_dotdot)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(t_lookup(fs, d, "."), d);
    cr_assert_eq(t_lookup(fs, d, ".."), REFFS_ROOT_INO);
    cr_assert_eq(t_lookup(fs, REFFS_ROOT_INO, ".."), REFFS_ROOT_INO);
}

Test(reffs_ns, getattr_ENOENT)
{
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, 12345, &st), -ENOENT);
}

Test(reffs_ns, generation_differs_on_reuse)
{
    struct reffs_entry a, b;
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "f", S_IFREG | 0644, 0, 0, 0, &a), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    reffs_forget(fs, a.st.st_ino, 1);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "g", S_IFREG | 0644, 0, 0, 0, &b), 0);
    cr_assert_eq(a.st.st_ino, b.st.st_ino);
    cr_assert_neq(a.generation, b.generation);
}

Test(reffs_ns, number_not_reused_until_the_kernel_forgets_it)
{
    struct reffs_entry a, b, c, d;
    struct statvfs sv0, sv1;
    cr_assert_eq(reffs_statfs(fs, &sv0), 0);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "f", S_IFREG | 0644, 0, 0, 0, &a), 0);
    cr_assert_eq(reffs_lookup(fs, REFFS_ROOT_INO, "f", &b), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    cr_assert_eq(reffs_statfs(fs, &sv1), 0);
    cr_assert_eq(sv1.f_ffree, sv0.f_ffree, "the inode itself is freed at once");
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "d", 0755, 0, 0, &c), 0);
    cr_assert_neq(c.st.st_ino, a.st.st_ino);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, a.st.st_ino, &st), 0, "held for the kernel's calls");
    cr_assert_eq(st.st_nlink, 0);
    reffs_forget(fs, a.st.st_ino, 1);
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "e", 0755, 0, 0, &d), 0);
    cr_assert_neq(d.st.st_ino, a.st.st_ino, "one lookup is still held");
    reffs_forget(fs, a.st.st_ino, 1);
    cr_assert_eq(reffs_mknod(fs, REFFS_ROOT_INO, "g", S_IFREG | 0644, 0, 0, 0, &d), 0);
    cr_assert_eq(d.st.st_ino, a.st.st_ino);
}

Test(reffs_ns, mkdir_links_and_size)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    struct stat st = t_stat(fs, d);
    cr_assert(S_ISDIR(st.st_mode));
    cr_assert_eq(st.st_nlink, 2);
    cr_assert_eq(t_stat(fs, REFFS_ROOT_INO).st_nlink, 3);
    t_dir(fs, d, "e");
    cr_assert_eq(t_stat(fs, d).st_nlink, 3);
    t_file(fs, d, "f");
    cr_assert_eq(t_stat(fs, d).st_nlink, 3);
}

Test(reffs_ns, mkdir_drops_setgid_and_setuid_of_mode)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "d", 07777, 0, 0, &e), 0);
    cr_assert_eq(e.st.st_mode & 07777, 01777);
}

Test(reffs_ns, mkdir_inherits_setgid_group)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "d", 0755, 0, 50, &e), 0);
    cr_assert_eq(t_chmod(fs, e.st.st_ino, 02755), 0);
    struct reffs_entry c, f;
    cr_assert_eq(reffs_mkdir(fs, e.st.st_ino, "sub", 0755, 0, 0, &c), 0);
    cr_assert_eq(c.st.st_gid, 50);
    cr_assert(c.st.st_mode & S_ISGID);
    cr_assert_eq(reffs_mknod(fs, e.st.st_ino, "f", S_IFREG | 0644, 0, 0, 0, &f), 0);
    cr_assert_eq(f.st.st_gid, 50);
    cr_assert_not(f.st.st_mode & S_ISGID);
}

Test(reffs_ns, mkdir_EEXIST)
{
    t_dir(fs, REFFS_ROOT_INO, "d");
    struct reffs_entry e;
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "d", 0755, 0, 0, &e), -EEXIST);
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, "..", 0755, 0, 0, &e), -EEXIST);
}

Test(reffs_ns, mkdir_ENOENT_ENOTDIR_ENAMETOOLONG)
{
    struct reffs_entry e;
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    char name[257];
    memset(name, 'n', 256);
    name[256] = 0;
    cr_assert_eq(reffs_mkdir(fs, 777, "d", 0755, 0, 0, &e), -ENOENT);
    cr_assert_eq(reffs_mkdir(fs, f, "d", 0755, 0, 0, &e), -ENOTDIR);
    cr_assert_eq(reffs_mkdir(fs, REFFS_ROOT_INO, name, 0755, 0, 0, &e), -ENAMETOOLONG);
}

Test(reffs_ns, mkdir_ENOENT_in_removed_dir)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(reffs_open(fs, d), 0);
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, "d"), 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_mkdir(fs, d, "x", 0755, 0, 0, &e), -ENOENT);
    cr_assert_eq(t_count_entries(fs, d), 2);   /* tmpfs-like: "." and ".." only */
    cr_assert_eq(reffs_release(fs, d), 0);
    reffs_forget(fs, d, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, d, &st), -ENOENT);
}

Test(reffs_ns, symlink_and_readlink)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "some/target", 0, 0, &e), 0);
    cr_assert(S_ISLNK(e.st.st_mode));
    cr_assert_eq(e.st.st_size, 11);
    char buf[64];
    cr_assert_eq(reffs_readlink(fs, e.st.st_ino, buf, sizeof buf), 11);
    cr_assert_eq(memcmp(buf, "some/target", 11), 0);
    cr_assert_eq(reffs_readlink(fs, e.st.st_ino, buf, 4), 11);
    cr_assert_eq(memcmp(buf, "some", 4), 0);
}

Test(reffs_ns, symlink_EEXIST)
{
    t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "f", "t", 0, 0, &e), -EEXIST);
}

Test(reffs_ns, symlink_ENOENT_empty_target)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "", 0, 0, &e), -ENOENT);
}

Test(reffs_ns, symlink_ENAMETOOLONG_target)
{
    static char target[5000];
    memset(target, 'a', 4096);
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", target, 0, 0, &e), -ENAMETOOLONG);
    target[4095] = 0;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", target, 0, 0, &e), 0);
}

Test(reffs_ns, symlink_ENOSPC)
{
    reffs_destroy(fs);
    fs = t_fs(8, 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "123456789", 0, 0, &e), -ENOSPC);
    cr_assert_eq(reffs_symlink(fs, REFFS_ROOT_INO, "l", "1234", 0, 0, &e), 0);
}

Test(reffs_ns, readlink_EINVAL_on_file)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    char buf[8];
    cr_assert_eq(reffs_readlink(fs, f, buf, sizeof buf), -EINVAL);
}

Test(reffs_ns, readlink_ENOENT)
{
    char buf[8];
    cr_assert_eq(reffs_readlink(fs, 4242, buf, sizeof buf), -ENOENT);
}

Test(reffs_ns, link_increments_nlink)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, d, "g", &e), 0);
    cr_assert_eq(e.st.st_ino, f);
    cr_assert_eq(e.st.st_nlink, 2);
    cr_assert_eq(t_lookup(fs, d, "g"), f);
}

Test(reffs_ns, link_EPERM_on_directory)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, d, REFFS_ROOT_INO, "d2", &e), -EPERM);
}

Test(reffs_ns, link_EEXIST)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    t_file(fs, REFFS_ROOT_INO, "g");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), -EEXIST);
}

Test(reffs_ns, link_ENOENT)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, 555, REFFS_ROOT_INO, "g", &e), -ENOENT);
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_link(fs, f, 556, "g", &e), -ENOENT);
}

Test(reffs_ns, link_ENOENT_unlinked_open_file)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_open(fs, f), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), -ENOENT);
    reffs_release(fs, f);
}

Test(reffs_ns, link_ENOTDIR)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, f, "g", &e), -ENOTDIR);
}

Test(reffs_ns, link_ENAMETOOLONG)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    char name[400];
    memset(name, 'q', 399);
    name[399] = 0;
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, name, &e), -ENAMETOOLONG);
}

Test(reffs_ns, link_EMLINK, .timeout = 60)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    char name[32];
    struct reffs_entry e;
    int r = 0, i;
    for (i = 0; i < 70000 && r == 0; i++) {
        snprintf(name, sizeof name, "l%d", i);
        r = reffs_link(fs, f, d, name, &e);
    }
    cr_assert_eq(r, -EMLINK);
    cr_assert_eq(t_stat(fs, f).st_nlink, 65000);
}

Test(reffs_ns, unlink_removes_and_frees)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    cr_assert_eq(t_lookup(fs, REFFS_ROOT_INO, "f"), 0);
    reffs_forget(fs, f, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, f, &st), -ENOENT);
}

Test(reffs_ns, unlink_one_of_two_links)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    cr_assert_eq(t_stat(fs, f).st_nlink, 1);
}

Test(reffs_ns, unlink_ENOENT)
{
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "nope"), -ENOENT);
    cr_assert_eq(reffs_unlink(fs, 888, "nope"), -ENOENT);
}

Test(reffs_ns, unlink_EISDIR)
{
    t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "d"), -EISDIR);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "."), -EISDIR);
}

Test(reffs_ns, unlink_ENOTDIR)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_unlink(fs, f, "x"), -ENOTDIR);
}

Test(reffs_ns, unlink_ENAMETOOLONG)
{
    char name[300];
    memset(name, 'z', 299);
    name[299] = 0;
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, name), -ENAMETOOLONG);
}

Test(reffs_ns, unlinked_open_file_lives_until_release)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    t_write(fs, f, "hello", 5, 0);
    cr_assert_eq(reffs_open(fs, f), 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    char buf[8];
    cr_assert_eq(reffs_read(fs, f, buf, sizeof buf, 0), 5);
    cr_assert_eq(t_stat(fs, f).st_nlink, 0);
    cr_assert_eq(reffs_release(fs, f), 0);
    reffs_forget(fs, f, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, f, &st), -ENOENT);
}

Test(reffs_ns, open_ENOENT)
{
    cr_assert_eq(reffs_open(fs, 31337), -ENOENT);
}

/* A call the kernel made on a name before another removed its last link still finds the inode
 * (as on ext4), though free space and inodes count it as gone at once; it goes at FORGET. */
Test(reffs_ns, unlinked_inode_the_kernel_holds_lives_until_forget)
{
    struct statvfs sv0, sv1;
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_statfs(fs, &sv0), 0);
    t_write(fs, f, "hello", 5, 0);
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f"), 0);
    cr_assert_eq(reffs_statfs(fs, &sv1), 0);
    cr_assert_eq(sv1.f_ffree, sv0.f_ffree + 1);
    cr_assert_eq(sv1.f_bfree, sv0.f_bfree);
    cr_assert_eq(reffs_open(fs, f), 0);
    t_write(fs, f, "hello again", 11, 4096);
    char buf[8];
    cr_assert_eq(reffs_read(fs, f, buf, sizeof buf, 0), 8);
    cr_assert_eq(reffs_release(fs, f), 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_link(fs, f, REFFS_ROOT_INO, "g", &e), -ENOENT);
    reffs_forget(fs, f, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, f, &st), -ENOENT);
    cr_assert_eq(reffs_statfs(fs, &sv1), 0);
    cr_assert_eq(sv1.f_ffree, sv0.f_ffree + 1);
    cr_assert_eq(sv1.f_bfree, sv0.f_bfree, "what it took while held is given back");
}

Test(reffs_ns, forget_keeps_linked_inode)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    reffs_forget(fs, f, 1);
    cr_assert_eq(t_stat(fs, f).st_nlink, 1);
}

Test(reffs_ns, rmdir_removes_empty_dir)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, "d"), 0);
    cr_assert_eq(t_lookup(fs, REFFS_ROOT_INO, "d"), 0);
    cr_assert_eq(t_stat(fs, REFFS_ROOT_INO).st_nlink, 2);
    reffs_forget(fs, d, 1);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, d, &st), -ENOENT);
}

Test(reffs_ns, rmdir_ENOTEMPTY)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    t_file(fs, d, "f");
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, "d"), -ENOTEMPTY);
    cr_assert_eq(reffs_rmdir(fs, d, ".."), -ENOTEMPTY);
}

Test(reffs_ns, rmdir_EINVAL_dot)
{
    reffs_ino d = t_dir(fs, REFFS_ROOT_INO, "d");
    cr_assert_eq(reffs_rmdir(fs, d, "."), -EINVAL);
}

Test(reffs_ns, rmdir_ENOTDIR)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, "f"), -ENOTDIR);
    cr_assert_eq(reffs_rmdir(fs, f, "x"), -ENOTDIR);
}

Test(reffs_ns, rmdir_ENOENT)
{
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, "nope"), -ENOENT);
}

Test(reffs_ns, rmdir_ENAMETOOLONG)
{
    char name[300];
    memset(name, 'r', 299);
    name[299] = 0;
    cr_assert_eq(reffs_rmdir(fs, REFFS_ROOT_INO, name), -ENAMETOOLONG);
}

struct t_names {
    char names[16][32];
    off_t next[16];
    int n;
    int stop_after;
};

static int collect(void *ctx, const char *name, const struct stat *st, off_t next)
{
    (void)st;
    struct t_names *c = ctx;
    snprintf(c->names[c->n], sizeof c->names[0], "%s", name);
    c->next[c->n++] = next;
    return c->stop_after && c->n >= c->stop_after;
}

Test(reffs_ns, readdir_lists_dot_dotdot_and_entries_in_order)
{
    t_file(fs, REFFS_ROOT_INO, "b");
    t_file(fs, REFFS_ROOT_INO, "a");
    t_dir(fs, REFFS_ROOT_INO, "c");
    struct t_names c = { 0 };
    cr_assert_eq(reffs_readdir(fs, REFFS_ROOT_INO, 0, collect, &c), 0);
    cr_assert_eq(c.n, 5);
    cr_assert_str_eq(c.names[0], ".");
    cr_assert_str_eq(c.names[1], "..");
    cr_assert_str_eq(c.names[2], "b");
    cr_assert_str_eq(c.names[3], "a");
    cr_assert_str_eq(c.names[4], "c");
}

Test(reffs_ns, readdir_resumes_from_offset_despite_removals)
{
    for (int i = 0; i < 6; i++) {
        char n[16];
        snprintf(n, sizeof n, "f%d", i);
        t_file(fs, REFFS_ROOT_INO, n);
    }
    struct t_names c = { .stop_after = 4 };
    reffs_readdir(fs, REFFS_ROOT_INO, 0, collect, &c);
    cr_assert_str_eq(c.names[3], "f1");
    cr_assert_eq(reffs_unlink(fs, REFFS_ROOT_INO, "f0"), 0);
    struct t_names d = { 0 };
    reffs_readdir(fs, REFFS_ROOT_INO, c.next[3], collect, &d);
    cr_assert_eq(d.n, 4);
    cr_assert_str_eq(d.names[0], "f2");
    cr_assert_str_eq(d.names[3], "f5");
}

Test(reffs_ns, readdir_ENOTDIR)
{
    reffs_ino f = t_file(fs, REFFS_ROOT_INO, "f");
    int n = 0;
    cr_assert_eq(reffs_readdir(fs, f, 0, t_count_cb, &n), -ENOTDIR);
}

Test(reffs_ns, readdir_ENOENT)
{
    int n = 0;
    cr_assert_eq(reffs_readdir(fs, 9999, 0, t_count_cb, &n), -ENOENT);
}

Test(reffs_ns, readdir_EINVAL_negative_offset)
{
    int n = 0;
    cr_assert_eq(reffs_readdir(fs, REFFS_ROOT_INO, -1, t_count_cb, &n), -EINVAL);
}

Test(reffs_ns, dir_size_grows_by_20_per_entry)
{
    cr_assert_eq(t_stat(fs, REFFS_ROOT_INO).st_size, 40);
    t_file(fs, REFFS_ROOT_INO, "f");
    cr_assert_eq(t_stat(fs, REFFS_ROOT_INO).st_size, 60);
}

/* Fills dir with subdirectories until mkdir fails; returns that failure. */
static int fill_subdirs(reffs_ino dir, int *made)
{
    char name[32];
    struct reffs_entry e;
    int r = 0;
    for (*made = 0; *made < 70000 && r == 0; ++*made) {
        snprintf(name, sizeof name, "s%d", *made);
        r = reffs_mkdir(fs, dir, name, 0755, 0, 0, &e);
    }
    return r;
}

Test(reffs_ns, mkdir_EMLINK, .timeout = 60)
{
    reffs_destroy(fs);
    fs = t_fs(0, 70000);
    int made;
    cr_assert_eq(fill_subdirs(REFFS_ROOT_INO, &made), -EMLINK);
    cr_assert_eq(t_stat(fs, REFFS_ROOT_INO).st_nlink, 65000);
}

Test(reffs_ns, rename_EMLINK_dir_into_full_parent, .timeout = 60)
{
    reffs_destroy(fs);
    fs = t_fs(0, 70000);
    reffs_ino p = t_dir(fs, REFFS_ROOT_INO, "p");
    reffs_ino q = t_dir(fs, REFFS_ROOT_INO, "q");
    t_dir(fs, q, "mover");
    int made;
    cr_assert_eq(fill_subdirs(p, &made), -EMLINK);
    cr_assert_eq(reffs_rename(fs, q, "mover", p, "mover", 0), -EMLINK);
    t_file(fs, q, "file");
    cr_assert_eq(reffs_rename(fs, q, "file", p, "file", 0), 0);
}
