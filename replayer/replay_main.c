/* bin/metis-replay: extracts, replays, reproduces, shrinks and exports as C the traces of Metis runs. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands/cli.h"

int main(int argc, char **argv)
{
    umask(0);   /* as the engine: modes are drawn whole */
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        { "trace", cmd_trace }, { "check", cmd_check }, { "run", cmd_run },
        { "repro", cmd_repro }, { "shrink", cmd_shrink }, { "emit-c", cmd_emit_c },
        { "record", cmd_record }, { "recheck", cmd_recheck },
    };
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        cli_usage_all(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : EXIT_MATCH;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("metis-replay %s\n", METIS_VERSION);
        return EXIT_MATCH;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "metis-replay: unknown command '%s'\n", argv[1]);
    cli_usage_all(stderr);
    return EXIT_BAD_INPUT;
}
