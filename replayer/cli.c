/* Option parsing and input loading every metis-replay command shares. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cli.h"

int cli_parse(int argc, char **argv, const char *cmd, struct cli_opts *o)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "tries", required_argument, NULL, 't' },
        { "out", required_argument, NULL, 'o' },
        { "verbose", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->tries = 5;
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "c:t:o:v", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->config = optarg; break;
        case 'o': o->out = optarg; break;
        case 'v': o->verbose = 1; break;
        case 't':
            errno = 0;
            o->tries = (int)strtol(optarg, &end, 10);
            if (*end || errno || o->tries < 1 || o->tries > 1000) {
                fprintf(stderr, "metis-replay %s: --tries wants 1..1000, not '%s'\n", cmd, optarg);
                return -1;
            }
            break;
        default:
            fprintf(stderr, "metis-replay %s: unknown option '%s'\n", cmd, argv[optind - 1]);
            return -1;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "metis-replay %s: expected one %s argument\n", cmd,
                strcmp(cmd, "trace") == 0 || strcmp(cmd, "repro") == 0 ? "RUN_DIR" : "TRACE");
        return -1;
    }
    o->input = argv[optind];
    return 0;
}

int cli_load(const char *input, struct runlog *rl)
{
    char err[2048];
    struct stat st;
    memset(rl, 0, sizeof *rl);
    if (stat(input, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (runlog_read(input, rl, err, sizeof err) == 0)
            return 0;
    } else if (trace_read_file(input, &rl->trace, err, sizeof err) == 0) {
        return 0;
    }
    fprintf(stderr, "metis-replay: %s\n", err);
    return -1;
}

int cli_check(const struct trace *t, const char *override, struct metis_config *cfg,
              int map[METIS_MAX_FS])
{
    char err[2048];
    if (trace_check(t, override, cfg, map, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "metis-replay: %s\n", err);
    return -1;
}
