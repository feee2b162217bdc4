/* Unit tests of the reproducers' tree listing and comparison (fs-state/tree/reprotree.c, over tree/walk.c and tree/line.c): what it lists, and the first difference it names. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The replayer is not a library the unit-test binary links: its source is compiled in here. */
#include "tree/reprotree.c"

static char rtt_top[64];

static int rtt_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void rtt_setup(void)
{
    cr_redirect_stdout();       /* rt_compare prints each differing entry */
    umask(0);
    snprintf(rtt_top, sizeof rtt_top, "/dev/shm/metis-rtt-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(rtt_top));
}

static void rtt_teardown(void)
{
    nftw(rtt_top, rtt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void rtt_file(const char *name, const char *data, mode_t mode)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", rtt_top, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, data, strlen(data)), (ssize_t)strlen(data));
    close(fd);
}

static void rtt_list(struct rt_tree *t)
{
    int fd = open(rtt_top, O_RDONLY | O_DIRECTORY);
    memset(t, 0, sizeof *t);
    cr_assert_eq(rt_list(fd, "lost+found", t), 0);
    close(fd);
}

/* Field k (enum tree_field) of a listing line, into out. */
static const char *rtt_field(const char *line, int k, char *out, size_t len)
{
    for (int i = 0; i < k && line; i++)
        line = strchr(line, ' ') ? strchr(line, ' ') + 1 : NULL;
    snprintf(out, len, "%.*s", line ? (int)strcspn(line, " ") : 0, line ? line : "");
    return out;
}

/* The listing's hash of n bytes at p. */
static const char *rtt_fnv(const char *p, size_t n, char *out, size_t len)
{
    uint64_t h;
    struct tree_hash fnv = tree_fnv_hash;
    struct buf b = { 0 };
    fnv.ctx = &h;
    cr_assert(fnv.begin(fnv.ctx) == 0 && fnv.update(fnv.ctx, p, n) == 0 && fnv.hex(fnv.ctx, &b) == 0);
    snprintf(out, len, "%s", b.p);
    buf_free(&b);
    return out;
}

/* got compared with ref, the most telling difference in first; the count of entries. */
static int rtt_compare(const struct rt_tree *ref, const struct rt_tree *got, char *first)
{
    return rt_compare((const char *const *)ref->v, ref->n, got, 0, first, 1600);
}

TestSuite(reprotree, .init = rtt_setup, .fini = rtt_teardown);

Test(reprotree, lists_types_modes_sizes_and_leaves_out_excluded_dirs)
{
    char p[256];
    struct rt_tree t;
    char f[64], h[64];
    snprintf(p, sizeof p, "%s/lost+found", rtt_top);
    cr_assert_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/d0", rtt_top);
    cr_assert_eq(mkdir(p, 0750), 0);
    cr_assert_eq(chmod(p, 02750), 0);     /* mkdir ignores S_ISGID in its mode */
    rtt_file("d0/f0", "hello", 0640);
    snprintf(p, sizeof p, "%s/d0/l", rtt_top);
    cr_assert_eq(symlink("f0", p), 0);
    rtt_list(&t);
    cr_assert_eq(t.n, 4);
    cr_assert(strncmp(t.v[0], "/ d ", 4) == 0);
    cr_assert(strcmp(rtt_field(t.v[0], TREE_F_NLINK, f, sizeof f), "3") == 0 &&
              strcmp(rtt_field(t.v[0], TREE_F_SIZE, f, sizeof f), "-") == 0 &&
              strcmp(rtt_field(t.v[0], TREE_F_DATA, f, sizeof f), "-") == 0,
              "root nlink without lost+found: %s", t.v[0]);
    cr_assert(strncmp(t.v[1], "/d0 d 2750 ", 11) == 0, "%s", t.v[1]);
    cr_assert(strncmp(t.v[2], "/d0/f0 f 0640 ", 14) == 0, "%s", t.v[2]);
    cr_assert_str_eq(rtt_field(t.v[2], TREE_F_SIZE, f, sizeof f), "5");
    cr_assert(strncmp(t.v[3], "/d0/l l ", 8) == 0 &&
              strcmp(rtt_field(t.v[3], TREE_F_DATA, f, sizeof f), rtt_fnv("f0", 2, h, sizeof h)) == 0 &&
              strcmp(rtt_field(t.v[3], TREE_F_XATTRS, f, sizeof f), "-") == 0, "%s", t.v[3]);
    rt_free(&t);
}

Test(reprotree, names_the_file_and_content_of_a_data_difference)
{
    struct rt_tree ref, got;
    char first[1600];
    rtt_file("f0", "hello", 0644);
    rtt_list(&ref);
    cr_assert_eq(rtt_compare(&ref, &ref, first), 0);
    rtt_file("f0", "hellp", 0644);
    rtt_list(&got);
    cr_assert_eq(rtt_compare(&ref, &got, first), 1);
    cr_assert(strncmp(first, "/f0: content: here ", 19) == 0, "%s", first);
    rt_free(&ref);
    rt_free(&got);
}

Test(reprotree, a_missing_entry_says_more_than_its_parent)
{
    struct rt_tree ref, got;
    char p[256], first[1600];
    snprintf(p, sizeof p, "%s/d0", rtt_top);
    cr_assert_eq(mkdir(p, 0755), 0);
    rtt_list(&ref);
    rmdir(p);
    rtt_list(&got);
    cr_assert_eq(rtt_compare(&ref, &got, first), 2);
    cr_assert_str_eq(first, "/d0: missing: here (none), reference d");
    rt_free(&ref);
    rt_free(&got);
}

Test(reprotree, xattr_values_and_ignored_modes)
{
    struct rt_tree ref, got;
    char p[256], first[1600];
    rtt_file("f0", "x", 0644);
    snprintf(p, sizeof p, "%s/f0", rtt_top);
    if (setxattr(p, "user.x0", "a", 1, 0) < 0)
        cr_skip_test("no user xattrs on /dev/shm");
    rtt_list(&ref);
    setxattr(p, "user.x0", "b", 1, 0);
    chmod(p, 0600);
    rtt_list(&got);
    cr_assert_eq(rtt_compare(&ref, &got, first), 1);
    cr_assert(strncmp(first, "/f0: mode: here 0600", 20) == 0, "%s", first);
    cr_assert_eq(rt_compare((const char *const *)ref.v, ref.n, &got, TREE_IGNORE_MODE, first,
                            sizeof first), 1);
    cr_assert(strncmp(first, "/f0: xattr-value:", 17) == 0, "%s", first);
    rt_free(&ref);
    rt_free(&got);
}
