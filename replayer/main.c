/* bin/metis-replay: extracts, replays, reproduces, shrinks and exports as C the traces of Metis runs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: metis-replay trace RUN_DIR [-o FILE]\n"
            "       metis-replay check TRACE [--config CONFIG]\n"
            "       metis-replay run TRACE [--config CONFIG] [--tries R] [-v]\n"
            "       metis-replay repro RUN_DIR [--config CONFIG] [--tries R]\n"
            "       metis-replay shrink RUN_DIR|TRACE [--config CONFIG] [--tries R] [-o FILE]\n"
            "       metis-replay emit-c TRACE [--config CONFIG] [-o DIR]\n"
            "       metis-replay record CONFIG [--ops N] [--seed S] [--keep-going] [-o FILE]\n"
            "exit status: 0 the replay matches the trace, 1 it reproduces the discrepancy,\n"
            "             2 bad input, 3 infrastructure failure, 4 nondeterministic\n"
            "             (no try of R matched), 130 interrupted\n");
}

int main(int argc, char **argv)
{
    umask(0);   /* as the engine: modes are drawn whole */
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        { "trace", cmd_trace }, { "check", cmd_check }, { "run", cmd_run },
        { "repro", cmd_repro }, { "shrink", cmd_shrink }, { "emit-c", cmd_emit_c },
        { "record", cmd_record },
    };
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "metis-replay: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_BAD_INPUT;
}
