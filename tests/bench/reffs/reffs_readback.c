/* Benchmark: reading a 12-entry tree back through RefFS (vs tmpfs), and the SAVE/RESTORE ioctl round trips. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "backend/kinds/reffs_dump.h"
#include "reffs_ioctl.h"

enum kind { DIR_, FILE_, LINK_ };
struct entry {
    const char *path;
    enum kind kind;
    const char *data;   /* file contents or symlink target */
    int xattrs;         /* number of user.* attributes */
};

/* 3 directories, 7 files, 2 symlinks: the size of a typical Metis state. */
static const struct entry tree[] = {
    { "d1", DIR_, NULL, 1 },
    { "d1/d2", DIR_, NULL, 0 },
    { "d3", DIR_, NULL, 0 },
    { "f1", FILE_, "first file", 2 },
    { "f2", FILE_, "second file, a little longer than the first one", 0 },
    { "f3", FILE_, "", 0 },
    { "d1/f4", FILE_, "four", 1 },
    { "d1/f5", FILE_, "five five five five five", 0 },
    { "d1/d2/f6", FILE_, "six", 2 },
    { "d3/f7", FILE_, "seven", 0 },
    { "s1", LINK_, "f1", 0 },
    { "d1/s2", LINK_, "d2/f6", 0 },
};
#define NENTRIES (sizeof tree / sizeof tree[0])
static const char *dirs[] = { "", "d1", "d1/d2", "d3" };
#define NDIRS (sizeof dirs / sizeof dirs[0])

static void die(const char *what, const char *path)
{
    fprintf(stderr, "reffs_readback: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void make_entry(const char *root, const struct entry *e)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, e->path);
    if (e->kind == DIR_ && mkdir(p, 0755) < 0)
        die("mkdir", p);
    if (e->kind == LINK_ && symlink(e->data, p) < 0)
        die("symlink", p);
    if (e->kind == FILE_) {
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, e->data, strlen(e->data)) < 0 || close(fd) < 0)
            die("write", p);
    }
    for (int i = 0; i < e->xattrs; i++) {
        char name[32];
        snprintf(name, sizeof name, "user.attr%d", i);
        if (lsetxattr(p, name, "value", 5, 0) < 0)
            die("setxattr", p);
    }
}

static void read_xattrs(const char *p)
{
    char list[1024], value[256];
    ssize_t n = llistxattr(p, list, sizeof list);
    if (n < 0)
        die("listxattr", p);
    for (char *name = list; name < list + n; name += strlen(name) + 1)
        if (lgetxattr(p, name, value, sizeof value) < 0)
            die("getxattr", p);
}

static void read_entry(const char *root, const struct entry *e, int with_xattrs)
{
    char p[4096], buf[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", root, e->path);
    if (lstat(p, &st) < 0)
        die("lstat", p);
    if (e->kind == FILE_) {
        int fd = open(p, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof buf) < 0)
            die("read", p);
        close(fd);
    } else if (e->kind == LINK_ && readlink(p, buf, sizeof buf) < 0) {
        die("readlink", p);
    }
    if (with_xattrs)
        read_xattrs(p);
}

static void list_dir(const char *root, const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, dir);
    DIR *d = opendir(p);
    if (!d)
        die("opendir", p);
    while (readdir(d))
        ;
    closedir(d);
}

static void read_back_parts(const char *root, int with_xattrs)
{
    for (size_t i = 0; i < NENTRIES; i++)
        read_entry(root, &tree[i], with_xattrs);
    for (size_t i = 0; i < NDIRS; i++)
        list_dir(root, dirs[i]);
}

static void read_back(const char *root)
{
    read_back_parts(root, 1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over ROUNDS rounds of the mean time per read-back: other work on the machine
 * disturbs single rounds, not the median. */
#define ROUNDS 11
static double time_read_back(const char *root, int iters, int with_xattrs)
{
    double round_us[ROUNDS];
    int per_round = iters / ROUNDS > 0 ? iters / ROUNDS : 1;
    read_back_parts(root, with_xattrs);  /* warm the caches */
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_us();
        for (int i = 0; i < per_round; i++)
            read_back_parts(root, with_xattrs);
        round_us[r] = (now_us() - t0) / per_round;
    }
    qsort(round_us, ROUNDS, sizeof round_us[0], cmp_double);
    return round_us[ROUNDS / 2];
}

static void ioc(int fd, unsigned long cmd, uint64_t key, const char *mnt)
{
    struct reffs_ioc_key k = { .key = key };
    if (ioctl(fd, cmd, &k) < 0)
        die(cmd == REFFS_IOC_SAVE ? "SAVE on" : "RESTORE on", mnt);
}

/* Save and restore the same key alternately, as Metis does around each operation. */
static void time_snapshots(const char *mnt, int iters, double *save_us, double *restore_us,
                           double *cold_us)
{
    int fd = open(mnt, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        die("open", mnt);
    double save = 0, restore = 0, cold = 0;
    for (int i = 0; i < iters; i++) {
        double t0 = now_us();
        ioc(fd, REFFS_IOC_SAVE, 42, mnt);
        double t1 = now_us();
        ioc(fd, REFFS_IOC_RESTORE, 42, mnt);
        double t2 = now_us();
        read_back(mnt);
        double t3 = now_us();
        save += t1 - t0, restore += t2 - t1, cold += t3 - t2;
    }
    struct reffs_ioc_key k = { .key = 42 };
    ioctl(fd, REFFS_IOC_DISCARD, &k);
    close(fd);
    *save_us = save / iters, *restore_us = restore / iters, *cold_us = cold / iters;
}

/* What Metis's RefFS read-back costs with readback = dump: the DUMP ioctl, reading the
 * file it wrote, and digesting it (ioctl alone in *ioctl_us). */
static double time_dump(const char *mnt, int iters, double *ioctl_us)
{
    static char buf[1 << 20];
    struct reffs_ioc_file f;
    struct tree_opts o = { .hash = "md5" };
    unsigned char d[TREE_MAX_DIGEST];
    int fd = open(mnt, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        die("open", mnt);
    double total = 0, ioc_only = 0;
    for (int i = 0; i < iters; i++) {
        memset(&f, 0, sizeof f);
        snprintf(f.path, sizeof f.path, "/dev/shm/reffs-bench-%d.dump", (int)getpid());
        double t0 = now_us();
        if (ioctl(fd, REFFS_IOC_DUMP, &f) < 0)
            die("DUMP on", mnt);
        double t1 = now_us();
        int dfd = open(f.path, O_RDONLY);
        ssize_t n = dfd < 0 ? -1 : pread(dfd, buf, sizeof buf, 0);
        if (dfd >= 0)
            close(dfd);
        if (n < 0 || reffs_dump_digest(buf, (size_t)n, &o, d, NULL, NULL) < 0)
            die("digest of the dump of", mnt);
        total += now_us() - t0, ioc_only += t1 - t0;
    }
    unlink(f.path);
    close(fd);
    *ioctl_us = ioc_only / iters;
    return total / iters;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: reffs_readback REFFS_MNT [TMPFS_DIR [ITERATIONS]]\n");
        return 2;
    }
    const char *mnt = argv[1], *tmp = argc > 2 && *argv[2] ? argv[2] : NULL;
    int iters = argc > 3 ? atoi(argv[3]) : 5000;
    if (iters <= 0)
        iters = 5000;
    for (size_t i = 0; i < NENTRIES; i++) {
        make_entry(mnt, &tree[i]);
        if (tmp)
            make_entry(tmp, &tree[i]);
    }
    printf("read-back of %zu entries, %d iterations\n", NENTRIES, iters);
    printf("  RefFS read-back:              %8.1f us\n", time_read_back(mnt, iters, 1));
    printf("    of which without xattrs:    %8.1f us\n", time_read_back(mnt, iters, 0));
    if (tmp)
        printf("  tmpfs read-back:              %8.1f us\n", time_read_back(tmp, iters, 1));
    double save, restore, cold;
    time_snapshots(mnt, iters / 5 ? iters / 5 : 1, &save, &restore, &cold);
    printf("  RefFS SAVE ioctl:             %8.1f us\n", save);
    printf("  RefFS RESTORE ioctl:          %8.1f us\n", restore);
    printf("  RefFS read-back after restore:%8.1f us\n", cold);
    double dump_ioctl, dump = time_dump(mnt, iters / 5 ? iters / 5 : 1, &dump_ioctl);
    printf("  RefFS read-back by dump:      %8.1f us (the DUMP ioctl %.1f us)\n", dump, dump_ioctl);
    return 0;
}
