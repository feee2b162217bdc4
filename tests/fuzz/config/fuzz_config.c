/* Fuzz harness of the config loader: the input as a config file through config_load, whose refusal names file:line in one line. */
#include "fuzz_common.h"
#include "engine/config/config.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct metis_config cfg;
    char err[1024] = "";
    const char *path = fuzz_write("metis.ini", data, size);
    if (config_load(path, &cfg, err, sizeof err) < 0) {
        fuzz_one_line("config_load", err);
        /* The message names the file, and a line when the file was read at all. */
        if (strncmp(err, path, strlen(path)) != 0)
            abort();
    }
    return 0;
}
