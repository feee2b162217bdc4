/* Unit tests of the tree model (fs-state/tree/): the walk's exclusions, one listing line whether an entry is walked or handed over, and the reader of plain directories. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tree/tree.h"

static char tt_top[64];

static int tt_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void tt_setup(void)
{
    umask(0);
    snprintf(tt_top, sizeof tt_top, "/dev/shm/metis-tree-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(tt_top));
}

static void tt_teardown(void)
{
    nftw(tt_top, tt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *tt_path(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", tt_top, name);
    return p;
}

/* What a walk saw: each entry's path, nlink adjustment and FNV listing line. */
struct tt_seen {
    char path[16][64], line[16][1024];
    long adj[16];
    int n;
    struct tree_lister l;
};

static int tt_visit(void *ctx, const struct tree_entry *e)
{
    struct tt_seen *s = ctx;
    struct buf b = { 0 };
    cr_assert_lt(s->n, 16);
    cr_assert_eq(tree_line(&s->l, e, &b) || buf_add(&b, "", 1), 0);
    snprintf(s->path[s->n], sizeof s->path[0], "%s", e->path);
    snprintf(s->line[s->n], sizeof s->line[0], "%s", b.p);
    s->adj[s->n++] = e->nlink_adj;
    buf_free(&b);
    return 0;
}

static uint64_t tt_fnv;
static struct tree_hash tt_hash;
static struct tree_opts tt_opts = { NULL, " lost+found , .metis-filler", 0, 0 };

static void tt_walk(struct tt_seen *s)
{
    tt_hash = tree_fnv_hash;
    tt_hash.ctx = &tt_fnv;
    memset(s, 0, sizeof *s);
    s->l.o = &tt_opts;
    s->l.h = &tt_hash;
    struct tree_walk w = { .exclude = tt_opts.exclude, .visit = tt_visit, .ctx = s };
    int fd = open(tt_top, O_RDONLY | O_DIRECTORY);
    cr_assert_eq(tree_walk(&w, fd), 0);
    close(fd);
    tree_walk_free(&w);
}

static int tt_find(const struct tt_seen *s, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->path[i], path) == 0)
            return i;
    return -1;
}

/* The line tree_line makes of a handed-over entry (fd -1) for name. */
static void tt_handed_over(struct tt_seen *s, const char *name, const struct tree_extent *ext,
                           size_t next, const struct tree_xattr *x, size_t nx, char *out)
{
    char path[64], target[64];
    struct tree_entry e = { .path = path, .fd = -1, .ext = ext, .next = next, .xattrs = x,
                            .nx = nx };
    struct buf b = { 0 };
    snprintf(path, sizeof path, "/%s", name);
    cr_assert_eq(lstat(tt_path(name), &e.st), 0);
    if (S_ISLNK(e.st.st_mode)) {
        ssize_t n = readlink(tt_path(name), target, sizeof target);
        cr_assert_geq(n, 0);
        e.target = target;
        e.tlen = (size_t)n;
    }
    cr_assert_eq(tree_line(&s->l, &e, &b) || buf_add(&b, "", 1), 0);
    snprintf(out, 1024, "%s", b.p);
    buf_free(&b);
}

TestSuite(tree, .init = tt_setup, .fini = tt_teardown);

Test(tree, excluded_names_are_trimmed_the_one_way)
{
    cr_assert(tree_excluded("lost+found", "lost+found"));
    cr_assert(tree_excluded(" a ,  lost+found  ,b", "lost+found"));
    cr_assert(tree_excluded("a,b ", "b"));
    cr_assert(!tree_excluded("lost+found", "lost"));
    cr_assert(!tree_excluded("lost", "lost+found"));
    cr_assert(!tree_excluded("a,,b", ""));
    cr_assert(!tree_excluded(NULL, "a"));
    cr_assert(!tree_excluded("a b", "a"));   /* a blank inside a name is part of it */
}

Test(tree, the_walk_leaves_excluded_root_entries_out_and_counts_their_directories)
{
    struct tt_seen s;
    cr_assert_eq(mkdir(tt_path("lost+found"), 0700), 0);
    cr_assert_eq(mkdir(tt_path(".metis-filler"), 0700), 0);
    cr_assert_eq(mkdir(tt_path("d"), 0755), 0);
    cr_assert_eq(mkdir(tt_path("d/lost+found"), 0755), 0);   /* excluded at the root only */
    tt_walk(&s);
    cr_assert_eq(s.n, 3);
    int root = tt_find(&s, "/");
    cr_assert_geq(root, 0);
    cr_assert_eq(s.adj[root], 2);
    cr_assert(strncmp(s.line[root], "/ d 0700 3 ", 11) == 0, "%s", s.line[root]);
    cr_assert_geq(tt_find(&s, "/d/lost+found"), 0);
    cr_assert_lt(tt_find(&s, "/lost+found"), 0);
}

Test(tree, a_walked_and_a_handed_over_entry_list_alike)
{
    struct tt_seen s;
    char line[1024];
    int fd = open(tt_path("f"), O_WRONLY | O_CREAT, 0640);
    cr_assert_eq(write(fd, "hello", 5), 5);
    close(fd);
    if (setxattr(tt_path("f"), "user.b", "2", 1, 0) < 0 ||
        setxattr(tt_path("f"), "user.a", "one", 3, 0) < 0)
        cr_skip_test("no user xattrs on /dev/shm");
    cr_assert_eq(symlink("f", tt_path("l")), 0);
    int dev = mknod(tt_path("c"), S_IFCHR | 0600, makedev(1, 3)) == 0;
    cr_assert_eq(mkfifo(tt_path("p"), 0644), 0);
    tt_walk(&s);
    struct tree_extent ext = { 0, "hello", 5 };
    struct tree_xattr x[] = { { "user.b", "2", 1 }, { "user.a", "one", 3 } };
    tt_handed_over(&s, "f", &ext, 1, x, 2, line);
    cr_assert_str_eq(line, s.line[tt_find(&s, "/f")]);
    cr_assert(strstr(line, " [user.a=3:"), "%s", line);
    tt_handed_over(&s, "l", NULL, 0, NULL, 0, line);
    cr_assert_str_eq(line, s.line[tt_find(&s, "/l")]);
    tt_handed_over(&s, "p", NULL, 0, NULL, 0, line);
    cr_assert_str_eq(line, s.line[tt_find(&s, "/p")]);
    if (dev) {
        tt_handed_over(&s, "c", NULL, 0, NULL, 0, line);
        cr_assert_str_eq(line, s.line[tt_find(&s, "/c")]);
        cr_assert(strstr(line, " 1:3 - -"), "%s", line);
    }
    tree_lister_free(&s.l);
}

/* Past TREE_SMALL_FILE a walk hashes per block and skips holes (SEEK_DATA): a sparse file
 * handed over as its data extents must list the same. */
Test(tree, a_sparse_file_past_the_small_size_lists_alike_walked_or_handed_over)
{
    struct tt_seen s;
    char line[1024];
    static unsigned char a[TREE_BLOCK], b[TREE_BLOCK];
    memset(a, 'a', sizeof a);
    memset(b, 'b', sizeof b);
    uint64_t far = 2 * (uint64_t)TREE_SMALL_FILE;
    int fd = open(tt_path("big"), O_WRONLY | O_CREAT, 0644);
    cr_assert_eq(pwrite(fd, a, sizeof a, 0), (ssize_t)sizeof a);
    cr_assert_eq(pwrite(fd, b, sizeof b, (off_t)far), (ssize_t)sizeof b);
    close(fd);
    tt_walk(&s);
    struct tree_extent ext[] = { { 0, a, sizeof a }, { far, b, sizeof b } };
    tt_handed_over(&s, "big", ext, 2, NULL, 0, line);
    cr_assert_str_eq(line, s.line[tt_find(&s, "/big")]);
    struct tree_extent other[] = { { 0, a, sizeof a }, { far, a, sizeof a } };
    tt_handed_over(&s, "big", other, 2, NULL, 0, line);
    cr_assert_str_neq(line, s.line[tt_find(&s, "/big")], "the far block's bytes count");
    tree_lister_free(&s.l);
}

/* The names tree_dir_names handed over, and what the callback returns for each. */
struct tt_names {
    char name[64][32];
    int n, stop, unlink;
};

static int tt_name(void *ctx, const char *name)
{
    struct tt_names *s = ctx;
    cr_assert_lt(s->n, 64);
    snprintf(s->name[s->n++], sizeof s->name[0], "%s", name);
    if (s->unlink)
        cr_assert_eq(unlink(tt_path(name)), 0, "%s: %s", name, strerror(errno));
    return s->stop;
}

static int tt_has(const struct tt_names *s, const char *name)
{
    int k = 0;
    for (int i = 0; i < s->n; i++)
        k += strcmp(s->name[i], name) == 0;
    return k;
}

static void tt_touch(const char *name)
{
    int fd = open(tt_path(name), O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    close(fd);
}

Test(tree, dir_names_hands_over_every_name_but_dot_and_dotdot)
{
    struct tt_names s = { .n = 0 };
    tt_touch("a");
    tt_touch(".hidden");
    cr_assert_eq(mkdir(tt_path("d"), 0755), 0);
    cr_assert_eq(tree_dir_names(tt_top, tt_name, &s), 0);
    cr_assert_eq(s.n, 3);
    cr_assert(tt_has(&s, "a") == 1 && tt_has(&s, ".hidden") == 1 && tt_has(&s, "d") == 1);
}

Test(tree, dir_names_stops_at_the_first_non_zero_return_and_returns_it)
{
    struct tt_names s = { .stop = 7 };
    tt_touch("a");
    tt_touch("b");
    cr_assert_eq(tree_dir_names(tt_top, tt_name, &s), 7);
    cr_assert_eq(s.n, 1);
}

Test(tree, dir_names_of_a_missing_directory_fail_with_errno)
{
    struct tt_names s = { .n = 0 };
    errno = 0;
    cr_assert_eq(tree_dir_names(tt_path("missing"), tt_name, &s), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(s.n, 0);
}

Test(tree, dir_names_callback_may_unlink_the_entries_it_is_handed)
{
    struct tt_names s = { .unlink = 1 };
    char name[16];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "f%d", i);
        tt_touch(name);
    }
    cr_assert_eq(tree_dir_names(tt_top, tt_name, &s), 0);
    cr_assert_eq(s.n, 40);
    struct tt_names after = { .n = 0 };
    cr_assert_eq(tree_dir_names(tt_top, tt_name, &after), 0);
    cr_assert_eq(after.n, 0);
}
