/* Image store: device images as chunked arrays of refcounted, content-deduplicated blocks. */
#include "backend/device/imgstore.h"
#include "lib/system/helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

/*
 * An image is a short array of chunks; a chunk is CHUNK_BLOCKS pointers to blocks.
 * Blocks are deduplicated by content across every image. Chunks are shared (refcounted)
 * between an image and the one it was saved after when none of their blocks changed, so a
 * state that differs from its predecessor in a few blocks costs a few chunks, not a full
 * pointer array: memory grows with what changes, not with image size x states.
 */
#define CHUNK_BLOCKS 64
/* Images from this size on are mapped rather than read (see open_image): for the 256-KiB
 * images of ext2-vs-ext4 mapping gained nothing measurable, so they are still read. */
#define MAP_MIN (1u << 20)

struct block {
    UT_hash_handle hh;          /* keyed by hash; blocks with equal hashes chain via collide */
    uint64_t hash;
    uint64_t refs;
    struct block *collide;
    unsigned char data[];
};

struct chunk {
    uint64_t refs;
    struct block *blk[CHUNK_BLOCKS];
};

struct image {
    uint64_t refs;
    struct chunk *chunk[];
};

struct state {
    UT_hash_handle hh;
    uint64_t id;
    struct image *img;
};

struct imgstore {
    size_t size, bsize;
    size_t nblocks, nchunks;
    struct block *blocks;       /* uthash by content hash */
    struct state *states;       /* uthash by id */
    uint64_t distinct;          /* blocks in the table */
    struct image *cur;          /* what the file held after the last save/restore */
    int cur_exact;              /* 0 once the file may have changed behind our back */
    int known;                  /* cur is the file but in blocks a device wrote since (a
                                   catch-up can read just those) */
    const unsigned char *only;  /* while catching up: the blocks to read, cur's the rest */
    unsigned char *buf;         /* one whole image, reused by save and restore */
    const unsigned char *src;   /* the image as save and restore_compare read it: the file
                                 * mapped, or buf when it cannot be */
    unsigned char *hole;        /* per block: 1 if the last read found it in a hole (zeros) */
    struct block *zero;         /* the all-zero full block, always held */
};

/* A 64-bit multiply-xorshift hash over 8-byte words, four lanes for instruction parallelism. */
static uint64_t mix64(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static uint64_t block_hash(const unsigned char *p, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t a = 1, b = 2, c = 3, d = 4, w[4];
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        memcpy(w, p + i, 32);
        a = (a ^ w[0]) * k;
        b = (b ^ w[1]) * k;
        c = (c ^ w[2]) * k;
        d = (d ^ w[3]) * k;
        a ^= a >> 29; b ^= b >> 29; c ^= c >> 29; d ^= d >> 29;
    }
    for (; i < n; i++)
        a = (a ^ p[i]) * k;
    return mix64(a ^ mix64(b + 0x51) ^ mix64(c + 0xa3) ^ mix64(d + n));
}

static size_t block_len(const struct imgstore *s, size_t i)
{
    size_t off = i * s->bsize;
    return s->size - off < s->bsize ? s->size - off : s->bsize;
}

/* Returns a referenced block holding data: an existing one when the content is known. */
static struct block *block_get(struct imgstore *s, const unsigned char *data, size_t len)
{
    uint64_t h = block_hash(data, len);
    struct block *head, *b;
    HASH_FIND(hh, s->blocks, &h, sizeof h, head);
    for (b = head; b; b = b->collide)
        if (memcmp(b->data, data, len) == 0) {
            b->refs++;
            return b;
        }
    b = malloc(sizeof *b + s->bsize);
    if (!b)
        return NULL;
    memset(b->data + len, 0, s->bsize - len);
    memcpy(b->data, data, len);
    b->hash = h;
    b->refs = 1;
    b->collide = NULL;
    if (head) {
        b->collide = head->collide;
        head->collide = b;
    } else {
        HASH_ADD(hh, s->blocks, hash, sizeof b->hash, b);
    }
    s->distinct++;
    return b;
}

static void block_put(struct imgstore *s, struct block *b)
{
    if (!b || --b->refs > 0)
        return;
    struct block *head;
    HASH_FIND(hh, s->blocks, &b->hash, sizeof b->hash, head);
    if (head == b) {
        HASH_DEL(s->blocks, b);
        if (b->collide)
            HASH_ADD(hh, s->blocks, hash, sizeof b->hash, b->collide);
    } else {
        struct block *p = head;
        while (p && p->collide != b)
            p = p->collide;
        if (p)
            p->collide = b->collide;
    }
    s->distinct--;
    free(b);
}

static void chunk_put(struct imgstore *s, struct chunk *c)
{
    if (!c || --c->refs > 0)
        return;
    for (size_t i = 0; i < CHUNK_BLOCKS; i++)
        block_put(s, c->blk[i]);
    free(c);
}

static void image_put(struct imgstore *s, struct image *img)
{
    if (!img || --img->refs > 0)
        return;
    for (size_t i = 0; i < s->nchunks; i++)
        chunk_put(s, img->chunk[i]);
    free(img);
}

struct imgstore *imgstore_new(size_t image_size, size_t block_size)
{
    if (image_size == 0 || block_size == 0)
        return NULL;
    struct imgstore *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->size = image_size;
    s->bsize = block_size;
    s->nblocks = (image_size + block_size - 1) / block_size;
    s->nchunks = (s->nblocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS;
    s->buf = calloc(1, image_size);
    s->src = s->buf;
    s->hole = calloc(s->nblocks, 1);
    if (s->buf && s->hole)
        s->zero = block_get(s, s->buf, block_size);
    if (!s->zero) {
        free(s->buf);
        free(s->hole);
        free(s);
        return NULL;
    }
    return s;
}

void imgstore_free(struct imgstore *s)
{
    if (!s)
        return;
    struct state *st, *tmp;
    HASH_ITER(hh, s->states, st, tmp) {
        HASH_DEL(s->states, st);
        image_put(s, st->img);
        free(st);
    }
    image_put(s, s->cur);
    block_put(s, s->zero);
    free(s->buf);
    free(s->hole);
    free(s);
}

static int read_range(int fd, unsigned char *buf, size_t len, off_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, buf + done, len - done, off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;    /* file shorter than the image */
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

static int read_all(int fd, unsigned char *buf, size_t len)
{
    return read_range(fd, buf, len, 0);
}

/* Marks the file's holes in s->hole and, with copy, reads the rest into buf (left stale in
 * the holes): a large, sparse image then costs what its data costs. */
static int scan_image(struct imgstore *s, int fd, int copy)
{
    size_t pos = 0, bs = s->bsize;
    memset(s->hole, 0, s->nblocks);
    while (pos < s->size) {
        off_t data = lseek(fd, (off_t)pos, SEEK_DATA), hole;
        if (data < 0 && errno == ENXIO)
            data = (off_t)s->size;
        else if (data < 0)              /* no SEEK_DATA here: all of it is data */
            return copy ? read_all(fd, s->buf, s->size) : 0;
        for (size_t i = (pos + bs - 1) / bs; (i + 1) * bs <= (size_t)data; i++)
            s->hole[i] = 1;
        if ((size_t)data >= s->size)
            break;
        hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0 || (size_t)hole > s->size)
            hole = (off_t)s->size;
        size_t from = (size_t)data / bs * bs, to = ((size_t)hole + bs - 1) / bs * bs;
        if (to > s->size)
            to = s->size;
        if (copy && read_range(fd, s->buf + from, to - from, (off_t)from) < 0)
            return -1;
        pos = to;
    }
    return 0;
}

static void close_image(struct imgstore *s)
{
    if (s->src != s->buf)
        munmap((void *)s->src, s->size);
    s->src = s->buf;
}

/* Points s->src at the image: the file mapped where it can be (its page cache compared in
 * place: reading a 16 MiB image into buf took a third of the CPU of ext4-vs-btrfs), else read
 * into buf. close_image undoes it. */
static int open_image(struct imgstore *s, int fd)
{
    struct stat st;
    /* A shorter file would fault past its end (SIGBUS): only whole regular files are mapped. */
    if (s->size >= MAP_MIN && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (size_t)st.st_size >= s->size) {
        void *map = mmap(NULL, s->size, PROT_READ, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED)
            s->src = map;
    }
    if (scan_image(s, fd, s->src == s->buf) == 0)
        return 0;
    close_image(s);
    return -1;
}

/* Block i of the buffer, reusing prev's block when its bytes are unchanged. */
static struct block *save_block(struct imgstore *s, const struct block *prev, size_t i)
{
    const unsigned char *data = s->src + i * s->bsize;
    size_t len = block_len(s, i);
    if (prev && s->only && !s->only[i]) {
        ((struct block *)prev)->refs++;
        return (struct block *)prev;
    }
    if (s->hole[i]) {
        s->zero->refs++;
        return s->zero;
    }
    if (prev && memcmp(prev->data, data, len) == 0) {
        ((struct block *)prev)->refs++;
        return (struct block *)prev;
    }
    return block_get(s, data, len);
}

/* Chunk c of the buffer; shares prev's chunk when every block is the same. */
static struct chunk *save_chunk(struct imgstore *s, struct chunk *prev, size_t c)
{
    struct chunk *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->refs = 1;
    int same = prev != NULL;
    for (size_t j = 0; j < CHUNK_BLOCKS; j++) {
        size_t i = c * CHUNK_BLOCKS + j;
        if (i >= s->nblocks)
            break;
        n->blk[j] = save_block(s, prev ? prev->blk[j] : NULL, i);
        if (!n->blk[j]) {
            chunk_put(s, n);
            return NULL;
        }
        same = same && n->blk[j] == prev->blk[j];
    }
    if (same) {
        chunk_put(s, n);
        prev->refs++;
        return prev;
    }
    return n;
}

static struct image *image_from_buf(struct imgstore *s)
{
    struct image *img = calloc(1, sizeof *img + s->nchunks * sizeof img->chunk[0]);
    if (!img)
        return NULL;
    img->refs = 1;
    for (size_t c = 0; c < s->nchunks; c++) {
        img->chunk[c] = save_chunk(s, s->cur ? s->cur->chunk[c] : NULL, c);
        if (!img->chunk[c]) {
            image_put(s, img);
            return NULL;
        }
    }
    return img;
}

static void set_state(struct imgstore *s, uint64_t id, struct image *img)
{
    struct state *st;
    HASH_FIND(hh, s->states, &id, sizeof id, st);
    if (st) {
        image_put(s, st->img);
    } else {
        st = calloc(1, sizeof *st);
        if (!st) {
            image_put(s, img);
            return;
        }
        st->id = id;
        HASH_ADD(hh, s->states, id, sizeof st->id, st);
    }
    st->img = img;
}

static void set_current(struct imgstore *s, struct image *img)
{
    img->refs++;
    image_put(s, s->cur);
    s->cur = img;
    s->cur_exact = 1;
    s->known = 1;
}

int imgstore_save(struct imgstore *s, uint64_t id, int fd)
{
    if (open_image(s, fd) < 0)
        return -1;
    struct image *img = image_from_buf(s);
    close_image(s);
    if (!img) {
        errno = ENOMEM;
        return -1;
    }
    set_current(s, img);
    set_state(s, id, img);
    return imgstore_has(s, id) ? 0 : (errno = ENOMEM, -1);
}

static struct image *find(struct imgstore *s, uint64_t id)
{
    struct state *st;
    HASH_FIND(hh, s->states, &id, sizeof id, st);
    return st ? st->img : NULL;
}

/* Zero blocks become holes again, so the file stays as sparse (and as cheap to read) as it was. */
static int write_block(struct imgstore *s, int fd, const struct block *b, size_t i)
{
    off_t off = (off_t)(i * s->bsize);
    size_t len = block_len(s, i);
    if (b == s->zero && len == s->bsize &&
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)len) == 0)
        return 0;
    return pwrite_all(fd, b->data, len, off);
}

/* Restore when cur is exact: chunk and block pointers tell what differs, no reads needed. */
static int restore_known(struct imgstore *s, struct image *img, int fd)
{
    for (size_t c = 0; c < s->nchunks; c++) {
        struct chunk *to = img->chunk[c], *from = s->cur->chunk[c];
        if (to == from)
            continue;
        for (size_t j = 0; j < CHUNK_BLOCKS && c * CHUNK_BLOCKS + j < s->nblocks; j++) {
            size_t i = c * CHUNK_BLOCKS + j;
            if (to->blk[j] != from->blk[j] && write_block(s, fd, to->blk[j], i) < 0)
                return -1;
        }
    }
    return 0;
}

/* Restore when the file may hold anything: read it and compare every block. */
static int restore_compare(struct imgstore *s, struct image *img, int fd)
{
    if (open_image(s, fd) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < s->nblocks && rc == 0; i++) {
        const struct block *b = img->chunk[i / CHUNK_BLOCKS]->blk[i % CHUNK_BLOCKS];
        const unsigned char *now = s->src + i * s->bsize;
        if (s->hole[i] ? b == s->zero : memcmp(now, b->data, block_len(s, i)) == 0)
            continue;
        rc = write_block(s, fd, b, i);  /* a write through the fd: the mapping sees it */
    }
    close_image(s);
    return rc;
}

int imgstore_restore(struct imgstore *s, uint64_t id, int fd)
{
    struct image *img = find(s, id);
    if (!img) {
        errno = ENOENT;
        return -1;
    }
    int rc = s->cur && s->cur_exact ? restore_known(s, img, fd) : restore_compare(s, img, fd);
    if (rc < 0) {
        s->cur_exact = s->known = 0;
        return -1;
    }
    set_current(s, img);
    return 0;
}

void imgstore_file_changed(struct imgstore *s)
{
    s->cur_exact = s->known = 0;
}

void imgstore_device_wrote(struct imgstore *s)
{
    s->cur_exact = 0;
}

int imgstore_catch_up(struct imgstore *s, int fd, const unsigned char *written)
{
    if (!s->cur || !s->known)
        return 1;
    if (s->cur_exact)
        return 0;
    for (size_t i = 0; i < s->nblocks; i++) {
        off_t off = (off_t)(i * s->bsize);
        s->hole[i] = 0;         /* a hole reads as zeros, which block_get finds as s->zero */
        if (written[i] && read_range(fd, s->buf + off, block_len(s, i), off) < 0)
            return -1;
    }
    s->only = written;
    struct image *img = image_from_buf(s);
    s->only = NULL;
    if (!img) {
        errno = ENOMEM;
        return -1;
    }
    set_current(s, img);
    image_put(s, img);          /* cur holds it */
    return 0;
}

int imgstore_keep_current(struct imgstore *s, uint64_t id)
{
    if (!s->cur || !s->cur_exact) {
        errno = EINVAL;
        return -1;
    }
    s->cur->refs++;             /* set_state takes over this reference */
    set_state(s, id, s->cur);
    return imgstore_has(s, id) ? 0 : (errno = ENOMEM, -1);
}

int imgstore_matches_file(struct imgstore *s, int fd)
{
    if (!s->cur)
        return 0;
    if (open_image(s, fd) < 0)
        return -1;
    int same = 1;
    for (size_t i = 0; i < s->nblocks && same; i++) {
        const struct block *b = s->cur->chunk[i / CHUNK_BLOCKS]->blk[i % CHUNK_BLOCKS];
        same = s->hole[i] ? b == s->zero
                          : memcmp(s->src + i * s->bsize, b->data, block_len(s, i)) == 0;
    }
    close_image(s);
    return same;
}

void imgstore_discard(struct imgstore *s, uint64_t id)
{
    struct state *st;
    HASH_FIND(hh, s->states, &id, sizeof id, st);
    if (!st)
        return;
    HASH_DEL(s->states, st);
    image_put(s, st->img);
    free(st);
}

int imgstore_rekey(struct imgstore *s, uint64_t from, uint64_t to)
{
    struct image *img = find(s, from);
    if (!img) {
        errno = ENOENT;
        return -1;
    }
    img->refs++;                /* set_state takes over this reference */
    imgstore_discard(s, from);
    set_state(s, to, img);
    return imgstore_has(s, to) ? 0 : (errno = ENOMEM, -1);
}

int imgstore_has(struct imgstore *s, uint64_t id)
{
    return find(s, id) != NULL;
}

int imgstore_write_file(struct imgstore *s, uint64_t id, const char *path)
{
    struct image *img = find(s, id);
    if (!img) {
        errno = ENOENT;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    for (size_t i = 0; i < s->nblocks; i++) {
        const struct block *b = img->chunk[i / CHUNK_BLOCKS]->blk[i % CHUNK_BLOCKS];
        if (pwrite_all(fd, b->data, block_len(s, i), (off_t)(i * s->bsize)) < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    return close(fd);
}

uint64_t imgstore_bytes(struct imgstore *s)
{
    return s->distinct * s->bsize;
}

uint64_t imgstore_count(struct imgstore *s)
{
    return HASH_COUNT(s->states);
}

size_t imgstore_nblocks(const struct imgstore *s)
{
    return s->nblocks;
}

size_t imgstore_block_size(const struct imgstore *s)
{
    return s->bsize;
}
