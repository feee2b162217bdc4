/* Growable byte buffers and arrays: the one way Metis grows memory by doubling. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int array_reserve(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *np = realloc(*(void **)p, n * elem);
    if (!np)
        return -1;
    *(void **)p = np;
    *cap = n;
    return 0;
}

int buf_reserve(struct buf *b, size_t need)
{
    /* A first allocation of 4 KiB: most buffers hold a line or a listing. */
    if (!b->cap && need < 4096 && array_reserve(&b->p, &b->cap, 4096, 1))
        return -1;
    return array_reserve(&b->p, &b->cap, b->len + need, 1);
}

int buf_add(struct buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return 0;
        }
        if (buf_reserve(b, (size_t)n + 1))
            return -1;
    }
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
