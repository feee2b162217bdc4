/* Confirms outside Metis that lowntfs-3g's listing read with small getdents64 buffers lists fewer entries than exist: makes N files in DIR and counts what a listing returns. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* usage: listing DIR N BUFSIZE
 * Makes DIR/e0 ... DIR/e{N-1} (regular files; DIR is made if missing), then reads DIR once
 * with getdents64 buffers of BUFSIZE bytes and once with 64 KiB, and counts the names other
 * than . and .. each returned. Prints both counts; exits 1 when the small-buffer listing
 * missed an entry, 0 when it listed all N, 2 on a set-up error. */

static long count(const char *dir, size_t bufsize, long *calls)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    char *buf = malloc(bufsize);
    long n = 0;
    *calls = 0;
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, bufsize);
        (*calls)++;
        if (got < 0) {
            n = -1;
            break;
        }
        if (got == 0)
            break;
        for (long off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
                n++;
            off += d->d_reclen;
        }
    }
    free(buf);
    close(fd);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: listing DIR N BUFSIZE\n");
        return 2;
    }
    const char *dir = argv[1];
    long n = atol(argv[2]);
    size_t bufsize = (size_t)atol(argv[3]);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "listing: mkdir %s: %s\n", dir, strerror(errno));
        return 2;
    }
    char p[4096];
    for (long i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/e%ld", dir, i);
        int fd = open(p, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) {
            fprintf(stderr, "listing: create %s: %s\n", p, strerror(errno));
            return 2;
        }
        close(fd);
    }
    long small_calls, big_calls;
    long small = count(dir, bufsize, &small_calls), big = count(dir, 65536, &big_calls);
    if (small < 0 || big < 0) {
        fprintf(stderr, "listing: getdents64 of %s: %s\n", dir, strerror(errno));
        return 2;
    }
    printf("listing %s: %ld entries made; %zu-byte buffers listed %ld (%ld calls), 64-KiB buffers %ld\n",
           dir, n, bufsize, small, small_calls, big);
    return small < n ? 1 : 0;
}
