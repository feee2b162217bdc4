/* Fuzz harness of RefFS's pickle loader and unpickler (reffs/lib, in-process): a refused pickle changes nothing. */
#include "fuzz_common.h"
#include "reffs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The live tree as a dump, to compare before and after a refused load. */
static void *dump_of(struct reffs *fs, size_t *len)
{
    void *buf = NULL;
    if (reffs_dump(fs, &buf, len) < 0)
        abort();
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reffs_limits lim = { .capacity = 1 << 20, .inodes = 256 };
    struct reffs *fs = reffs_create(&lim);
    int fd = memfd_create("pickle", MFD_CLOEXEC);
    if (!fs || fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || lseek(fd, 0, SEEK_SET))
        abort();
    size_t before_len, after_len;
    void *before = dump_of(fs, &before_len);
    uint64_t key = 0;
    int rc = reffs_load(fs, fd, 1, NULL, &key);
    void *after = dump_of(fs, &after_len);
    /* Refused: a negative errno (one strerror line), and the fs as it was. */
    if (rc > 0 || (rc < 0 && (before_len != after_len || memcmp(before, after, after_len))))
        abort();
    free(before);
    free(after);
    close(fd);
    reffs_destroy(fs);
    return 0;
}
