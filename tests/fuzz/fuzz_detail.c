/* Fuzz harness of the detail-file reader (front/report/disc.c): the input as a discrepancy-N.txt read back for report.html. */
#include "fuzz_common.h"
#include "front/report/disc.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct disc_file d;
    const char *path = fuzz_write("discrepancy-1.txt", data, size);
    memset(&d, 0, sizeof d);
    if (disc_parse(path, &d) < 0)
        abort();        /* the file is there: only a missing one is refused */
    if (d.nout > DISC_MAX_FS || d.ntrees > DISC_MAX_FS)
        abort();
    for (int i = 0; i < d.ntrees; i++)
        if (d.tree[i].n > DISC_MAX_ENTRIES)
            abort();
    disc_free(&d);
    return 0;
}
