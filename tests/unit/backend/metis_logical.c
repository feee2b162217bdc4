/* Unit tests of recorded trees and logical restore (fs-state/backend/logical/trees/fstree.c, logical_apply.c) on a plain directory, and the replay of its journal of calls. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "tree/digest.h"
#include "backend/logical/trees/fstree.h"
#include "backend/logical/trees/logical_apply.h"
#include "backend/logical/calls/rcalls_text.h"

static char lg_dir[64];
static int lg_fd = -1;
static struct ft_store lg_st;

static void lg_setup(void)
{
    snprintf(lg_dir, sizeof lg_dir, "/tmp/metis-logical-XXXXXX");
    cr_assert_not_null(mkdtemp(lg_dir));
    lg_fd = open(lg_dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(lg_fd, 0);
    cr_assert_eq(ft_store_init(&lg_st, "md5", "", 0), 0);
}

static void lg_teardown(void)
{
    char cmd[128];
    ft_store_free(&lg_st);
    close(lg_fd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", lg_dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(metis_logical, .init = lg_setup, .fini = lg_teardown);

static void put(const char *name, const char *text, off_t at)
{
    int fd = openat(lg_fd, name, O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0, "%s", name);
    cr_assert_eq(pwrite(fd, text, strlen(text), at), (ssize_t)strlen(text));
    close(fd);
}

static struct ft_tree *rec(void)
{
    struct ft_tree *t = ft_record(&lg_st, lg_fd, NULL);
    cr_assert_not_null(t);
    return t;
}

/* The directory must read back as want. */
static void holds(struct ft_tree *want)
{
    char diff[800];
    struct ft_tree *got = rec();
    ft_first_difference(&lg_st, want, "want", got, "got", diff, sizeof diff);
    cr_expect(got->dlen == want->dlen && memcmp(got->digest, want->digest, (size_t)want->dlen) == 0,
              "%s", diff);
    cr_expect(ft_same_links(got, want), "%s", diff);
    ft_unref(&lg_st, got);
}

/* Runs the journal's "call ret=R errno=E KIND ARGS" lines again: each with what it returned. */
static void replay_journal(struct buf *journal)
{
    char err[300];
    /* The journal is lines, not a C string: buf_add puts no NUL after the last one. */
    char *end = journal->p + journal->len;
    for (char *line = journal->p, *nl; line && (nl = memchr(line, '\n', (size_t)(end - line)));
         line = nl + 1) {
        long ret;
        int used = 0;
        struct rcall c;
        unsigned char *data;
        *nl = '\0';
        cr_assert_eq(sscanf(line, "call ret=%ld errno=%*s %n", &ret, &used), 1, "%s", line);
        cr_assert_eq(rcall_parse(line + used, &c, &data, err, sizeof err), 0, "%s", err);
        cr_expect_eq(rcall_exec(lg_fd, &c), ret, "%s", line + used);
        free(data);
    }
}

/* The directory holds from: apply from -> to, and the directory must read back as to; then
 * back to from, and the calls the first apply journaled, replayed, make to again. */
static void apply_to(struct ft_tree *from, struct ft_tree *to)
{
    struct lg_counts n = { 0, 0, 0, 0 };
    struct buf journal = { 0 };
    char err[512] = "";
    cr_assert_eq(logical_apply(lg_fd, from, to, 0, &n, &journal, err, sizeof err), 0, "%s", err);
    holds(to);
    cr_assert_eq(logical_apply(lg_fd, to, from, 0, &n, NULL, err, sizeof err), 0, "%s", err);
    holds(from);
    replay_journal(&journal);
    holds(to);
    buf_free(&journal);
}

/* Records a, runs change, records b, then restores a from b and b from a. */
static void both_ways(void (*make_a)(void), void (*change)(void))
{
    make_a();
    struct ft_tree *a = rec();
    change();
    struct ft_tree *b = rec();
    cr_expect(a->dlen != b->dlen || memcmp(a->digest, b->digest, (size_t)a->dlen) ||
              !ft_same_links(a, b), "the change changed nothing");
    apply_to(b, a);
    apply_to(a, b);
    ft_unref(&lg_st, a);
    ft_unref(&lg_st, b);
}

static void files_a(void)
{
    cr_assert_eq(mkdirat(lg_fd, "d", 0755), 0);
    put("d/f", "hello", 0);
    put("g", "0123456789", 0);
}

static void files_b(void)
{
    cr_assert_eq(unlinkat(lg_fd, "d/f", 0), 0);
    cr_assert_eq(unlinkat(lg_fd, "d", AT_REMOVEDIR), 0);
    put("g", "XY", 3);
    put("h", "new", 0);
}

Test(metis_logical, files_and_directories)
{
    both_ways(files_a, files_b);
}

static void links_a(void)
{
    put("a", "shared", 0);
    cr_assert_eq(linkat(lg_fd, "a", lg_fd, "b", 0), 0);
    put("c", "alone", 0);
}

/* The group {a, b} becomes {a, c}; b keeps the same bytes as a file of its own. */
static void links_b(void)
{
    cr_assert_eq(unlinkat(lg_fd, "b", 0), 0);
    put("b", "shared", 0);
    cr_assert_eq(unlinkat(lg_fd, "c", 0), 0);
    cr_assert_eq(linkat(lg_fd, "a", lg_fd, "c", 0), 0);
}

Test(metis_logical, hard_link_groups)
{
    both_ways(links_a, links_b);
}

static void types_a(void)
{
    put("x", "file", 0);
    cr_assert_eq(symlinkat("target-one", lg_fd, "s"), 0);
    cr_assert_eq(mkfifoat(lg_fd, "p", 0640), 0);
}

static void types_b(void)
{
    cr_assert_eq(unlinkat(lg_fd, "x", 0), 0);
    cr_assert_eq(mkdirat(lg_fd, "x", 0700), 0);
    put("x/in", "inside", 0);
    cr_assert_eq(unlinkat(lg_fd, "s", 0), 0);
    cr_assert_eq(symlinkat("two", lg_fd, "s"), 0);
    cr_assert_eq(unlinkat(lg_fd, "p", 0), 0);
    put("p", "now a file", 0);
}

Test(metis_logical, types_symlink_targets_and_fifos)
{
    both_ways(types_a, types_b);
}

/* 3 MiB with data at 0 and at 2 MiB: large files are read by SEEK_DATA ranges. */
static void sparse_a(void)
{
    put("big", "start", 0);
    put("big", "middle", 2 << 20);
    int fd = openat(lg_fd, "big", O_WRONLY);
    cr_assert_eq(ftruncate(fd, 3 << 20), 0);
    close(fd);
}

static void sparse_b(void)
{
    int fd = openat(lg_fd, "big", O_WRONLY);
    cr_assert_eq(ftruncate(fd, 1 << 20), 0);     /* the data at 2 MiB goes */
    close(fd);
    put("big", "tail", (1 << 20) - 2);
    put("big", "Start", 0);
}

Test(metis_logical, sparse_large_file)
{
    both_ways(sparse_a, sparse_b);
    struct stat st;
    cr_assert_eq(fstatat(lg_fd, "big", &st, 0), 0);
    cr_expect_lt(st.st_blocks * 512, 1 << 20, "holes stay holes (%lld blocks)",
                 (long long)st.st_blocks);
}

static void meta_a(void)
{
    put("m", "mode", 0);
    cr_assert_eq(fchmodat(lg_fd, "m", 04755, 0), 0);
    cr_assert_eq(mkdirat(lg_fd, "sg", 0755), 0);
    cr_assert_eq(fchownat(lg_fd, "sg", 1000, 1000, 0), 0);
    cr_assert_eq(fchmodat(lg_fd, "sg", 02775, 0), 0);
    cr_assert_eq(setxattr(lg_dir, "user.root", "r", 1, 0), 0);
}

/* A write and a chown clear set-id bits: restore must set the mode after them. */
static void meta_b(void)
{
    put("m", "MODE+more", 0);
    cr_assert_eq(fchownat(lg_fd, "m", 1000, 0, 0), 0);
    cr_assert_eq(fchownat(lg_fd, "sg", 0, 0, 0), 0);
    cr_assert_eq(fchmodat(lg_fd, "m", 06711, 0), 0);
    cr_assert_eq(removexattr(lg_dir, "user.root"), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/m", lg_dir);
    cr_assert_eq(setxattr(path, "user.k", "v", 1, 0), 0);
}

Test(metis_logical, owners_modes_and_xattrs)
{
    if (geteuid() != 0)
        cr_skip_test("chown needs root");
    both_ways(meta_a, meta_b);
}

Test(metis_logical, digest_is_the_walks)
{
    unsigned char w[TREE_MAX_DIGEST];
    links_a();
    sparse_a();
    types_a();
    struct ft_tree *t = rec();
    struct tree_opts o = { "md5", "", 0, 0 };
    int n = tree_digest(lg_fd, &o, w, NULL, NULL);
    cr_assert_eq(n, t->dlen);
    cr_expect_eq(memcmp(w, t->digest, (size_t)n), 0, "a recorded tree digests as the walk does");
    unsigned char again[TREE_MAX_DIGEST];
    cr_assert_eq(ft_digest(&lg_st, t, NULL, again, NULL), n);
    cr_expect_eq(memcmp(w, again, (size_t)n), 0, "and so do the lines its entries keep");
    struct ft_tree *u = ft_record(&lg_st, lg_fd, t);
    cr_assert_not_null(u);
    cr_expect_eq(u->ents[1], t->ents[1], "an unchanged entry is shared with the previous tree");
    cr_expect_eq(memcmp(w, u->digest, (size_t)n), 0);
    ft_unref(&lg_st, u);
    ft_unref(&lg_st, t);
}
