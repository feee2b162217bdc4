/* Fuzz harness of the detail-file readers: report.html's (front/report/runfiles/disc.c) and metis-replay's, which finds the run's log from a discrepancy-N.txt (replayer/commands/cli.c). */
#include "fuzz_common.h"
#include "front/report/runfiles/disc.h"
#include "commands/cli.h"

#include <stdlib.h>
#include <string.h>

/* A run that found a discrepancy at operation 2 (and, for another detail file, at none else). */
static const char log_txt[] =
    "metis-log 1\n"
    "run id=m1 config=config.ini seed=1 hash=md5\n"
    "fs 0 name=ref type=reffs fstype=- size=262144\n"
    "fs 1 name=bad type=reffs fstype=- size=262144\n"
    "init ref sid=0 state=b26e69e9870802dc752db3e260075698\n"
    "init bad sid=0 state=b26e69e9870802dc752db3e260075698\n"
    "op 1 depth=1 from=0 mkdir path=/d0 mode=0755\n"
    "res 1 ref ret=0 errno=0 state=17617dc69bc548642df5ee7df117caf7\n"
    "res 1 bad ret=0 errno=0 state=17617dc69bc548642df5ee7df117caf7\n"
    "save 1 sid=1\n"
    "op 2 depth=2 from=1 rmdir path=/d0\n"
    "res 2 ref ret=-1 errno=ENOTEMPTY state=17617dc69bc548642df5ee7df117caf7\n"
    "res 2 bad ret=0 errno=0 state=d760279d2548afd677ecc9482bf40d85\n"
    "discrepancy 2 fs=bad ret=differs errno=differs state=differs\n"
    "end status=1 reason=discrepancy ops=2\n";
static const char config_ini[] = "[run]\nseed = 1\n\n[fs ref]\ntype = reffs\n\n[fs bad]\ntype = reffs\n";

static void report_reader(const char *path)
{
    static struct disc_file d;
    memset(&d, 0, sizeof d);
    if (disc_parse(path, &d) < 0)
        abort();        /* the file is there: only a missing one is refused */
    if (d.nout > DISC_MAX_FS || d.ntrees > DISC_MAX_FS)
        abort();
    for (int i = 0; i < d.ntrees; i++)
        if (d.tree[i].n > DISC_MAX_ENTRIES)
            abort();
    disc_free(&d);
}

/* metis-replay's reading of a detail file: the run beside it, up to the operation it names. */
static void replay_reader(const char *path)
{
    static struct runlog rl;
    fuzz_stderr_begin();
    int rc = cli_load(path, NULL, &rl);
    const char *said = fuzz_stderr_end();
    if (rc < 0)
        fuzz_one_line("cli_load", said);
    else
        runlog_free(&rl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int run_written;
    if (!run_written++) {
        fuzz_write("log.txt", (const uint8_t *)log_txt, strlen(log_txt));
        fuzz_write("config.ini", (const uint8_t *)config_ini, strlen(config_ini));
    }
    const char *path = fuzz_write("discrepancy-1.txt", data, size);
    report_reader(path);
    replay_reader(path);
    return 0;
}
