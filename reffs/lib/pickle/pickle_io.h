/* Little-endian byte buffers for writing pickles and bounds-checked cursors for reading them. */
#ifndef REFFS_PICKLE_IO_H
#define REFFS_PICKLE_IO_H

#include <stddef.h>
#include <stdint.h>

/* Hidden, so the archive build can make these local: only reffs_ names may leave libreffs.a. */
#pragma GCC visibility push(hidden)

struct pbuf {
    unsigned char *p;
    size_t n, cap;
};

void pb_bytes(struct pbuf *b, const void *src, size_t n);
void pb_u16(struct pbuf *b, uint16_t v);
void pb_u32(struct pbuf *b, uint32_t v);
void pb_u64(struct pbuf *b, uint64_t v);

/* Reading past the end sets bad and yields zeros, so parsers check once per record. */
struct pcur {
    const unsigned char *p;
    size_t n, off;
    int bad;
};

const unsigned char *pc_bytes(struct pcur *c, size_t n);
uint16_t pc_u16(struct pcur *c);
uint32_t pc_u32(struct pcur *c);
uint64_t pc_u64(struct pcur *c);
size_t pc_left(const struct pcur *c);

#pragma GCC visibility pop

#endif
