/* Unit tests of RefFS tree dumps: the dump's digest equals the walk's digest of the same tree on tmpfs, and bad dumps are refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tree/digest.h"
#include "reffs.h"
#include "backend/kinds/reffs_dump.h"

#define R REFFS_ROOT_INO

static char dump_top[64];
static int dump_rootfd = -1;
static struct reffs *dump_fs;

static int dump_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void dump_setup(void)
{
    umask(0);
    snprintf(dump_top, sizeof dump_top, "/dev/shm/metis-dump-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(dump_top));
    cr_assert_eq(chmod(dump_top, 0755), 0);
    dump_rootfd = open(dump_top, O_RDONLY | O_DIRECTORY);
    cr_assert(dump_rootfd >= 0);
    struct reffs_limits lim = { 0 };
    dump_fs = reffs_create(&lim);
    cr_assert(dump_fs);
}

static void dump_teardown(void)
{
    close(dump_rootfd);
    nftw(dump_top, dump_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    reffs_destroy(dump_fs);
}

TestSuite(metis_reffs_dump, .init = dump_setup, .fini = dump_teardown);

/* ---- the same tree on both sides ---- */

/* Two buffers, so that one call may take two paths (link). */
static char *at(const char *rel)
{
    static char p[2][256];
    static int next;
    char *b = p[next++ % 2];
    snprintf(b, sizeof p[0], "%s/%s", dump_top, rel);
    return b;
}

static void tmp_write(const char *rel, const void *buf, size_t n, off_t off)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT, 0644);
    cr_assert(fd >= 0, "%s: %s", rel, strerror(errno));
    cr_assert_eq(pwrite(fd, buf, n, off), (ssize_t)n);
    close(fd);
}

static reffs_ino ref_file(reffs_ino dir, const char *name, mode_t mode)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mknod(dump_fs, dir, name, S_IFREG | mode, 0, 0, 0, &e), 0);
    return e.st.st_ino;
}

static reffs_ino ref_dir(reffs_ino dir, const char *name, mode_t mode)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_mkdir(dump_fs, dir, name, mode, 0, 0, &e), 0);
    return e.st.st_ino;
}

static void ref_write(reffs_ino ino, const void *buf, size_t n, off_t off)
{
    cr_assert_eq(reffs_write(dump_fs, ino, buf, n, off), (ssize_t)n);
}

static void ref_xattr(reffs_ino ino, const char *name, const void *v, size_t n)
{
    cr_assert_eq(reffs_setxattr(dump_fs, ino, name, v, n, 0), 0);
}

static void tmp_xattr(const char *rel, const char *name, const void *v, size_t n)
{
    cr_assert_eq(lsetxattr(at(rel), name, v, n, 0), 0, "%s: %s", rel, strerror(errno));
}

/* Nested directories, a file with a hole, a sparse file past the 1 MiB digest threshold with
 * written zeros, an empty chowned file, a symlink, a hard link, a fifo and xattrs. */
static void build_tree(void)
{
    static char big[4096], zeros[4096], val[300];
    memset(big, 'x', sizeof big);
    memset(val, 'v', sizeof val);
    cr_assert_eq(mkdir(at("d"), 0750), 0);
    cr_assert_eq(mkdir(at("d/e"), 0700), 0);
    reffs_ino d = ref_dir(R, "d", 0750);
    ref_dir(d, "e", 0700);

    tmp_write("d/f", "hello", 5, 0);
    tmp_write("d/f", "tail", 4, 9000);
    reffs_ino f = ref_file(d, "f", 0644);
    ref_write(f, "hello", 5, 0);
    ref_write(f, "tail", 4, 9000);

    tmp_write("big", big, sizeof big, 0);
    tmp_write("big", zeros, sizeof zeros, 1 << 20);
    tmp_write("big", big, 100, (2 << 20) + 10);
    reffs_ino b = ref_file(R, "big", 0644);
    ref_write(b, big, sizeof big, 0);
    ref_write(b, zeros, sizeof zeros, 1 << 20);
    ref_write(b, big, 100, (2 << 20) + 10);

    tmp_write("empty", "", 0, 0);
    cr_assert_eq(chmod(at("empty"), 0600), 0);
    cr_assert_eq(chown(at("empty"), 1000, 1001), 0);
    reffs_ino e = ref_file(R, "empty", 0600);
    struct reffs_setattr sa = { .valid = REFFS_SET_UID | REFFS_SET_GID, .uid = 1000, .gid = 1001 };
    cr_assert_eq(reffs_setattr(dump_fs, e, &sa, NULL), 0);

    struct reffs_entry ent;
    cr_assert_eq(symlink("d/f", at("s")), 0);
    cr_assert_eq(reffs_symlink(dump_fs, R, "s", "d/f", 0, 0, &ent), 0);
    cr_assert_eq(link(at("d/f"), at("h")), 0);
    cr_assert_eq(reffs_link(dump_fs, f, R, "h", &ent), 0);
    cr_assert_eq(mkfifo(at("p"), 0644), 0);
    cr_assert_eq(reffs_mknod(dump_fs, R, "p", S_IFIFO | 0644, 0, 0, 0, &ent), 0);

    tmp_xattr("d/f", "user.b", val, sizeof val);
    tmp_xattr("d/f", "user.a", "1", 1);
    tmp_xattr("d", "user.z", "", 0);
    tmp_xattr("", "user.r", "root", 4);
    ref_xattr(f, "user.b", val, sizeof val);
    ref_xattr(f, "user.a", "1", 1);
    ref_xattr(d, "user.z", "", 0);
    ref_xattr(R, "user.r", "root", 4);
}

/* Digest (and listing) of the RefFS side through its dump. */
static int dump_digest(const struct tree_opts *o, unsigned char *out, char **listing)
{
    void *buf;
    size_t len, llen;
    cr_assert_eq(reffs_dump(dump_fs, &buf, &len), 0);
    FILE *f = listing ? open_memstream(listing, &llen) : NULL;
    int n = reffs_dump_digest(buf, len, o, out, f, NULL);
    if (f)
        fclose(f);
    free(buf);
    return n;
}

static void assert_same(const struct tree_opts *o)
{
    unsigned char w[TREE_MAX_DIGEST], d[TREE_MAX_DIGEST];
    char *wl = NULL, *dl = NULL;
    size_t len;
    FILE *f = open_memstream(&wl, &len);
    int wn = tree_digest(dump_rootfd, o, w, f, NULL);
    fclose(f);
    int dn = dump_digest(o, d, &dl);
    cr_assert(wn > 0 && dn == wn, "walk %d, dump %d", wn, dn);
    cr_assert_str_eq(dl, wl);
    cr_assert_eq(memcmp(w, d, (size_t)wn), 0);
    free(wl);
    free(dl);
}

Test(metis_reffs_dump, digest_equals_a_walk_of_the_same_tree)
{
    build_tree();
    assert_same(&(struct tree_opts){ .hash = "md5" });
    assert_same(&(struct tree_opts){ .hash = "sha256" });
}

Test(metis_reffs_dump, ignores_apply_as_in_a_walk)
{
    build_tree();
    assert_same(&(struct tree_opts){ .ignore = TREE_IGNORE_XATTRS | TREE_IGNORE_MODE });
    assert_same(&(struct tree_opts){ .ignore = TREE_IGNORE_OWNER | TREE_IGNORE_DIR_NLINK });
}

/* An excluded root directory vanishes, and the root's nlink no longer counts it. */
Test(metis_reffs_dump, excluded_root_entries_are_left_out)
{
    build_tree();
    struct tree_opts o = { .exclude = "lost+found,.metis-filler" };
    unsigned char before[TREE_MAX_DIGEST], after[TREE_MAX_DIGEST];
    int n = dump_digest(&o, before, NULL);
    cr_assert_eq(mkdir(at("lost+found"), 0700), 0);
    tmp_write("lost+found/x", "x", 1, 0);
    reffs_ino lf = ref_dir(R, "lost+found", 0700);
    ref_write(ref_file(lf, "x", 0644), "x", 1, 0);
    tmp_write(".metis-filler", "y", 1, 0);
    ref_write(ref_file(R, ".metis-filler", 0644), "y", 1, 0);
    assert_same(&o);
    cr_assert_eq(dump_digest(&o, after, NULL), n);
    cr_assert_eq(memcmp(before, after, (size_t)n), 0);
}

Test(metis_reffs_dump, data_changes_change_the_digest)
{
    build_tree();
    struct tree_opts o = { 0 };
    unsigned char a[TREE_MAX_DIGEST], b[TREE_MAX_DIGEST];
    int n = dump_digest(&o, a, NULL);
    struct reffs_entry e;
    cr_assert_eq(reffs_lookup(dump_fs, R, "big", &e), 0);
    ref_write(e.st.st_ino, "!", 1, 5000);       /* inside the hole of a large file */
    cr_assert_eq(dump_digest(&o, b, NULL), n);
    cr_assert_neq(memcmp(a, b, (size_t)n), 0);
}

/* The lines an earlier dump's digest kept (tree_digest_add_raw) serve only entries whose bytes,
 * options and root link adjustment are the same: after each change the digest is a walk's. */
Test(metis_reffs_dump, lines_kept_from_an_earlier_dump_never_go_stale)
{
    build_tree();
    struct tree_opts md5 = { .hash = "md5" }, nomode = { .hash = "md5", .ignore = TREE_IGNORE_MODE };
    assert_same(&md5);
    assert_same(&md5);
    tmp_write("d/f", "HELLO", 5, 0);
    struct reffs_entry e;
    cr_assert_eq(reffs_lookup(dump_fs, R, "d", &e), 0);
    cr_assert_eq(reffs_lookup(dump_fs, e.st.st_ino, "f", &e), 0);
    ref_write(e.st.st_ino, "HELLO", 5, 0);      /* same size: only the contents differ */
    assert_same(&md5);
    assert_same(&nomode);
    assert_same(&(struct tree_opts){ .hash = "sha256", .ignore = TREE_IGNORE_MODE });
    assert_same(&md5);
    /* The same root entry, but an excluded directory below it now: its nlink changes. */
    cr_assert_eq(mkdir(at("lost+found"), 0700), 0);
    ref_dir(R, "lost+found", 0700);
    assert_same(&md5);
    assert_same(&(struct tree_opts){ .hash = "md5", .exclude = "lost+found" });
    assert_same(&md5);
}

/* Every cut of a valid dump, and a foreign one, is refused without reading past the end. */
Test(metis_reffs_dump, truncated_or_foreign_dumps_are_refused)
{
    build_tree();
    void *buf;
    size_t len;
    unsigned char d[TREE_MAX_DIGEST];
    struct tree_opts o = { 0 };
    cr_assert_eq(reffs_dump(dump_fs, &buf, &len), 0);
    for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 97) {
        void *copy = malloc(cut ? cut : 1);    /* exact size: ASan sees any overrun */
        memcpy(copy, buf, cut);
        errno = 0;
        int rc = reffs_dump_digest(copy, cut, &o, d, NULL, NULL), err = errno;
        cr_assert_eq(rc, -1, "cut at %zu", cut);
        cr_assert_eq(err, EBADMSG, "cut at %zu", cut);
        free(copy);
    }
    ((char *)buf)[0] ^= 1;
    errno = 0;
    int rc = reffs_dump_digest(buf, len, &o, d, NULL, NULL), err = errno;
    cr_assert_eq(rc, -1);
    cr_assert_eq(err, EBADMSG);
    free(buf);
}
