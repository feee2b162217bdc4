/* Confirms outside Metis what open(O_RDONLY|O_TRUNC) does to a securefs file and whether a later open that writes (O_RDWR, O_WRONLY|O_TRUNC) makes it readable again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* usage: trunc DIR
 * Steps on DIR/f, each printed with its answer:
 *   1 write "hello" to a new f        2 open(f, O_RDONLY|O_TRUNC)
 *   3 read f (O_RDONLY)               4 open(f, FLAGS) and write "again", FLAGS O_WRONLY|O_TRUNC
 *   5 read f                          then 6-7 the same with O_RDWR on DIR/g
 * Exit: 1 when step 2 failed and step 3 could not read (the defect shows), 0 otherwise,
 * 2 on a set-up error. */

static const char *err(int r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static int write_file(const char *p, int flags, const char *s)
{
    int fd = open(p, flags, 0644);
    if (fd < 0)
        return -1;
    int r = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

static int read_file(const char *p, char *buf, size_t len)
{
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < 0)
        return -1;
    buf[n] = 0;
    return 0;
}

static int round_on(const char *dir, const char *name, int flags, const char *flagname)
{
    char p[4096], buf[64] = "";
    int r, fd, read_failed;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    r = write_file(p, O_WRONLY | O_CREAT | O_TRUNC, "hello");
    printf("%s: write \"hello\": %s\n", name, err(r));
    if (r < 0)
        return 2;
    fd = open(p, O_RDONLY | O_TRUNC);
    printf("%s: open O_RDONLY|O_TRUNC: %s\n", name, err(fd));
    if (fd >= 0)
        close(fd);
    r = read_file(p, buf, sizeof buf);
    read_failed = r < 0;
    printf("%s: read: %s%s%s%s\n", name, err(r), r < 0 ? "" : " \"", r < 0 ? "" : buf, r < 0 ? "" : "\"");
    r = write_file(p, flags, "again");
    printf("%s: open %s, write \"again\": %s\n", name, flagname, err(r));
    buf[0] = 0;
    r = read_file(p, buf, sizeof buf);
    printf("%s: read: %s%s%s%s\n", name, err(r), r < 0 ? "" : " \"", r < 0 ? "" : buf, r < 0 ? "" : "\"");
    return fd < 0 && read_failed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trunc DIR\n");
        return 2;
    }
    int a = round_on(argv[1], "f", O_WRONLY | O_TRUNC, "O_WRONLY|O_TRUNC");
    int b = round_on(argv[1], "g", O_RDWR, "O_RDWR");
    if (a == 2 || b == 2)
        return 2;
    return a || b;
}
