/* Usage texts, option parsing and input loading every metis-replay command shares. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/check.h"
#include "cli.h"

/* One row per command: the whole usage lists them all, `CMD --help` prints its own row. */
static const struct {
    const char *cmd, *args, *help;
} usages[] = {
    { "trace", "RUN_DIR|DETAIL [--fs NAME] [-o FILE]",
      "Writes the trace of the search path to the run's first discrepancy, or to the one\n"
      "the detail file DETAIL (RUN_DIR/discrepancy-N.txt) describes; for a target without\n"
      "snapshots, its real history since its last fresh mount (operations and restore calls).\n" },
    { "check", "TRACE [--config CONFIG]",
      "Parses and checks a trace against its config; mounts nothing.\n" },
    { "run", "TRACE [--config CONFIG] [--tries R] [-v]",
      "Replays a trace on fresh file systems, up to R tries (default 5).\n" },
    { "repro", "RUN_DIR|DETAIL [--config CONFIG] [--tries R] [--fs NAME]",
      "Reproduces a run's discrepancy from the newest concrete state it exported.\n" },
    { "shrink", "RUN_DIR|DETAIL|TRACE [--config CONFIG] [--tries R] [--fs NAME] [--seconds S] [--fresh-mounts] [-o FILE]",
      "Reduces the trace to a 1-minimal one that still shows the discrepancy (the same\n"
      "operation, fs, kinds and first differing attribute).\n" },
    { "emit-c", "TRACE [--config CONFIG] [--fs NAME] [-o DIR]",
      "Writes DIR/repro.c and DIR/run.sh (default DIR metis-repro), a standalone reproducer\n"
      "that checks every step and the final tree against the reference's (replayed here).\n" },
    { "record", "CONFIG [--ops N] [--seed S] [--keep-going] [-o FILE]",
      "Records a seeded random walk of N operations (default 1000) as a trace.\n" },
    { "recheck", "KNOWN_FILE DIR... [--target FS] [--timeout S]",
      "Runs every known class's self-checking reproducer (class-K-repro/ with its signature\n"
      "file, found in the DIRs: run or swarm directories, or directories of kept reproducers)\n"
      "against the target as installed today (a group record: of each class of the group);\n"
      "one line per class: 'still fails', 'fixed' or 'cannot run' (why). --target FS runs\n"
      "them on that fs of their config instead of the one that disagreed; --timeout S\n"
      "bounds each (default 300).\n"
      "exit status: 0 every class fixed, 1 one still fails, 3 none fails but one cannot run,\n"
      "             2 bad input, 130 interrupted\n" },
};

/* Explained under a command's usage when its arguments name them. */
static const struct {
    const char *opt, *help;
} options[] = {
    { "--config", "  --config CONFIG  use CONFIG instead of the config the trace embeds or names\n" },
    { "--tries", "  --tries R        replays before it counts as nondeterministic, 1..1000 (default 5)\n" },
    { "-v]", "  -v, --verbose    print every step as it is replayed\n" },
    { "-o FILE", "  -o FILE          write the trace to FILE instead of stdout\n" },
    { "--ops", "  --ops N          operations to record (default 1000)\n" },
    { "--seed", "  --seed S         seed of the walk (default: the config's [run] seed)\n" },
    { "--keep-going", "  --keep-going     go on after a discrepancy\n" },
    { "--fs", "  --fs NAME        the fs whose discrepancy counts, and whose history a run's\n"
              "                   trace holds when it has no snapshots (default: the first\n"
              "                   that disagrees after the last operation)\n" },
    { "--seconds", "  --seconds S      stop shrinking after S seconds and keep the shortest\n"
                   "                   trace found so far (default: no limit)\n" },
    { "--fresh-mounts", "  --fresh-mounts   start every candidate of a target without snapshots on a\n"
                        "                   fresh mount, as a replay does (default: candidates\n"
                        "                   restore its states logically, and the shrunk trace\n"
                        "                   is checked on fresh mounts, shrunk again so if it\n"
                        "                   does not show the discrepancy there)\n" },
};

static const char exit_text[] =
    "exit status: 0 the replay matches the trace, 1 it reproduces the discrepancy,\n"
    "             2 bad input, 3 infrastructure failure, 4 nondeterministic\n"
    "             (no try of R matched), 130 interrupted\n";

void cli_usage_all(FILE *f)
{
    for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++)
        fprintf(f, "%s metis-replay %s %s\n", i ? "      " : "usage:", usages[i].cmd, usages[i].args);
    fprintf(f, "       metis-replay --version\n%s", exit_text);
}

void cli_usage(const char *cmd)
{
    for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++) {
        if (strcmp(cmd, usages[i].cmd) != 0)
            continue;
        printf("usage: metis-replay %s %s\n%s", cmd, usages[i].args, usages[i].help);
        for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
            if (strstr(usages[i].args, options[k].opt))
                fputs(options[k].help, stdout);
        fputs(exit_text, stdout);
    }
}

int cli_parse(int argc, char **argv, const char *cmd, struct cli_opts *o)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "tries", required_argument, NULL, 't' },
        { "out", required_argument, NULL, 'o' },
        { "verbose", no_argument, NULL, 'v' },
        { "fs", required_argument, NULL, 'f' },
        { "seconds", required_argument, NULL, 's' },
        { "fresh-mounts", no_argument, NULL, 'F' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->tries = 5;
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "c:t:o:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            cli_usage(cmd);
            return CLI_HELP;
        case 'c': o->config = optarg; break;
        case 'o': o->out = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'f': o->fs = optarg; break;
        case 'F':
            if (strcmp(cmd, "shrink") != 0) {
                fprintf(stderr, "metis-replay %s: --fresh-mounts is an option of shrink only\n",
                        cmd);
                return -1;
            }
            o->fresh_mounts = 1;
            break;
        case 's':
            errno = 0;
            o->seconds = strtod(optarg, &end);
            if (*end || errno || !(o->seconds > 0 && o->seconds <= 1e6)) {
                fprintf(stderr, "metis-replay %s: --seconds wants a number above 0, up to "
                        "1000000, not '%s'\n", cmd, optarg);
                return -1;
            }
            break;
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

/* A detail file begins "operation SEQ: ..." (or "initial state"): its run directory is the
 * one it lies in. 1 with *seq set, 0 when input is no detail file. */
static int detail_file(const char *input, char *dir, size_t len, uint64_t *seq, int *initial)
{
    char line[256];
    unsigned long long n;
    FILE *f = fopen(input, "re");
    int rc = f && fgets(line, sizeof line, f) != NULL;
    if (f)
        fclose(f);
    *initial = rc && strncmp(line, "initial state (before any operation)", 36) == 0;
    if (!rc || (!*initial && sscanf(line, "operation %llu: ", &n) != 1))
        return 0;
    *seq = *initial ? 0 : n;
    const char *slash = strrchr(input, '/');
    snprintf(dir, len, "%.*s", slash ? (int)(slash - input) : 1, slash ? input : ".");
    if (slash == input)
        snprintf(dir, len, "/");
    return 1;
}

int cli_load(const char *input, const char *fs, struct runlog *rl)
{
    char err[2048], dir[2048];
    struct stat st;
    uint64_t seq;
    int initial;
    memset(rl, 0, sizeof *rl);
    if (stat(input, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (runlog_read(input, fs, rl, err, sizeof err) == 0)
            return 0;
    } else if (detail_file(input, dir, sizeof dir, &seq, &initial)) {
        int rc = initial ? runlog_read(dir, fs, rl, err, sizeof err)
                         : runlog_read_at(dir, seq, fs, rl, err, sizeof err);
        if (rc == 0)
            return 0;
    } else if (trace_read_file(input, &rl->trace, err, sizeof err) == 0) {
        return 0;
    }
    fprintf(stderr, "metis-replay: %s\n", err);
    return -1;
}

int cli_fs(const struct cli_opts *o, const struct trace *t, const struct metis_config *cfg,
           const int map[METIS_MAX_FS])
{
    unsigned d[METIS_MAX_FS];
    if (o->fs) {
        /* The reference too: a crash check holds it to its own promise. */
        for (int i = 0; i < cfg->nfs; i++)
            if (strcmp(cfg->fs[i].name, o->fs) == 0)
                return i;
        fprintf(stderr, "metis-replay: --fs %s: no such fs in %s\n", o->fs, cfg->path);
        return -1;
    }
    trace_final_discrepancy(t, d);
    for (int i = 1; i < cfg->nfs; i++)
        if (map[i] >= 0 && d[map[i]])
            return i;
    if (map[0] >= 0 && d[map[0]])
        return 0;               /* only the reference failed its crash check */
    return cfg->nfs > 1 ? 1 : 0;
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
