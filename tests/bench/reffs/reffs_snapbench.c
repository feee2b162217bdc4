/* Benchmark of RefFS snapshots: SAVE/RESTORE latency of a small tree and bytes held per snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "reffs.h"

#define ROUNDS 20000

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    printf("%-34s median %7.2f us   p99 %7.2f us   max %8.2f us\n", what, v[n / 2], v[n * 99 / 100], v[n - 1]);
}

static void must(int r, const char *what)
{
    if (r < 0) {
        fprintf(stderr, "reffs_snapbench: %s failed: %s\n", what, strerror(-r));
        exit(1);
    }
}

/* 10 small files in two directories: 12 entries below the root. */
static reffs_ino build_tree(struct reffs *fs)
{
    struct reffs_entry e, d1, d2;
    must(reffs_mkdir(fs, REFFS_ROOT_INO, "d1", 0755, 0, 0, &d1), "mkdir");
    must(reffs_mkdir(fs, REFFS_ROOT_INO, "d2", 0755, 0, 0, &d2), "mkdir");
    reffs_ino first = 0;
    for (int i = 0; i < 10; i++) {
        char name[16], data[100];
        snprintf(name, sizeof name, "f%d", i);
        memset(data, 'a' + i, sizeof data);
        reffs_ino dir = i < 4 ? REFFS_ROOT_INO : i < 7 ? d1.st.st_ino : d2.st.st_ino;
        must(reffs_mknod(fs, dir, name, S_IFREG | 0644, 0, 0, 0, &e), "mknod");
        must((int)reffs_write(fs, e.st.st_ino, data, sizeof data, 0), "write");
        if (!first)
            first = e.st.st_ino;
    }
    return first;
}

static void bench_small_tree(void)
{
    struct reffs *fs = reffs_create(NULL);
    reffs_ino f = build_tree(fs);
    static double t[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        double a = now_us();
        must(reffs_snapshot_save(fs, i % 8), "save");
        t[i] = now_us() - a;
    }
    report("SAVE, 12-entry tree", t, ROUNDS);
    for (int i = 0; i < ROUNDS; i++) {
        double a = now_us();
        must(reffs_snapshot_restore(fs, i % 8, NULL), "restore");
        t[i] = now_us() - a;
    }
    report("RESTORE, unchanged 12-entry tree", t, ROUNDS);
    for (int i = 0; i < ROUNDS; i++) {
        must((int)reffs_write(fs, f, "x", 1, i % 100), "write");
        struct reffs_entry e;
        must(reffs_mknod(fs, REFFS_ROOT_INO, "extra", S_IFREG | 0644, 0, 0, 0, &e), "mknod");
        double a = now_us();
        must(reffs_snapshot_restore(fs, 0, NULL), "restore");
        t[i] = now_us() - a;
    }
    report("RESTORE after write+create", t, ROUNDS);
    for (int k = 1; k < 8; k++)
        reffs_snapshot_discard(fs, k);
    struct reffs_snap_stats ss;
    reffs_snapshot_stats(fs, &ss);
    printf("bytes held by 1 snapshot of the unchanged 12-entry tree: %llu\n", (unsigned long long)ss.bytes);
    must((int)reffs_write(fs, f, "y", 1, 0), "write");
    reffs_snapshot_stats(fs, &ss);
    printf("bytes held after 1 byte of one small file changed: %llu\n", (unsigned long long)ss.bytes);
    int fd = memfd_create("snapbench", 0);
    double a = now_us();
    must(reffs_pickle(fs, 0, 0, fd), "pickle");
    printf("pickle of the 12-entry tree: %lld bytes in %.1f us\n", (long long)lseek(fd, 0, SEEK_END), now_us() - a);
    lseek(fd, 0, SEEK_SET);
    struct reffs *g = reffs_create(NULL);
    a = now_us();
    must(reffs_load(g, fd, 1, NULL, NULL), "load");
    printf("load+restore of that pickle: %.1f us\n", now_us() - a);
    close(fd);
    reffs_destroy(g);
    reffs_destroy(fs);
}

static void bench_big_file(void)
{
    struct reffs *fs = reffs_create(NULL);
    struct reffs_entry e;
    must(reffs_mknod(fs, REFFS_ROOT_INO, "big", S_IFREG | 0644, 0, 0, 0, &e), "mknod");
    static char buf[1 << 20];
    memset(buf, 'b', sizeof buf);
    must((int)reffs_write(fs, e.st.st_ino, buf, sizeof buf, 0), "write");
    must(reffs_snapshot_save(fs, 1), "save");
    must((int)reffs_write(fs, e.st.st_ino, "X", 1, 123456), "write");
    struct reffs_snap_stats ss;
    reffs_snapshot_stats(fs, &ss);
    printf("bytes held by 1 snapshot, 1 MiB file with 1 byte changed since: %llu\n", (unsigned long long)ss.bytes);
    double a = now_us();
    must(reffs_snapshot_save(fs, 2), "save");
    printf("SAVE with a 1 MiB file: %.2f us; ", now_us() - a);
    a = now_us();
    must(reffs_snapshot_restore(fs, 1, NULL), "restore");
    printf("RESTORE: %.2f us\n", now_us() - a);
    reffs_destroy(fs);
}

int main(void)
{
    bench_small_tree();
    bench_big_file();
    return 0;
}
