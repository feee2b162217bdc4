/* Unit tests of recorded trees written out as a directory and read back (fs-state/backend/logical/trees/treedir.c): what a {dir}-backed fs's checkpoint and a tmpfs's export must keep. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "backend/logical/trees/fstree.h"
#include "backend/logical/trees/treedir.h"

static char td_dir[64];
static int td_src = -1;
static struct ft_store td_st;

static void td_setup(void)
{
    snprintf(td_dir, sizeof td_dir, "/tmp/metis-treedir-XXXXXX");
    cr_assert_not_null(mkdtemp(td_dir));
    char src[128];
    snprintf(src, sizeof src, "%s/src", td_dir);
    cr_assert_eq(mkdir(src, 0755), 0);
    td_src = open(src, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(td_src, 0);
    cr_assert_eq(ft_store_init(&td_st, "md5", "", 0), 0);
}

static void td_teardown(void)
{
    char cmd[128];
    ft_store_free(&td_st);
    close(td_src);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", td_dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(metis_treedir, .init = td_setup, .fini = td_teardown);

/* A tree with what a backing directory holds: modes, a hard link, a hole, an xattr (where the
 * directory's fs takes user xattrs), a symlink and a subdirectory. */
static void make_source(void)
{
    int fd = openat(td_src, "f", O_WRONLY | O_CREAT, 0640);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, "head", 4, 0), 4);
    cr_assert_eq(pwrite(fd, "tail", 4, 1 << 20), 4);       /* a 1 MiB hole between */
    (void)fsetxattr(fd, "user.k", "v", 1, 0);
    close(fd);
    cr_assert_eq(fchmodat(td_src, "f", 04751, 0), 0);
    cr_assert_eq(linkat(td_src, "f", td_src, "f2", 0), 0);
    cr_assert_eq(mkdirat(td_src, "d", 0700), 0);
    cr_assert_eq(symlinkat("../f", td_src, "d/l"), 0);
}

/* The source made and recorded. */
static struct ft_tree *source_tree(void)
{
    make_source();
    struct ft_tree *t = ft_record(&td_st, td_src, NULL);
    cr_assert_not_null(t);
    return t;
}

/* got must be want, hard-link groups included; got is dropped. */
static void expect_same(const struct ft_tree *want, struct ft_tree *got, const char *what)
{
    char diff[800];
    cr_assert_not_null(got, "%s: not recorded", what);
    ft_first_difference(&td_st, want, "source", got, what, diff, sizeof diff);
    cr_expect(want->dlen == got->dlen &&
              memcmp(want->digest, got->digest, (size_t)want->dlen) == 0 &&
              ft_same_links(want, got), "%s", diff);
    ft_unref(&td_st, got);
}

Test(metis_treedir, write_then_read_keeps_the_tree)
{
    char err[700], out[128];
    struct ft_tree *t = source_tree();
    snprintf(out, sizeof out, "%s/out", td_dir);
    cr_assert_eq(td_write(&td_st, t, out, err, sizeof err), 0, "%s", err);
    expect_same(t, td_read(&td_st, out, err, sizeof err), "written");
    struct stat a, b, hole;
    char path[160];
    snprintf(path, sizeof path, "%s/f", out);
    cr_assert_eq(stat(path, &a), 0);
    snprintf(path, sizeof path, "%s/f2", out);
    cr_assert_eq(stat(path, &b), 0);
    cr_expect_eq(a.st_ino, b.st_ino, "the hard link is one file again");
    cr_expect_eq(a.st_mode & 07777, 04751);
    cr_expect_eq(a.st_size, (1 << 20) + 4);
    hole = a;
    cr_expect_lt(hole.st_blocks * 512, 1 << 19, "the hole stays a hole (%lld blocks)",
                 (long long)hole.st_blocks);
    /* written again over itself: the old directory is replaced, not merged */
    cr_assert_eq(td_write(&td_st, t, out, err, sizeof err), 0, "%s", err);
    ft_unref(&td_st, t);
}

/* A directory that holds something else ends holding the tree: what it had is the
 * difference's start (so a put-back over leftovers cannot merge them in). */
Test(metis_treedir, fill_replaces_what_the_directory_held)
{
    char err[700], path[128];
    struct ft_tree *t = source_tree();
    snprintf(path, sizeof path, "%s/src/d", td_dir);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(td_fill(&td_st, fd, t, err, sizeof err), 0, "%s", err);
    expect_same(t, ft_record(&td_st, fd, NULL), "filled");
    close(fd);
    cr_expect_null(td_read(&td_st, "/nonexistent/metis-treedir", err, sizeof err));
    cr_expect(strstr(err, "cannot read the directory") != NULL, "%s", err);
    ft_unref(&td_st, t);
}
