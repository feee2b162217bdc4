/* Fuzz harness of the DUMP reader (backend/reffs_dump.c, which backend/dump_readback.c feeds): a tree dump digested with its listing. */
#include "fuzz_common.h"
#include "backend/kinds/reffs_dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char out[TREE_MAX_DIGEST];
    char *text = NULL;
    size_t len = 0;
    /* The reader's own copy, as dump_readback's buffer: exactly size bytes. */
    void *buf = malloc(size ? size : 1);
    FILE *listing = open_memstream(&text, &len);
    if (!buf || !listing)
        abort();
    memcpy(buf, data, size);
    struct tree_opts o = { .hash = "md5", .exclude = "lost+found", .ignore = 0,
                           .mtime = (int)(size & 1) };
    errno = 0;
    int n = reffs_dump_digest(buf, size, &o, out, listing, NULL);
    /* A refusal says why in errno, which dump_readback turns into its one-line message. */
    if (n < 0 && (errno == 0 || strchr(strerror(errno), '\n')))
        abort();
    fclose(listing);
    free(text);
    free(buf);
    return 0;
}
