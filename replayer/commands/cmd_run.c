/* The trace, check and run commands: extract a run's search path, validate a trace, replay it R times at most. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay/replay.h"
#include "replay/session.h"

/* The first call of the history's own fs: not one of a reference that logs its own restores'
 * calls (fs_logs_own_calls), whose calls a history holds too. */
static size_t first_call(const struct trace *t)
{
    size_t k = 0, any = t->nops;
    for (; k < t->nops; k++) {
        const struct trace_fs *f = t->ops[k].is_call ? &t->fs[t->ops[k].call_fs] : NULL;
        any = f && any == t->nops ? k : any;
        if (f && !fs_logs_own_calls((enum fs_type)fs_type_by_name(f->type), f->fstype))
            return k;
    }
    return any;
}

static uint64_t last_seq(const struct trace *t)
{
    long last = trace_last_op(t);
    return last >= 0 ? t->ops[last].seq : 0;
}

int cmd_trace(int argc, char **argv)
{
    struct cli_opts o;
    struct runlog rl;
    char err[1400];
    int parsed = cli_parse(argc, argv, "trace", &o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (cli_load(o.input, o.fs, &rl) < 0)
        return EXIT_BAD_INPUT;
    int rc = o.out ? trace_write_file(&rl.trace, o.out, err, sizeof err)
                   : trace_write(&rl.trace, stdout);
    if (rc < 0)
        fprintf(stderr, "metis-replay: %s\n", o.out ? err : "writing the trace failed");
    else if (o.out && rl.trace.ncalls)
        fprintf(stderr, "metis-replay: %zu operations and %zu restore calls of fs %s's history "
                "since its last fresh mount to %s %llu in %s\n", rl.trace.nops - rl.trace.ncalls,
                rl.trace.ncalls, rl.trace.fs[rl.trace.ops[first_call(&rl.trace)].call_fs].name,
                rl.has_disc ? "the discrepancy at operation" : "operation",
                (unsigned long long)(rl.has_disc ? rl.disc_seq : last_seq(&rl.trace)), o.out);
    else if (o.out)
        fprintf(stderr, "metis-replay: %zu operations of the search path to %s %llu in %s\n",
                rl.trace.nops, rl.has_disc ? "the discrepancy at operation" : "operation",
                (unsigned long long)(rl.has_disc ? rl.disc_seq : last_seq(&rl.trace)), o.out);
    runlog_free(&rl);
    return rc < 0 ? EXIT_INFRA : 0;
}

int cmd_check(int argc, char **argv)
{
    struct cli_opts o;
    struct runlog rl;
    static struct metis_config cfg;
    int map[METIS_MAX_FS];
    int parsed = cli_parse(argc, argv, "check", &o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (cli_load(o.input, o.fs, &rl) < 0)
        return EXIT_BAD_INPUT;
    int rc = cli_check(&rl.trace, o.config, &cfg, map);
    if (rc == 0)
        printf("%s: ok (%zu operations%s on %d file systems)\n", o.input,
               rl.trace.nops - rl.trace.ncalls, rl.trace.ncalls ? " and restore calls" : "",
               rl.trace.nfs);
    runlog_free(&rl);
    return rc < 0 ? EXIT_BAD_INPUT : 0;
}

/* Was this try what the trace says? With a recorded discrepancy: the same one at the end;
 * without: every recorded result matched and no fs disagreed anywhere. */
static int try_matches(const struct replay_outcome *o, const unsigned want[METIS_MAX_FS], int nfs)
{
    if (replay_has_disc(want, nfs))
        return replay_same_disc(o->last, want, nfs);
    return o->mismatched == 0 && o->disc_ops == 0;
}

static void describe_try(const struct session *s, const struct replay_outcome *o, char *buf,
                         size_t len)
{
    char d[512];
    replay_describe(&s->cfg, o->last, d, sizeof d);
    snprintf(buf, len, "%zu of %zu recorded results differ, %zu operations with a discrepancy, "
             "at the end: %s", o->mismatched, o->compared, o->disc_ops, d);
}

/* One fresh replay of the whole trace; returns 0, or an exit status that ends the command. */
static int one_try(const struct metis_config *cfg, const struct trace *t, const int *map,
                   int verbose, struct session *s, struct replay_outcome *out)
{
    if (session_start(s, cfg) < 0) {
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", s->err);
        session_stop(s);
        return EXIT_INFRA;
    }
    replay_ops(s, t, map, 0, stdout, verbose, out);
    if (out->infra)
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", s->err);
    session_stop(s);
    return out->infra ? EXIT_INFRA : out->interrupted ? EXIT_INTERRUPTED : 0;
}

static void print_summary(const struct session *s, const struct replay_outcome *o, int attempt,
                          int ok)
{
    char d[512];
    replay_describe(&s->cfg, o->last, d, sizeof d);
    char calls[48] = "";
    if (o->calls)
        snprintf(calls, sizeof calls, " and %zu restore calls", o->calls);
    printf("replay: %zu operations%s on %d file systems in %.3f s (try %d): %zu of %zu recorded "
           "results match; at the end: %s%s\n",
           o->ops - o->calls, calls, s->g.nfs, o->seconds, attempt, o->compared - o->mismatched,
           o->compared, d, ok ? "" : " (does not match the trace)");
}

int cmd_run(int argc, char **argv)
{
    struct cli_opts o;
    struct runlog rl;
    static struct metis_config cfg;
    static struct session s;
    int map[METIS_MAX_FS];
    unsigned want[METIS_MAX_FS];
    int parsed = cli_parse(argc, argv, "run", &o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (cli_load(o.input, o.fs, &rl) < 0)
        return EXIT_BAD_INPUT;
    if (cli_check(&rl.trace, o.config, &cfg, map) < 0) {
        runlog_free(&rl);
        return EXIT_BAD_INPUT;
    }
    session_install_cleanup();
    replay_expected(&rl.trace, map, cfg.nfs, want);
    char (*log)[700] = calloc((size_t)o.tries, sizeof *log);
    int rc = EXIT_NONDETERMINISTIC;
    for (int k = 1; k <= o.tries && rc == EXIT_NONDETERMINISTIC && log; k++) {
        struct replay_outcome out;
        int st = one_try(&cfg, &rl.trace, map, o.verbose, &s, &out);
        if (st) {
            rc = st;
            break;
        }
        int ok = try_matches(&out, want, cfg.nfs);
        print_summary(&s, &out, k, ok);
        describe_try(&s, &out, log[k - 1], sizeof log[0]);
        if (ok)
            rc = replay_has_disc(want, cfg.nfs) ? EXIT_REPRODUCED : EXIT_MATCH;
    }
    if (rc == EXIT_NONDETERMINISTIC) {
        printf("replay: nondeterministic: none of %d tries matched the trace\n", o.tries);
        for (int k = 0; k < o.tries && log; k++)
            printf("  try %d: %s\n", k + 1, log[k]);
    }
    free(log);
    runlog_free(&rl);
    return rc;
}
