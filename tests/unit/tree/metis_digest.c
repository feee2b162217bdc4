/* Unit tests of the abstract state (fs-state/tree/digest.c): what changes the digest, what does not, and its speed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "tree/digest.h"

static char abst_top[64];
static int abst_a = -1, abst_b = -1;     /* two trees to compare */

static int abst_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void abst_setup(void)
{
    umask(0);
    snprintf(abst_top, sizeof abst_top, "/dev/shm/metis-abs-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(abst_top));
    char p[128];
    snprintf(p, sizeof p, "%s/a", abst_top);
    cr_assert_eq(mkdir(p, 0755), 0);
    abst_a = open(p, O_RDONLY | O_DIRECTORY);
    snprintf(p, sizeof p, "%s/b", abst_top);
    cr_assert_eq(mkdir(p, 0755), 0);
    abst_b = open(p, O_RDONLY | O_DIRECTORY);
    cr_assert(abst_a >= 0 && abst_b >= 0);
}

static void abst_teardown(void)
{
    close(abst_a);
    close(abst_b);
    nftw(abst_top, abst_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(metis_abstract, .init = abst_setup, .fini = abst_teardown);

static void abst_file(int root, const char *rel, const char *content, mode_t mode)
{
    int fd = openat(root, rel, O_CREAT | O_WRONLY | O_TRUNC, mode);
    cr_assert(fd >= 0, "create %s", rel);
    if (content)
        cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
    close(fd);
}

static void abst_xattr(int root, const char *rel, const char *name, const char *value)
{
    int fd = openat(root, rel, O_RDONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(fsetxattr(fd, name, value, strlen(value), 0), 0, "setxattr %s", name);
    close(fd);
}

/* The same 12-entry tree, built in one of two orders. */
static void abst_build(int root, int order)
{
    if (order == 0) {
        cr_assert_eq(mkdirat(root, "d0", 0755), 0);
        cr_assert_eq(mkdirat(root, "d1", 0700), 0);
        cr_assert_eq(mkdirat(root, "d0/d2", 0755), 0);
        abst_file(root, "f0", "hello", 0644);
        abst_file(root, "f1", "", 0600);
        abst_file(root, "d0/f2", "world", 0644);
        abst_file(root, "d0/d2/f3", "deep", 0644);
        abst_file(root, "d1/f4", "x", 0640);
        cr_assert_eq(symlinkat("d0/f2", root, "l0"), 0);
        cr_assert_eq(linkat(root, "f0", root, "d1/h0", 0), 0);
        abst_xattr(root, "f0", "user.b", "2");
        abst_xattr(root, "f0", "user.a", "1");
        abst_xattr(root, "d0", "user.a", "dir");
        cr_assert_eq(symlinkat("f4", root, "d1/l1"), 0);
    } else {
        abst_file(root, "f1", "", 0600);
        cr_assert_eq(mkdirat(root, "d1", 0700), 0);
        cr_assert_eq(symlinkat("f4", root, "d1/l1"), 0);
        abst_file(root, "d1/f4", "x", 0640);
        abst_file(root, "f0", "hel", 0644);
        abst_xattr(root, "f0", "user.a", "1");
        cr_assert_eq(symlinkat("d0/f2", root, "l0"), 0);
        cr_assert_eq(mkdirat(root, "d0", 0755), 0);
        abst_xattr(root, "d0", "user.a", "dir");
        cr_assert_eq(mkdirat(root, "d0/d2", 0755), 0);
        abst_file(root, "d0/d2/f3", "deep", 0644);
        abst_file(root, "d0/f2", "world", 0644);
        int fd = openat(root, "f0", O_WRONLY | O_APPEND);
        cr_assert_eq(write(fd, "lo", 2), 2);
        close(fd);
        abst_xattr(root, "f0", "user.b", "2");
        cr_assert_eq(linkat(root, "f0", root, "d1/h0", 0), 0);
        struct timespec old[2] = { { 1000, 0 }, { 2000, 0 } };
        cr_assert_eq(utimensat(root, "d0/f2", old, 0), 0);
    }
}

static struct tree_opts abst_opts = { "md5", "lost+found,.metis-filler", 0, 0 };

static void abst_digest(int root, unsigned char *d)
{
    cr_assert_eq(tree_digest(root, &abst_opts, d, NULL, NULL), 16);
}

static int abst_equal(void)
{
    unsigned char x[TREE_MAX_DIGEST], y[TREE_MAX_DIGEST];
    abst_digest(abst_a, x);
    abst_digest(abst_b, y);
    return memcmp(x, y, 16) == 0;
}

static char *abst_listing(int root)
{
    unsigned char d[TREE_MAX_DIGEST];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(tree_digest(root, &abst_opts, d, f, NULL), 16);
    fclose(f);
    return text;
}

Test(metis_abstract, order_and_times_do_not_matter)
{
    abst_build(abst_a, 0);
    abst_build(abst_b, 1);
    char *la = abst_listing(abst_a), *lb = abst_listing(abst_b);
    cr_assert_str_eq(la, lb);
    cr_assert(abst_equal());
    int lines = 0;
    for (char *p = la; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 12, "listing:\n%s", la);
    cr_assert_not_null(strstr(la, "/f0 f 0644 2 0 0 5 5d41402abc4b2a76b9719d911017c592 [user.a=1:"),
                       "listing:\n%s", la);
    cr_assert_not_null(strstr(la, "\n/d0 d 0755 3 0 0 - - [user.a=3:"), "listing:\n%s", la);
    free(la);
    free(lb);
}

/* Each change on tree b alone must show in the digest. */
static void abst_changes(const char *what, void (*change)(int root))
{
    abst_build(abst_a, 0);
    abst_build(abst_b, 0);
    cr_assert(abst_equal());
    change(abst_b);
    cr_assert(!abst_equal(), "digest missed: %s", what);
}

static void ch_content(int r) { abst_file(r, "d0/d2/f3", "deeP", 0644); }
static void ch_mode(int r) { cr_assert_eq(fchmodat(r, "d1/f4", 0644, 0), 0); }
static void ch_dirmode(int r) { cr_assert_eq(fchmodat(r, "d0/d2", 01755, 0), 0); }
static void ch_uid(int r) { cr_assert_eq(fchownat(r, "f1", 1000, -1, 0), 0); }
static void ch_gid(int r) { cr_assert_eq(fchownat(r, "d0", -1, 1000, 0), 0); }
static void ch_linkuid(int r) { cr_assert_eq(fchownat(r, "l0", 1000, -1, AT_SYMLINK_NOFOLLOW), 0); }
static void ch_size(int r)
{
    int fd = openat(r, "f0", O_WRONLY);
    cr_assert_eq(ftruncate(fd, 4096), 0);   /* zeros only: content blocks are the same */
    close(fd);
}
static void ch_target(int r)
{
    cr_assert_eq(unlinkat(r, "l0", 0), 0);
    cr_assert_eq(symlinkat("d0/f3", r, "l0"), 0);
}
static void ch_xvalue(int r) { abst_xattr(r, "f0", "user.b", "3"); }
static void ch_xname(int r)
{
    int fd = openat(r, "f0", O_RDONLY);
    cr_assert_eq(fremovexattr(fd, "user.b"), 0);
    close(fd);
    abst_xattr(r, "f0", "user.c", "2");
}
static void ch_dirx(int r) { abst_xattr(r, "d0", "user.z", ""); }
static void ch_rootx(int r) { abst_xattr(r, ".", "user.z", "1"); }
static void ch_rootmode(int r) { cr_assert_eq(fchmod(r, 0700), 0); }
static void ch_nlink(int r)
{
    /* Only f0's link count changes: the new name is in an excluded root entry. */
    cr_assert_eq(mkdirat(r, "lost+found", 0700), 0);
    cr_assert_eq(linkat(r, "f0", r, "lost+found/h", 0), 0);
}
static void ch_type(int r)
{
    cr_assert_eq(unlinkat(r, "f1", 0), 0);
    cr_assert_eq(mkdirat(r, "f1", 0600), 0);
}
static void ch_rename(int r) { cr_assert_eq(renameat(r, "d1/f4", r, "d1/f5"), 0); }
static void ch_nested_excluded(int r) { cr_assert_eq(mkdirat(r, "d0/lost+found", 0700), 0); }
static void ch_dir_nlink(int r) { cr_assert_eq(renameat(r, "d0/d2", r, "d1/d2"), 0); }

Test(metis_abstract, content) { abst_changes("content", ch_content); }
Test(metis_abstract, mode) { abst_changes("file mode", ch_mode); }
Test(metis_abstract, dir_mode) { abst_changes("sticky bit on a directory", ch_dirmode); }
Test(metis_abstract, uid) { abst_changes("uid", ch_uid); }
Test(metis_abstract, gid) { abst_changes("gid", ch_gid); }
Test(metis_abstract, symlink_owner) { abst_changes("symlink owner", ch_linkuid); }
Test(metis_abstract, size) { abst_changes("size grown with zeros", ch_size); }
Test(metis_abstract, symlink_target) { abst_changes("symlink target", ch_target); }
Test(metis_abstract, xattr_value) { abst_changes("xattr value", ch_xvalue); }
Test(metis_abstract, xattr_name) { abst_changes("xattr name", ch_xname); }
Test(metis_abstract, dir_xattr) { abst_changes("empty xattr on a directory", ch_dirx); }
Test(metis_abstract, root_xattr) { abst_changes("xattr on the root", ch_rootx); }
Test(metis_abstract, root_mode) { abst_changes("root mode", ch_rootmode); }
Test(metis_abstract, file_nlink) { abst_changes("file link count", ch_nlink); }
Test(metis_abstract, type) { abst_changes("file became directory", ch_type); }
Test(metis_abstract, rename) { abst_changes("name", ch_rename); }
Test(metis_abstract, nested_lost_found) { abst_changes("lost+found below the root", ch_nested_excluded); }

/* An ignored attribute's change must not show. */
static void abst_ignored(unsigned ignore, void (*change)(int root), const char *what)
{
    abst_opts.ignore = ignore;
    abst_build(abst_a, 0);
    abst_build(abst_b, 0);
    change(abst_b);
    cr_assert(abst_equal(), "ignored %s changed the digest", what);
}

Test(metis_abstract, ignore_mode) { abst_ignored(TREE_IGNORE_MODE, ch_mode, "mode"); }
Test(metis_abstract, ignore_owner) { abst_ignored(TREE_IGNORE_OWNER, ch_uid, "owner"); }
Test(metis_abstract, ignore_group) { abst_ignored(TREE_IGNORE_OWNER, ch_gid, "group"); }
Test(metis_abstract, ignore_xattrs) { abst_ignored(TREE_IGNORE_XATTRS, ch_xvalue, "xattrs"); }

Test(metis_abstract, ignore_dir_nlink)
{
    /* Moving d2 from d0 to d1 changes only the directories' link counts (and d2's path):
     * compare a tree where d2 moved with one built with d2 in d1 from the start. */
    abst_build(abst_a, 0);
    abst_build(abst_b, 0);
    ch_dir_nlink(abst_b);
    cr_assert(!abst_equal());
    char *l = abst_listing(abst_b);
    cr_assert_not_null(strstr(l, "\n/d0 d 0755 2 "), "%s", l);
    cr_assert_not_null(strstr(l, "\n/d1 d 0700 3 "), "%s", l);
    free(l);
    abst_opts.ignore = TREE_IGNORE_DIR_NLINK;
    l = abst_listing(abst_b);
    cr_assert_not_null(strstr(l, "\n/d0 d 0755 - 0 0 - "), "%s", l);
    cr_assert_not_null(strstr(l, "\n/f0 f 0644 2 "), "file nlink must stay: %s", l);
    free(l);
}

Test(metis_abstract, excluded_root_entries)
{
    abst_build(abst_a, 0);
    abst_build(abst_b, 0);
    cr_assert_eq(mkdirat(abst_b, "lost+found", 0700), 0);
    abst_file(abst_b, "lost+found/junk", "junk", 0644);
    abst_file(abst_b, ".metis-filler", "fill", 0600);
    cr_assert(abst_equal(), "excluded entries (and the root's link count) showed");
    abst_opts.exclude = "";
    cr_assert(!abst_equal());
    abst_opts.exclude = "lost+found,.metis-filler";
}

Test(metis_abstract, holes_equal_zeros)
{
    /* A sparse file and one with written zeros, big enough for the SEEK_DATA path. */
    static char zeros[1 << 16];
    int fa = openat(abst_a, "big", O_CREAT | O_WRONLY, 0644);
    int fb = openat(abst_b, "big", O_CREAT | O_WRONLY, 0644);
    for (off_t off = 0; off < (3 << 20); off += sizeof zeros)
        cr_assert_eq(pwrite(fb, zeros, sizeof zeros, off), (ssize_t)sizeof zeros);
    cr_assert_eq(ftruncate(fa, 3 << 20), 0);
    cr_assert_eq(pwrite(fa, "data", 4, 2 << 20), 4);
    cr_assert_eq(pwrite(fb, "data", 4, 2 << 20), 4);
    cr_assert(abst_equal(), "holes and zeros differ");
    cr_assert_eq(pwrite(fa, "x", 1, (3 << 20) - 1), 1);
    cr_assert(!abst_equal(), "last byte missed");
    cr_assert_eq(pwrite(fb, "x", 1, (3 << 20) - 1), 1);
    cr_assert_eq(pwrite(fb, "y", 1, 12345), 1);
    cr_assert(!abst_equal(), "byte in a hole region missed");
    close(fa);
    close(fb);
}

Test(metis_abstract, hashes_and_errors)
{
    cr_assert_eq(tree_digest_len("md5"), 16);
    cr_assert_eq(tree_digest_len("sha256"), 32);
    cr_assert_eq(tree_digest_len(NULL), 16);
    cr_assert_eq(tree_digest_len("no-such-hash"), -1);
    unsigned char d[TREE_MAX_DIGEST];
    struct tree_opts o = { "sha256", "", 0, 0 };
    cr_assert_eq(tree_digest(abst_a, &o, d, NULL, NULL), 32);
    o.hash = "no-such-hash";
    cr_assert_lt(tree_digest(abst_a, &o, d, NULL, NULL), 0);
    o.hash = "md5";
    cr_assert_lt(tree_digest(-1, &o, d, NULL, NULL), 0);
}

Test(metis_abstract, parse_ignore)
{
    unsigned v;
    char err[128] = "";
    cr_assert_eq(tree_parse_ignore("dir_nlink, xattrs,mode ,owner", &v, err, sizeof err), 0, "%s", err);
    cr_assert_eq(v, TREE_IGNORE_DIR_NLINK | TREE_IGNORE_XATTRS | TREE_IGNORE_MODE | TREE_IGNORE_OWNER);
    cr_assert_eq(tree_parse_ignore("", &v, err, sizeof err), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(tree_parse_ignore("mode,atime", &v, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "atime"), "%s", err);
}

static double abst_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

Test(metis_abstract, speed)
{
    abst_build(abst_a, 0);
    unsigned char d[TREE_MAX_DIGEST];
    abst_digest(abst_a, d);
    enum { N = 2000 };
    static double t[N];
    for (int i = 0; i < N; i++) {
        double t0 = abst_now_us();
        tree_digest(abst_a, &abst_opts, d, NULL, NULL);
        t[i] = abst_now_us() - t0;
    }
    /* The fastest tenth, against a bound of 2.5 times what this host takes on a good day
     * (~80 us): other tests run beside this one on the two cores, and the host's own speed
     * drifts (an idle run's median went from 78 to 113 us within the hour). It still catches
     * what matters: a walk that hashes or reads more than it should costs several times more. */
    for (int i = 1; i < N; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    double limit = 200;
#if defined(__SANITIZE_ADDRESS__)
    limit = 800;
#endif
    cr_log_info("tree_digest of 12 entries on tmpfs: 10th percentile %.1f us, median %.1f us",
                t[N / 10], t[N / 2]);
    cr_assert_lt(t[N / 10], limit, "10th percentile %.1f us", t[N / 10]);
}
