/* Small file, text and clock helpers every part of Metis may use. */
#ifndef METIS_UTIL_H
#define METIS_UTIL_H

#include <stddef.h>
#include <sys/types.h>

int mkdir_p(const char *path);                 /* like mkdir -p; 0 or -1 with errno */
int copy_file(const char *from, const char *to);
/* The first max bytes of a file, NUL-terminated (malloc'd); NULL if it cannot be read. */
char *read_text_file(const char *path, size_t max);
/* Reads all len bytes at off, again after EINTR or a short read; 0, or -1 with errno (EIO: the
 * file ended first). */
int pread_all(int fd, void *buf, size_t len, off_t off);
/* Writes all len bytes at off, again after EINTR or a short write; 0, or -1 with errno. */
int pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* s as the inside of a JSON string (quotes, backslashes and control characters escaped). */
void json_escape(const char *s, char *out, size_t len);
/* Appends a copy of s to the growing array *v of *n strings (capacity *cap); 0 or -1. */
int strv_push(char ***v, int *n, int *cap, const char *s);
/* Seconds on the monotonic clock. */
double now_seconds(void);

#endif
