/* Little-endian encoding and bounds-checked decoding for the pickle body. */
#include <string.h>
#include "lib/core/internal.h"
#include "pickle_io.h"

void pb_bytes(struct pbuf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void pb_le(struct pbuf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    pb_bytes(b, t, bytes);
}

void pb_u16(struct pbuf *b, uint16_t v) { pb_le(b, v, 2); }
void pb_u32(struct pbuf *b, uint32_t v) { pb_le(b, v, 4); }
void pb_u64(struct pbuf *b, uint64_t v) { pb_le(b, v, 8); }

size_t pc_left(const struct pcur *c)
{
    return c->bad ? 0 : c->n - c->off;
}

const unsigned char *pc_bytes(struct pcur *c, size_t n)
{
    if (c->bad || n > c->n - c->off) {
        c->bad = 1;
        return NULL;
    }
    const unsigned char *p = c->p + c->off;
    c->off += n;
    return p;
}

static uint64_t pc_le(struct pcur *c, int bytes)
{
    const unsigned char *p = pc_bytes(c, bytes);
    uint64_t v = 0;
    for (int i = 0; p && i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint16_t pc_u16(struct pcur *c) { return (uint16_t)pc_le(c, 2); }
uint32_t pc_u32(struct pcur *c) { return (uint32_t)pc_le(c, 4); }
uint64_t pc_u64(struct pcur *c) { return pc_le(c, 8); }
