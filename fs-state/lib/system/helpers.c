/* Small file, text and clock helpers every part of Metis may use. */
#include "helpers.h"
#include "lib/text/buf.h"
#include <time.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
    char buf[8192];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    int rc = in && out && !ferror(in) && fclose(out) == 0 ? 0 : -1;
    if (in)
        fclose(in);
    return rc;
}

void json_escape(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += snprintf(out + n, len - n, "\\%c", c);
        else if (c < 0x20)
            n += snprintf(out + n, len - n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int strv_push(char ***v, int *n, int *cap, const char *s)
{
    size_t room = (size_t)*cap;
    if (array_reserve(v, &room, (size_t)*n + 1, sizeof **v))
        return -1;
    *cap = (int)room;
    if (!((*v)[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

/* Grows with what the file holds: max is a bound (a summary.json may be allowed 64 MiB),
 * not what is allocated. */
char *read_text_file(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct buf b = { 0 };
    char chunk[8192];
    size_t n = 1;
    while (b.len < max && n > 0) {
        size_t want = max - b.len < sizeof chunk ? max - b.len : sizeof chunk;
        n = fread(chunk, 1, want, f);
        if (buf_add(&b, chunk, n))
            break;
    }
    int ok = !ferror(f) && buf_add(&b, "", 1) == 0;
    fclose(f);
    if (!ok)
        buf_free(&b);
    return b.p;
}

int pread_all(int fd, void *buf, size_t len, off_t off)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}
