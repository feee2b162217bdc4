/* Fuzz harness of the run-log reader (replayer/trace/runlog.c): the input as a run directory's log.txt beside a real config.ini. */
#include "fuzz_common.h"
#include "trace/runlog.h"

#include <string.h>

static const char config_ini[] =
    "[run]\nseed = 1\nseconds = 60\n\n[fs ref]\ntype = reffs\nsize = 256K\n\n"
    "[fs ext4]\ntype = kernel\nfstype = ext4\nsize = 256K\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct runlog rl;
    char err[1024] = "";
    static int config_written;
    if (!config_written++)
        fuzz_write("config.ini", (const uint8_t *)config_ini, strlen(config_ini));
    fuzz_write("log.txt", data, size);
    if (runlog_read(fuzz_dir(), NULL, &rl, err, sizeof err) < 0)
        fuzz_one_line("runlog_read", err);
    else
        runlog_free(&rl);
    /* The detail file's way in: the path to operation 3's discrepancy. */
    if (runlog_read_at(fuzz_dir(), 3, NULL, &rl, err, sizeof err) < 0)
        fuzz_one_line("runlog_read_at", err);
    else
        runlog_free(&rl);
    return 0;
}
