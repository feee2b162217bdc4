/* Fuzz harness of RefFS's pickle loader and unpickler (reffs/lib, in-process): a refused pickle changes nothing. */
#include "fuzz_common.h"
#include "reffs.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

/* The pickle layout of reffs/README.md (reffs/lib/pickle/pickle.h is RefFS's own). */
#define MAGIC "REFFSPK1"
#define FIXED_LEN 40
#define SUM_LEN 32
#define HEADER_LEN (FIXED_LEN + 2 * SUM_LEN)

static void sha256(const void *a, size_t na, const void *b, size_t nb, unsigned char *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) || !EVP_DigestUpdate(ctx, a, na) ||
        (nb && !EVP_DigestUpdate(ctx, b, nb)) || !EVP_DigestFinal_ex(ctx, out, NULL))
        abort();
    EVP_MD_CTX_free(ctx);
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* An input that is no pickle is a body (its first byte the snapshot count, the rest the
 * uncompressed body): wrapped here in a header with true checksums, so that the fuzzer
 * reaches the unpickler behind them. Returns the file's bytes (malloc'd) and length. */
static unsigned char *wrap_body(const uint8_t *data, size_t size, size_t *len)
{
    const uint8_t *body = data + (size > 0);
    size_t n = size ? size - 1 : 0, bound = ZSTD_compressBound(n);
    unsigned char *f = malloc(HEADER_LEN + bound);
    if (!f)
        abort();
    size_t clen = ZSTD_compress(f + HEADER_LEN, bound, body, n, 1);
    if (ZSTD_isError(clen))
        abort();
    memset(f, 0, FIXED_LEN);
    memcpy(f, MAGIC, 8);
    f[8] = 1;                                   /* version 1, flags 0 */
    put64(f + 16, size ? data[0] % 8 : 0);
    put64(f + 24, n);
    put64(f + 32, clen);
    sha256(f, FIXED_LEN, f + HEADER_LEN, clen, f + FIXED_LEN);
    sha256(body, n, NULL, 0, f + FIXED_LEN + SUM_LEN);
    *len = HEADER_LEN + clen;
    return f;
}

/* The live tree as a dump, to compare before and after a refused load. */
static void *dump_of(struct reffs *fs, size_t *len)
{
    void *buf = NULL;
    if (reffs_dump(fs, &buf, len) < 0)
        abort();
    return buf;
}

static int memfd_of(const void *data, size_t size)
{
    int fd = memfd_create("pickle", MFD_CLOEXEC);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || lseek(fd, 0, SEEK_SET))
        abort();
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reffs_limits lim = { .capacity = 1 << 20, .inodes = 256 };
    struct reffs *fs = reffs_create(&lim);
    size_t flen = size, before_len, after_len;
    unsigned char *wrapped = size >= 8 && !memcmp(data, MAGIC, 8) ? NULL : wrap_body(data, size, &flen);
    int fd = memfd_of(wrapped ? wrapped : data, flen);
    if (!fs)
        abort();
    void *before = dump_of(fs, &before_len);
    uint64_t key = 0;
    int rc = reffs_load(fs, fd, 1, NULL, &key);
    void *after = dump_of(fs, &after_len);
    /* Refused: a negative errno (one strerror line), and the fs as it was. */
    if (rc > 0 || (rc < 0 && (before_len != after_len || memcmp(before, after, after_len))))
        abort();
    free(before);
    free(after);
    free(wrapped);
    close(fd);
    reffs_destroy(fs);
    return 0;
}
