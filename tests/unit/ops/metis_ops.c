/* Unit tests of the operation table (fs-state/engine/ops.c): real syscalls, real errnos, confinement. */
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
#include "engine/ops/ops.h"

static char opst_top[64];
static int opst_root = -1;

static int opst_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void opst_rm_tree(const char *p)
{
    nftw(p, opst_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void opst_setup(void)
{
    umask(0);
    snprintf(opst_top, sizeof opst_top, "/dev/shm/metis-ops-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(opst_top));
    opst_root = open(opst_top, O_PATH | O_DIRECTORY);
    cr_assert(opst_root >= 0);
}

static void opst_teardown(void)
{
    close(opst_root);
    opst_rm_tree(opst_top);
}

TestSuite(metis_ops, .init = opst_setup, .fini = opst_teardown);

/* Runs one operation given in its text form; returns the errno (0 on success). */
static int opst_run(const char *line, long *ret)
{
    struct op_args a;
    struct op_result r;
    char err[128];
    cr_assert_eq(op_parse(line, &a, err, sizeof err), 0, "parse '%s': %s", line, err);
    op_exec(opst_root, &a, &r);
    if (ret)
        *ret = r.ret;
    return r.err;
}

static void opst_expect(const char *line, int want)
{
    int got = opst_run(line, NULL);
    cr_assert_eq(got, want, "%s: errno %d (%s), want %d (%s)", line, got, strerror(got), want,
                 strerror(want));
}

static struct stat opst_stat(const char *rel)
{
    struct stat st;
    cr_assert_eq(fstatat(opst_root, rel, &st, AT_SYMLINK_NOFOLLOW), 0, "stat %s", rel);
    return st;
}

Test(metis_ops, create_and_write)
{
    opst_expect("create_file path=/f0 flags=0xc0 mode=0640", 0);    /* O_CREAT|O_EXCL */
    cr_assert_eq(opst_stat("f0").st_mode & 07777, 0640);
    opst_expect("create_file path=/f0 flags=0xc0 mode=0640", EEXIST);
    long ret;
    cr_assert_eq(opst_run("write_file path=/f0 flags=0x2 off=10 size=100 seed=0x1a2b", &ret), 0);
    cr_assert_eq(ret, 100);
    cr_assert_eq(opst_stat("f0").st_size, 110);
    unsigned char want[100], got[100];
    op_fill_bytes(0x1a2b, want, sizeof want);
    int fd = openat(opst_root, "f0", O_RDONLY);
    cr_assert_eq(pread(fd, got, 100, 10), 100);
    close(fd);
    cr_assert_eq(memcmp(want, got, 100), 0, "written bytes are not op_fill_bytes(seed)");
    opst_expect("create_file path=/f0 flags=0x240 mode=0640", 0);   /* O_TRUNC */
    cr_assert_eq(opst_stat("f0").st_size, 0);
}

Test(metis_ops, fill_bytes_deterministic)
{
    unsigned char a[37], b[37], c[37];
    op_fill_bytes(7, a, sizeof a);
    op_fill_bytes(7, b, sizeof b);
    op_fill_bytes(8, c, sizeof c);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    cr_assert_neq(memcmp(a, c, sizeof a), 0);
}

Test(metis_ops, path_errnos)
{
    opst_expect("write_file path=/d0/f0 flags=0x1 off=0 size=1 seed=0x1", ENOENT);
    opst_expect("create_file path=/f0 flags=0x40 mode=0644", 0);
    opst_expect("mkdir path=/f0/d0 mode=0755", ENOTDIR);
    opst_expect("mkdir path=/d0 mode=0755", 0);
    opst_expect("mkdir path=/d0 mode=0755", EEXIST);
    opst_expect("unlink path=/d0", EISDIR);
    opst_expect("write_file path=/d0 flags=0x1 off=0 size=1 seed=0x1", EISDIR);
    opst_expect("truncate path=/d0 size=0", EISDIR);
    opst_expect("rmdir path=/f0", ENOTDIR);
    opst_expect("create_file path=/d0/f0 flags=0x40 mode=0644", 0);
    opst_expect("rmdir path=/d0", ENOTEMPTY);
    opst_expect("link path=/d0 path2=/d1", EPERM);
    opst_expect("rename path=/d0 path2=/d0/d1 flags=0x0", EINVAL);
    opst_expect("rename path=/f0 path2=/d0/f0 flags=0x1", EEXIST);      /* RENAME_NOREPLACE */
    opst_expect("rename path=/f0 path2=/nope flags=0x2", ENOENT);       /* RENAME_EXCHANGE */
    opst_expect("rename path=/f0 path2=/d0/f0 flags=0x2", 0);
    opst_expect("unlink path=/d0/f0", 0);
    opst_expect("unlink path=/d0/f0", ENOENT);
    opst_expect("link path=/f0 path2=/f1", 0);
    cr_assert_eq(opst_stat("f0").st_nlink, 2);
    opst_expect("rmdir path=/d0", 0);
}

Test(metis_ops, sizes_and_fallocate)
{
    opst_expect("create_file path=/f0 flags=0x40 mode=0644", 0);
    opst_expect("truncate path=/f0 size=5000", 0);
    cr_assert_eq(opst_stat("f0").st_size, 5000);
    opst_expect("truncate path=/f0 size=18446744073709551615", EINVAL);
    opst_expect("fallocate_file path=/f0 flags=0x0 off=0 size=0", EINVAL);
    opst_expect("fallocate_file path=/f0 flags=0x1 off=8192 size=4096", 0);  /* KEEP_SIZE */
    cr_assert_eq(opst_stat("f0").st_size, 5000);
    opst_expect("fallocate_file path=/f0 flags=0x0 off=8192 size=4096", 0);
    cr_assert_eq(opst_stat("f0").st_size, 12288);
    opst_expect("write_file path=/f0 flags=0x1 off=18446744073709551615 size=1 seed=0x1", EINVAL);
}

Test(metis_ops, modes_and_owners)
{
    opst_expect("create_file path=/f0 flags=0x40 mode=0644", 0);
    opst_expect("mkdir path=/d0 mode=0700", 0);
    opst_expect("chmod path=/f0 mode=06755", 0);
    cr_assert_eq(opst_stat("f0").st_mode & 07777, 06755);
    opst_expect("chmod path=/d0 mode=01777", 0);
    cr_assert_eq(opst_stat("d0").st_mode & 07777, 01777);
    opst_expect("chown_file path=/f0 uid=1000", 0);
    cr_assert_eq(opst_stat("f0").st_uid, 1000);
    cr_assert_eq(opst_stat("f0").st_gid, 0);
    opst_expect("chgrp_file path=/d0 gid=1001", 0);
    cr_assert_eq(opst_stat("d0").st_gid, 1001);
    opst_expect("chown_file path=/d0 uid=-1", 0);
    cr_assert_eq(opst_stat("d0").st_uid, 0);
    opst_expect("chmod path=/nope mode=0644", ENOENT);
}

Test(metis_ops, symlinks)
{
    opst_expect("mkdir path=/d0 mode=0755", 0);
    opst_expect("create_file path=/d0/f0 flags=0x40 mode=0600", 0);
    opst_expect("symlink path=/l0 path2=d0/f0", 0);
    opst_expect("symlink path=/l0 path2=d0", EEXIST);
    char t[64] = { 0 };
    cr_assert_eq(readlinkat(opst_root, "l0", t, sizeof t - 1), 5);
    cr_assert_str_eq(t, "d0/f0");
    /* Following operations act on the target. */
    opst_expect("chmod path=/l0 mode=0604", 0);
    cr_assert_eq(opst_stat("d0/f0").st_mode & 07777, 0604);
    opst_expect("truncate path=/l0 size=3", 0);
    cr_assert_eq(opst_stat("d0/f0").st_size, 3);
    opst_expect("create_file path=/l0 flags=0x20040 mode=0644", ELOOP);  /* O_NOFOLLOW */
    opst_expect("symlink path=/d0/self path2=self", 0);
    opst_expect("chmod path=/d0/self mode=0644", ELOOP);
    opst_expect("symlink path=/d0/here path2=.", 0);
    opst_expect("create_file path=/d0/here/f1 flags=0x40 mode=0644", 0);
    opst_stat("d0/f1");
    /* Non-following ones act on the link itself. */
    opst_expect("unlink path=/l0", 0);
    opst_stat("d0/f0");
}

Test(metis_ops, xattrs)
{
    opst_expect("create_file path=/f0 flags=0x40 mode=0644", 0);
    opst_expect("removexattr path=/f0 xname=user.x0", ENODATA);
    opst_expect("setxattr path=/f0 xname=user.x0 size=10 seed=0x5 flags=0x2", ENODATA); /* REPLACE */
    opst_expect("setxattr path=/f0 xname=user.x0 size=10 seed=0x5 flags=0x1", 0);       /* CREATE */
    opst_expect("setxattr path=/f0 xname=user.x0 size=10 seed=0x5 flags=0x1", EEXIST);
    unsigned char want[10], got[16];
    op_fill_bytes(5, want, sizeof want);
    char p[128];
    snprintf(p, sizeof p, "%s/f0", opst_top);
    cr_assert_eq(getxattr(p, "user.x0", got, sizeof got), 10);
    cr_assert_eq(memcmp(want, got, 10), 0);
    opst_expect("setxattr path=/f0 xname=user.x1 size=65537 seed=0x5 flags=0x0", E2BIG);
    opst_expect("setxattr path=/f0 xname=bogus.x size=1 seed=0x5 flags=0x0", EOPNOTSUPP);
    opst_expect("setxattr path=/f0 xname=user.x1 size=0 seed=0x5 flags=0x0", 0);
    opst_expect("removexattr path=/f0 xname=user.x0", 0);
    opst_expect("removexattr path=/nope xname=user.x0", ENOENT);
}

Test(metis_ops, long_names)
{
    char line[600], name[300];
    memset(name, 'n', 256);
    name[256] = '\0';
    snprintf(line, sizeof line, "mkdir path=/%s mode=0755", name);
    opst_expect(line, ENAMETOOLONG);
    name[255] = '\0';
    snprintf(line, sizeof line, "mkdir path=/%s mode=0755", name);
    opst_expect(line, 0);
}

Test(metis_ops, table_lookup)
{
    for (int i = 0; i < OP_COUNT; i++)
        cr_assert_eq(op_lookup(op_name(i)), i);
    cr_assert_eq(op_lookup("format_disk"), -1);
    cr_assert_str_eq(op_name(OP_write_file), "write_file");
}

/* ---------- confinement ---------- */

struct opst_snap { struct stat st; char data[64]; ssize_t n; char xv[64]; ssize_t xn; };

static void opst_snapshot(const char *p, struct opst_snap *s)
{
    memset(s, 0, sizeof *s);
    cr_assert_eq(lstat(p, &s->st), 0);
    int fd = open(p, O_RDONLY);
    s->n = fd >= 0 ? read(fd, s->data, sizeof s->data) : -1;
    if (fd >= 0)
        close(fd);
    s->xn = lgetxattr(p, "user.keep", s->xv, sizeof s->xv);
}

static void opst_same(const struct opst_snap *a, const struct opst_snap *b, const char *what)
{
    cr_assert_eq(a->st.st_ino, b->st.st_ino, "%s: replaced", what);
    cr_assert_eq(a->st.st_mode, b->st.st_mode, "%s: mode changed", what);
    cr_assert_eq(a->st.st_uid, b->st.st_uid, "%s: owner changed", what);
    cr_assert_eq(a->st.st_gid, b->st.st_gid, "%s: group changed", what);
    cr_assert_eq(a->st.st_nlink, b->st.st_nlink, "%s: link count changed", what);
    cr_assert_eq(a->st.st_size, b->st.st_size, "%s: size changed", what);
    cr_assert_eq(a->st.st_mtim.tv_nsec, b->st.st_mtim.tv_nsec, "%s: mtime changed", what);
    cr_assert_eq(a->st.st_ctim.tv_sec, b->st.st_ctim.tv_sec, "%s: ctime changed", what);
    cr_assert_eq(a->st.st_ctim.tv_nsec, b->st.st_ctim.tv_nsec, "%s: ctime changed", what);
    cr_assert_eq(a->n, b->n, "%s: content changed", what);
    cr_assert_eq(memcmp(a->data, b->data, sizeof a->data), 0, "%s: content changed", what);
    cr_assert_eq(a->xn, b->xn, "%s: xattr changed", what);
    cr_assert_eq(memcmp(a->xv, b->xv, sizeof a->xv), 0, "%s: xattr changed", what);
}

/* The mount is opst_top/mnt; the victims live in opst_top/out, reached only through planted links. */
static void opst_plant(const char *mnt, const char *out)
{
    char p[256], t[256];
    opst_rm_tree(mnt);
    cr_assert_eq(mkdir(mnt, 0755), 0);
    snprintf(p, sizeof p, "%s/abs", mnt);
    snprintf(t, sizeof t, "%s/secret", out);
    cr_assert_eq(symlink(t, p), 0);
    snprintf(p, sizeof p, "%s/absdir", mnt);
    cr_assert_eq(symlink(out, p), 0);
    snprintf(p, sizeof p, "%s/up", mnt);
    cr_assert_eq(symlink("../out/secret", p), 0);
    snprintf(p, sizeof p, "%s/updir", mnt);
    cr_assert_eq(symlink("../out", p), 0);
    snprintf(p, sizeof p, "%s/d0", mnt);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/d0/up2", mnt);
    cr_assert_eq(symlink("../../out", p), 0);
}

Test(metis_ops, confinement)
{
    char mnt[128], out[128], secret[160];
    snprintf(mnt, sizeof mnt, "%s/mnt", opst_top);
    snprintf(out, sizeof out, "%s/out", opst_top);
    snprintf(secret, sizeof secret, "%s/secret", out);
    cr_assert_eq(mkdir(out, 0755), 0);
    int fd = open(secret, O_CREAT | O_WRONLY, 0600);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "keep me", 7), 7);
    close(fd);
    cr_assert_eq(setxattr(secret, "user.keep", "v1", 2, 0), 0);
    struct opst_snap before, after, dbefore, dafter;
    opst_snapshot(secret, &before);
    opst_snapshot(out, &dbefore);
    int outfd = open(out, O_PATH | O_DIRECTORY);
    struct tree_opts ao = { "md5", "", 0, 0 };
    unsigned char h0[TREE_MAX_DIGEST], h1[TREE_MAX_DIGEST];
    cr_assert_eq(tree_digest(outfd, &ao, h0, NULL, NULL), 16);

    static const char *const paths[] = {
        "/abs", "/up", "/absdir/secret", "/updir/secret", "/absdir", "/updir", "/d0/up2/secret",
        "/d0/up2", "/absdir/new", "/updir/new", "/d0/up2/new",
    };
    static const char *const ops[] = {
        "create_file path=%s flags=0x241 mode=0777", "write_file path=%s flags=0x2 off=0 size=50 seed=0x9",
        "write_file path=%s flags=0x402 off=0 size=50 seed=0x9", "truncate path=%s size=0",
        "fallocate_file path=%s flags=0x0 off=0 size=65536", "chmod path=%s mode=07777",
        "chown_file path=%s uid=1234", "chgrp_file path=%s gid=1234", "unlink path=%s",
        "mkdir path=%s mode=0777", "rmdir path=%s", "rename path=%s path2=/d0/x flags=0x0",
        "rename path=/d0 path2=%s flags=0x2", "rename path=%s path2=/d0 flags=0x2",
        "link path=%s path2=/d0/x", "link path=/d0 path2=%s", "symlink path=%s path2=d0",
        "setxattr path=%s xname=user.keep size=3 seed=0x1 flags=0x0",
        "setxattr path=%s xname=user.new size=3 seed=0x1 flags=0x0", "removexattr path=%s xname=user.keep",
    };
    int escapes = 0, runs = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            char line[256];
            snprintf(line, sizeof line, ops[o], paths[p]);
            opst_plant(mnt, out);
            int mfd = open(mnt, O_PATH | O_DIRECTORY);
            cr_assert(mfd >= 0);
            struct op_args a;
            struct op_result r;
            char err[128];
            cr_assert_eq(op_parse(line, &a, err, sizeof err), 0, "%s: %s", line, err);
            op_exec(mfd, &a, &r);
            close(mfd);
            runs++;
            escapes += r.err == EXDEV;
            opst_snapshot(secret, &after);
            opst_snapshot(out, &dafter);
            opst_same(&before, &after, line);
            opst_same(&dbefore, &dafter, line);
            cr_assert_eq(tree_digest(outfd, &ao, h1, NULL, NULL), 16);
            cr_assert_eq(memcmp(h0, h1, 16), 0, "%s: outside tree changed", line);
        }
    }
    /* Most of these must have been stopped by RESOLVE_BENEATH rather than by luck. */
    cr_assert_gt(escapes, runs / 2, "only %d of %d runs were refused with EXDEV", escapes, runs);
    /* An absolute target is refused before any syscall. */
    struct op_args a = { .op = OP_symlink };
    struct op_result r;
    snprintf(a.path, sizeof a.path, "/evil");
    snprintf(a.path2, sizeof a.path2, "%s", secret);
    int mfd = open(mnt, O_PATH | O_DIRECTORY);
    op_exec(mfd, &a, &r);
    cr_assert_eq(r.err, EINVAL);
    cr_assert_eq(faccessat(mfd, "evil", F_OK, AT_SYMLINK_NOFOLLOW), -1);
    snprintf(a.path, sizeof a.path, "/d0/../../out/x");
    a.op = OP_mkdir;
    op_exec(mfd, &a, &r);
    cr_assert_eq(r.err, EINVAL);
    close(mfd);
    close(outfd);
}
