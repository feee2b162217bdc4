/* Fuzz harness of the known-classes file reader (engine/known_file.c): refusals are one "FILE:LINE: why" line. */
#include "fuzz_common.h"
#include "engine/known_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct known_list k = { 0 };
    char err[1024] = "";
    const char *path = fuzz_write("known.txt", data, size);
    if (known_load(path, &k, err, sizeof err) < 0) {
        fuzz_one_line("known_load", err);
        return 0;
    }
    for (int i = 0; i < k.n; i++)
        if (known_find(&k, k.v[i].signature) < 0)
            __builtin_trap();
    known_free(&k);
    return 0;
}
