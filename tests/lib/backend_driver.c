/* Test driver of the backend API: round trips of save/restore on a real fs, timing, failures. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"

static struct fs_config drv_cfg;
static struct backend *drv_b;
static const char *drv_run = "manual";
static const char *drv_workdir;
static char drv_dir[64];                   /* exports go here: unique per driver process */

static double drv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "backend-driver: %s: %s\n", what, drv_b && drv_b->err[0] ? drv_b->err : "");
    if (drv_b)
        backend_close(drv_b);
    if (drv_dir[0])
        rmdir(drv_dir);
    exit(1);
}

static void check(int rc, const char *what)
{
    if (rc < 0)
        die(what);
}

/* ---- listing of a tree: one line per entry, sorted, with a content checksum ---- */

struct lines {
    char **v;
    size_t n, cap;
};

static void add_line(struct lines *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = strdup(s);
}

/* "name=value,..." of a file's or directory's xattrs, in listing order (sorted below). */
static void xattr_text(int dirfd, const char *name, char *out, size_t outlen)
{
    char list[1024], val[256];
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    ssize_t n = fd < 0 ? -1 : flistxattr(fd, list, sizeof list);
    out[0] = 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(list + i) + 1) {
        ssize_t v = fgetxattr(fd, list + i, val, sizeof val - 1);
        val[v < 0 ? 0 : v] = 0;
        snprintf(out + strlen(out), outlen - strlen(out), "%s=%s,", list + i, val);
    }
    if (fd >= 0)
        close(fd);
}

static unsigned long content_sum(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
    unsigned long h = 5381;
    unsigned char buf[4096];
    ssize_t n;
    if (fd < 0)
        return 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            h = h * 33 + buf[i];
    close(fd);
    return h;
}

static void list_dir(int dirfd, const char *prefix, struct lines *out)
{
    /* a fresh open: btrfs hides entries made after the directory fd was opened */
    DIR *d = fdopendir(openat(dirfd, ".", O_RDONLY | O_DIRECTORY));
    struct dirent *e;
    if (!d)
        die("fdopendir");
    while ((e = readdir(d))) {
        char line[4096], path[1024], target[512] = "", xattrs[512] = "";
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (!*prefix && !strcmp(e->d_name, "lost+found")))
            continue;
        snprintf(path, sizeof path, "%s/%s", prefix, e->d_name);
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            die("fstatat");
        unsigned long sum = 0;
        if (S_ISREG(st.st_mode))
            sum = content_sum(dirfd, e->d_name);
        if (S_ISLNK(st.st_mode))
            target[readlinkat(dirfd, e->d_name, target, sizeof target - 1)] = 0;
        else
            xattr_text(dirfd, e->d_name, xattrs, sizeof xattrs);
        snprintf(line, sizeof line, "%s mode=%o size=%lld nlink=%lu sum=%lx link=%s owner=%u:%u "
                 "xattrs=%s", path, st.st_mode, S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
                 S_ISDIR(st.st_mode) ? 0UL : (unsigned long)st.st_nlink, sum, target,
                 (unsigned)st.st_uid, (unsigned)st.st_gid, xattrs);
        add_line(out, line);
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY);
            list_dir(sub, path, out);
            close(sub);
        }
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *listing(int rootfd)
{
    struct lines l = { 0 };
    size_t len = 1;
    list_dir(rootfd, "", &l);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    for (size_t i = 0; i < l.n; i++)
        len += strlen(l.v[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; i < l.n; i++) {
        strcat(strcat(s, l.v[i]), "\n");
        free(l.v[i]);
    }
    free(l.v);
    return s;
}

/* ---- tree changes ---- */

static void put_file(int dirfd, const char *name, char fill, size_t len)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *buf = malloc(len + 1);
    if (fd < 0 || !buf)
        die(name);
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(fill + (char)(i % 7));
    if (write(fd, buf, len) != (ssize_t)len)
        die("write");
    close(fd);
    free(buf);
}

/* A 2 MiB file with data at 0 and at 1.5 MiB only: large enough to be read by data ranges. */
static void put_sparse(int dirfd, const char *name, char fill)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT, 0644);
    char buf[5000];
    memset(buf, fill, sizeof buf);
    if (fd < 0 || pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf ||
        pwrite(fd, buf, 100, 3 << 19) != 100 || ftruncate(fd, 2 << 20) < 0)
        die("sparse file");
    close(fd);
}

static void tree_one(int r)
{
    if (mkdirat(r, "d1", 0755) < 0 || symlinkat("d1/b", r, "ln") < 0 ||
        setxattr(drv_b->mnt, "user.root", "r1", 2, 0) < 0)
        die("tree one");
    put_file(r, "a", 'a', 3);
    put_file(r, "d1/b", 'b', 5000);
    put_sparse(r, "big", 'x');
}

static void tree_two(int r)
{
    if (unlinkat(r, "a", 0) < 0 || mkdirat(r, "d2", 0700) < 0 || linkat(r, "d1/b", r, "d2/hl", 0) ||
        fchmodat(r, "d1/b", 04751, 0) < 0 || fchownat(r, "d2", 1000, 1000, 0) < 0 ||
        unlinkat(r, "ln", 0) < 0 || symlinkat("elsewhere", r, "ln") < 0 ||
        removexattr(drv_b->mnt, "user.root") < 0)
        die("tree two");
    put_file(r, "d1/b", 'B', 9000);
    put_file(r, "d2/c", 'c', 1);
    put_sparse(r, "big", 'y');
    int fd = openat(r, "d2/c", O_RDONLY);
    if (fd < 0 || fsetxattr(fd, "user.k", "v2", 2, 0) < 0)
        die("tree two: xattr");
    close(fd);
}

static int same_files(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca = 0, cb = 0;
    while (same && (ca = getc(fa)) == (cb = getc(fb)) && ca != EOF)
        ;
    same = same && ca == cb;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Right after restore(id) an image-backed fs's image must be byte for byte the saved one. */
static void expect_image(const char *label, uint64_t id)
{
    char out[2048];
    struct stat st;
    if (stat(drv_b->image, &st) < 0)
        return;                            /* no image: reffs, or fuse with replay */
    if (drv_b->ops->can_export && !drv_b->ops->can_export(drv_b, id))
        return;                            /* kept mounted: images of checkpoints only */
    check(drv_b->ops->export_state(drv_b, id, drv_dir, out, sizeof out), "export");
    int same = same_files(out, drv_b->image);
    unlink(out);
    if (!same) {
        fprintf(stderr, "backend-driver: %s: the image is not the saved one\n", label);
        drv_b->err[0] = 0;
        die(label);
    }
    printf("ok %s: image identical\n", label);
}

static void expect_state(const char *label, const char *want)
{
    check(drv_b->ops->begin(drv_b), "begin");
    char *got = listing(drv_b->rootfd);
    check(drv_b->ops->end(drv_b), "end");
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "backend-driver: %s: tree differs\n--- want\n%s--- got\n%s", label, want,
                got);
        drv_b->err[0] = 0;
        die(label);
    }
    printf("ok %s\n", label);
    free(got);
}

static char *change(void (*fn)(int))
{
    check(drv_b->ops->begin(drv_b), "begin");
    if (fn)
        fn(drv_b->rootfd);
    char *l = listing(drv_b->rootfd);
    check(drv_b->ops->end(drv_b), "end");
    return l;
}

static void scribble(int r)
{
    put_file(r, "unsaved", 'u', 70000);
    if (unlinkat(r, "ln", 0) < 0)
        die("scribble");
}

static void scribble_lower(int r)
{
    int fd = openat(r, "lowerfile", O_WRONLY | O_APPEND);
    if (fd < 0 || write(fd, "0123456789012345678901234567890123456789012345678901234567890", 50) != 50)
        die("appending to lowerfile");
    close(fd);
}

static int drv_bad_replay;                 /* --bad-replay: replay reaches the wrong state */
static int drv_fallback;                   /* --fallback-check: logical_checks */

/* A change behind the backend's back (no begin): a logical restore built on what it recorded
 * misses, and must fall back to replay. */
static void behind_the_back(void)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/stray", drv_b->mnt);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        die("stray file");
    close(fd);
}

/* Logical restores: a stale record falls back to replay; a replay that misses too fails. */
static void logical_checks(const char *s1)
{
    check(drv_b->ops->restore(drv_b, 0), "restore 0 for the fallback");
    behind_the_back();
    if (drv_bad_replay) {
        if (drv_b->ops->restore(drv_b, 1) == 0)
            die("a restore that neither logical restore nor replay reach succeeded");
        printf("ok bad replay refused: %s\n", drv_b->err);
        return;
    }
    check(drv_b->ops->restore(drv_b, 1), "restore 1 by fallback");
    expect_state("restore 1 by fallback", s1);
}

static void print_stats(void)
{
    if (!drv_b->ops->stats)
        return;
    printf("stats: {");
    drv_b->ops->stats(drv_b, stdout);
    printf("}\n");
}

/* What the engine does for a fuse fs without an image: redo the path from an empty fs (these
 * backends hold no checkpoint, so from is always the initial state). */
static int drv_replay(void *ctx, struct backend *b, uint64_t from, uint64_t id)
{
    if (from != BACKEND_REPLAY_INITIAL) {
        snprintf(b->err, sizeof b->err, "driver: no replay from state %llu",
                 (unsigned long long)from);
        return -1;
    }
    if (id >= 1 && !drv_bad_replay)
        tree_one(b->rootfd);
    if (id >= 2)
        tree_two(b->rootfd);
    if (id > 2) {
        snprintf(b->err, sizeof b->err, "driver: cannot replay state %llu", (unsigned long long)id);
        return -1;
    }
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void tiny_op(int r)
{
    static int k;
    char name[32];
    snprintf(name, sizeof name, "t%d", k++ % 5);
    put_file(r, name, 'x', 10);
}

/* Per step as the engine does it: begin, a small op, end, save; and a restore per backtrack. */
static void bench(int n)
{
    double *step = calloc((size_t)n, sizeof *step), *rest = calloc((size_t)n, sizeof *rest);
    double t0 = drv_now(), part[4] = { 0 };
    for (int i = 0; i < n; i++) {
        double t = drv_now(), ta, tb, tc;
        check(drv_b->ops->begin(drv_b), "begin");
        ta = drv_now();
        tiny_op(drv_b->rootfd);
        tb = drv_now();
        check(drv_b->ops->end(drv_b), "end");
        tc = drv_now();
        check(drv_b->ops->save(drv_b, 100 + (uint64_t)i), "save");
        double t1 = drv_now();
        part[0] += ta - t, part[1] += tb - ta, part[2] += tc - tb, part[3] += t1 - tc;
        check(drv_b->ops->restore(drv_b, 100 + (uint64_t)(i / 2)), "restore");
        step[i] = t1 - t;
        rest[i] = drv_now() - t1;
    }
    double total = drv_now() - t0;
    printf("bench %s: mean ms: begin %.3f op %.3f end %.3f save %.3f\n", drv_cfg.name,
           part[0] * 1e3 / n, part[1] * 1e3 / n, part[2] * 1e3 / n, part[3] * 1e3 / n);
    qsort(step, (size_t)n, sizeof *step, cmp_dbl);
    qsort(rest, (size_t)n, sizeof *rest, cmp_dbl);
    printf("bench %s: %d steps, begin+op+end+save median %.3f ms p90 %.3f ms, restore median %.3f "
           "ms, %.0f steps/s with restores, held %llu KiB\n", drv_cfg.name, n, step[n / 2] * 1e3,
           step[n * 9 / 10] * 1e3, rest[n / 2] * 1e3, n / total,
           (unsigned long long)(drv_b->ops->held_bytes(drv_b) >> 10));
    free(step);
    free(rest);
}

static void roundtrip(int nbench, int no_restore_check)
{
    static char *s0, *s1, *s2;             /* static: the early return for replay leaks none */
    check(drv_b->ops->setup(drv_b), "setup");
    s0 = change(NULL);
    check(drv_b->ops->save(drv_b, 0), "save 0");
    s1 = change(tree_one);
    check(drv_b->ops->save(drv_b, 1), "save 1");
    s2 = change(tree_two);
    check(drv_b->ops->save(drv_b, 2), "save 2");
    if (!strcmp(s1, s2) || !strcmp(s0, s1))
        { fprintf(stderr, "s0:\n%s\ns1:\n%s\ns2:\n%s", s0, s1, s2); die("the changes did not change the listing"); }
    check(drv_b->ops->restore(drv_b, 1), "restore 1");
    expect_image("restore 1", 1);
    expect_state("restore 1", s1);
    check(drv_b->ops->restore(drv_b, 2), "restore 2");
    expect_image("restore 2", 2);
    expect_state("restore 2", s2);
    free(change(scribble));               /* changed but not saved: restore must undo it */
    check(drv_b->ops->restore(drv_b, 1), "restore 1 after unsaved change");
    expect_image("restore 1 after unsaved change", 1);
    expect_state("restore 1 after unsaved change", s1);
    check(drv_b->ops->restore(drv_b, 0), "restore 0");
    expect_image("restore 0", 0);
    expect_state("restore 0", s0);
    if (drv_b->ops->restore(drv_b, 77) == 0)
        die("restore of an unknown state succeeded");
    printf("ok unknown state: %s\n", drv_b->err);
    drv_b->ops->discard(drv_b, 2);
    if (!no_restore_check && drv_b->ops->restore(drv_b, 2) == 0)
        die("restore of a discarded state succeeded");
    char out[2048];
    if ((drv_cfg.type == FS_FUSE && drv_cfg.size == 0) ||
        (drv_cfg.type == FS_KERNEL && fs_format_devless(drv_cfg.fstype)) ||
        (drv_b->ops->can_export && !drv_b->ops->can_export(drv_b, 1))) {
        if (drv_b->ops->export_state(drv_b, 1, drv_dir, out, sizeof out) == 0)
            die("export without an image succeeded");
        printf("ok export refused: %s\n", drv_b->err);
        if (drv_fallback || drv_bad_replay)
            logical_checks(s1);
        if (nbench > 0 && strcmp(drv_cfg.restore, "replay") != 0)
            bench(nbench);
        print_stats();
        return;
    }
    check(drv_b->ops->export_state(drv_b, 1, drv_dir, out, sizeof out), "export");
    struct stat st;
    if (stat(out, &st) < 0)
        die("exported state missing");
    printf("ok export %s (%lld bytes)\n", out, (long long)st.st_size);
    unlink(out);
    if (nbench > 0)
        bench(nbench);
}

/* The engine's prepopulation, for a backend that makes it in a layer before its first mount. */
static int drv_populate(void *ctx, int dirfd)
{
    put_file(dirfd, "lowerfile", 'l', 100);
    return 0;
}

/* 1 when path holds a file of size bytes. */
static int file_of_size(const char *path, off_t size)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == size;
}

/* overlay with populate_lower: the lower layer's file shows, a change copies it up (the lower
 * one stays), and a restore of the initial state starts from fresh layers. */
static void copyup(void)
{
    char lower[1200], upper[1200];
    snprintf(lower, sizeof lower, "%s.layers/lower/lowerfile", drv_b->mnt);
    snprintf(upper, sizeof upper, "%s.layers/upper/lowerfile", drv_b->mnt);
    check(drv_b->ops->setup(drv_b), "setup");
    char *s0 = change(NULL);
    check(drv_b->ops->save(drv_b, 0), "save 0");
    if (!strstr(s0, "lowerfile") || !drv_b->populated || !file_of_size(lower, 100) ||
        file_of_size(upper, 100))
        die("the lower layer's file is not what the mount shows");
    free(change(scribble_lower));
    check(drv_b->ops->save(drv_b, 1), "save 1");
    if (!file_of_size(upper, 150) || !file_of_size(lower, 100))
        die("no copy-up: the upper layer has no changed copy, or the lower one changed");
    printf("ok copy-up: upper has the changed file, lower the original\n");
    check(drv_b->ops->restore(drv_b, 0), "restore 0");
    expect_state("restore 0", s0);
    if (file_of_size(upper, 150) || access(upper, F_OK) == 0)
        die("restore 0 kept the copied-up file: not fresh layers");
    printf("ok restore 0: fresh layers\n");
    print_stats();
    free(s0);
}

static void usage(void)
{
    fprintf(stderr, "usage: backend-driver [--type kernel|reffs|fuse] [--fstype T] [--size N]\n"
                    "  [--mkfs-opts S] [--mount-opts S] [--mount-cmd S] [--unmount-cmd S]\n"
                    "  [--reffs-opts S] [--remount 0|1] [--run-id ID] [--name N] [--bench N]\n"
                    "  [--workdir DIR] [--restore auto|snapshot|logical|replay] [--fallback-check]\n"
                    "  [--bad-replay] [--readback auto|dump|vfs] [--populate-lower] [--inodes N]\n"
                    "  roundtrip | copyup | setup-fail | crash | sweep\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "type", 1, 0, 't' }, { "fstype", 1, 0, 'f' }, { "size", 1, 0, 's' },
        { "mkfs-opts", 1, 0, 'k' }, { "mount-opts", 1, 0, 'o' }, { "mount-cmd", 1, 0, 'm' },
        { "unmount-cmd", 1, 0, 'u' }, { "reffs-opts", 1, 0, 'r' }, { "remount", 1, 0, 'R' },
        { "run-id", 1, 0, 'i' }, { "name", 1, 0, 'n' }, { "bench", 1, 0, 'b' },
        { "workdir", 1, 0, 'w' }, { "restore", 1, 0, 'x' }, { "bad-replay", 0, 0, 'B' },
        { "fallback-check", 0, 0, 'F' }, { "readback", 1, 0, 'D' },
        { "populate-lower", 0, 0, 'P' }, { "inodes", 1, 0, 'I' },
        { 0, 0, 0, 0 },
    };
    int c, nbench = 0;
    drv_cfg.remount = 1;
    drv_cfg.op_timeout = 10;
    snprintf(drv_cfg.fstype, sizeof drv_cfg.fstype, "ext4");
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 't':
            drv_cfg.type = !strcmp(optarg, "kernel") ? FS_KERNEL
                           : !strcmp(optarg, "reffs") ? FS_REFFS : FS_FUSE;
            break;
        case 'f': snprintf(drv_cfg.fstype, sizeof drv_cfg.fstype, "%s", optarg); break;
        case 's': drv_cfg.size = strtoull(optarg, NULL, 0); break;
        case 'k': snprintf(drv_cfg.mkfs_opts, sizeof drv_cfg.mkfs_opts, "%s", optarg); break;
        case 'o': snprintf(drv_cfg.mount_opts, sizeof drv_cfg.mount_opts, "%s", optarg); break;
        case 'm': snprintf(drv_cfg.mount_cmd, sizeof drv_cfg.mount_cmd, "%s", optarg); break;
        case 'u': snprintf(drv_cfg.unmount_cmd, sizeof drv_cfg.unmount_cmd, "%s", optarg); break;
        case 'r': snprintf(drv_cfg.reffs_opts, sizeof drv_cfg.reffs_opts, "%s", optarg); break;
        case 'R': drv_cfg.remount = atoi(optarg); break;
        case 'i': drv_run = optarg; break;
        case 'n': snprintf(drv_cfg.name, sizeof drv_cfg.name, "%s", optarg); break;
        case 'b': nbench = atoi(optarg); break;
        case 'w': drv_workdir = optarg; break;
        case 'x': snprintf(drv_cfg.restore, sizeof drv_cfg.restore, "%s", optarg); break;
        case 'D': snprintf(drv_cfg.readback, sizeof drv_cfg.readback, "%s", optarg); break;
        case 'B': drv_bad_replay = 1; break;
        case 'F': drv_fallback = 1; break;
        case 'P': drv_cfg.populate_lower = 1; break;
        case 'I': drv_cfg.inodes = strtoull(optarg, NULL, 0); break;
        default: usage();
        }
    }
    if (optind != argc - 1)
        usage();
    const char *cmd = argv[optind];
    if (!drv_cfg.name[0])
        snprintf(drv_cfg.name, sizeof drv_cfg.name, "%s", drv_cfg.type == FS_KERNEL ? drv_cfg.fstype
                                                         : drv_cfg.type == FS_REFFS ? "reffs" : "fuse");
    if (!strcmp(cmd, "sweep")) {
        backend_sweep(drv_run);
        return 0;
    }
    drv_b = backend_open(&drv_cfg, drv_run, drv_workdir);
    if (!drv_b)
        die("backend_open");
    drv_b->replay_fn = drv_replay;
    drv_b->populate_fn = drv_populate;
    snprintf(drv_dir, sizeof drv_dir, "/tmp/backend-driver-%d", (int)getpid());
    if (mkdir(drv_dir, 0700) < 0)
        die(drv_dir);
    if (!strcmp(cmd, "roundtrip")) {
        roundtrip(nbench, 0);
    } else if (!strcmp(cmd, "copyup")) {
        copyup();
    } else if (!strcmp(cmd, "setup-fail")) {
        if (drv_b->ops->setup(drv_b) == 0)
            die("setup succeeded although it should fail");
        printf("setup failed as expected: %s\n", drv_b->err);
    } else if (!strcmp(cmd, "crash")) {
        check(drv_b->ops->setup(drv_b), "setup");
        printf("mounted %s image %s\n", drv_b->mnt, drv_b->image);
        if (drv_b->mnt[0] != '/')
            die("the mount point is not an absolute path");
        fflush(stdout);
        rmdir(drv_dir);
        _exit(0);                          /* what a crash leaves: for the sweep test */
    } else {
        usage();
    }
    backend_close(drv_b);
    rmdir(drv_dir);
    return 0;
}
