/* Growable byte buffers and arrays: the one way Metis grows memory by doubling. */
#ifndef METIS_BUF_H
#define METIS_BUF_H

#include <stddef.h>

/* Bytes p[0..len) of cap allocated; p stays NULL until the first byte is added. */
struct buf {
    char *p;
    size_t len, cap;
};

/* Makes room for need more bytes after len; 0, or -1 with errno (ENOMEM). */
int buf_reserve(struct buf *b, size_t need);
int buf_add(struct buf *b, const void *p, size_t n);
/* Appends formatted text; p stays NUL-terminated after it (the NUL is not counted in len). */
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

/* Grows the array *p of *cap elements of elem bytes to hold at least need; doubling, so that
 * n pushes cost O(n). 0, or -1 with errno, *p untouched. */
int array_reserve(void *p, size_t *cap, size_t need, size_t elem);

#endif
