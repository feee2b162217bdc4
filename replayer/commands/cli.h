/* The metis-replay commands and what they share: exit statuses, option parsing, loading a run or a trace. */
#ifndef METIS_CLI_H
#define METIS_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "engine/config/config.h"
#include "trace/runlog.h"
#include "trace/trace.h"

/* The exit statuses of bin/metis-replay, the one list (metis-replay(1) documents it). */
enum replay_exit {
    EXIT_MATCH = 0,             /* the replay matches the trace */
    EXIT_REPRODUCED = 1,        /* the recorded discrepancy is reproduced */
    EXIT_BAD_INPUT = 2,
    EXIT_INFRA = 3,
    EXIT_NONDETERMINISTIC = 4,  /* no try matched the trace */
    EXIT_INTERRUPTED = 130,
};

/* Options every command may take. */
struct cli_opts {
    const char *input;          /* RUN_DIR or TRACE */
    const char *config;         /* --config */
    const char *out;            /* -o */
    int tries;                  /* --tries, default 5 */
    int verbose;                /* -v */
    const char *fs;             /* --fs: the fs whose discrepancy counts (shrink, emit-c) */
    double seconds;             /* --seconds: shrink's time limit, 0 = none */
    int fresh_mounts;           /* --fresh-mounts: shrink's every candidate on fresh mounts */
};

/* What cli_parse returns when -h/--help printed the command's usage: the command then ends
 * with EXIT_MATCH (0), as only replay_main.c's commands end the process. */
#define CLI_HELP 1

/* Parses argv (after the command word): 0; -1 after printing the problem on bad usage;
 * CLI_HELP after printing cmd's usage for -h/--help. */
int cli_parse(int argc, char **argv, const char *cmd, struct cli_opts *o);
/* Prints the usage of one command to stdout. */
void cli_usage(const char *cmd);
/* Prints the usage of every command, the version line and the exit statuses to f. */
void cli_usage_all(FILE *f);
/* Loads input: a run directory (the trace of its search path to the first discrepancy, or of
 * the real history of fs, or of the fs that differs there, when it has no snapshots; and its
 * exports), a detail file RUN_DIR/discrepancy-N.txt (the same, to the discrepancy it
 * describes) or a trace file (no exports). fs may be NULL. 0, or -1 after printing the
 * message. */
int cli_load(const char *input, const char *fs, struct runlog *rl);
/* The trace, its config and fs map checked as for `run`: 0, or -1 after printing the problem
 * (the command then ends with EXIT_BAD_INPUT). */
int cli_check(const struct trace *t, const char *override, struct metis_config *cfg,
              int map[METIS_MAX_FS]);
/* The config index of the fs --fs names (default: the first that disagrees at the end of t,
 * else 1); -1 after printing the problem. */
int cli_fs(const struct cli_opts *o, const struct trace *t, const struct metis_config *cfg,
           const int map[METIS_MAX_FS]);

int cmd_trace(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_shrink(int argc, char **argv);
int cmd_emit_c(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_recheck(int argc, char **argv);

#endif
