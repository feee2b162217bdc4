/* Fuzz harness of the known-classes file reader (engine/known_file.c): refusals are one "FILE:LINE: why" line. */
#include "fuzz_common.h"
#include "engine/classify/known_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct known_list k = { 0 };
    char err[1024] = "";
    const char *path = fuzz_write("known.txt", data, size);
    if (known_load(path, &k, err, sizeof err) < 0) {
        fuzz_one_line("known_load", err);
        return 0;
    }
    for (int i = 0; i < k.n; i++) {
        int at = k.v[i].group ? known_find_group(&k, k.v[i].signature)
                              : known_find(&k, k.v[i].signature);
        if (at != i)        /* a record of each kind is listed once */
            __builtin_trap();
    }
    known_free(&k);
    return 0;
}
