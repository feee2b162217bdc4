/* bin/metis: the command line — validates the config, builds pan, runs it, and cleans up after it. */
#include "backend/backend.h"
#include "backend/base/runlock.h"
#include "front/cli/runs/clean.h"
#include "engine/config/config.h"
#include "engine/config/config_keys.h"
#include "engine/vocab/exits.h"
#include "front/cli/options/check_lacks.h"
#include "front/cli/runs/model.h"
#include "front/report/pages/report_html.h"
#include "front/cli/runs/restart.h"
#include "front/cli/runs/summary_status.h"
#include "front/cli/options/runopts.h"
#include "front/cli/options/search_shape.h"
#include "engine/run/searches.h"
#include "engine/run/together_run.h"
#include "engine/input/vary.h"
#include "lib/system/signals.h"
#include "lib/system/claims.h"
#include "lib/system/spawner.h"
#include "front/swarm/swarm.h"
#include "front/swarm/results/swarm_report.h"
#include "front/cli/triage/triage.h"
#include "front/cli/triage/known.h"
#include "front/cli/classes/junit.h"
#include "front/cli/options/bounded_run.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static volatile sig_atomic_t forwarded_signal;
static volatile pid_t engine_pid;   /* pan, then each replay of the triage */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: metis run CONFIG [--ops N] [--seconds S] [--seed N] [--depth N] [--out DIR]\n"
            "                        [--keep-going] [--together SHARE] [--vt I --swarm-seed S [--vts N]]\n"
            "                        [--claims NAME]\n"
            "                        [--known FILE [--strict-known]] [--junit FILE]\n"
            "                        [--require-complete]\n"
            "       metis check CONFIG\n"
            "       metis swarm CONFIG --hosts HOSTS [--vts N] [--seconds S] [--ops N] [--out DIR]\n"
            "                          [--swarm-seed S] [--stop-on-discrepancy] [--vt-timeout S]\n"
            "       metis swarm --check --hosts HOSTS [CONFIG]\n"
            "       metis report RUN_DIR|SWARM_DIR      # writes DIR/report.html\n"
            "       metis known add RUN_DIR|SWARM_DIR [--groups] [--note TEXT] [--link URL] --to FILE\n"
            "       metis clean                         # removes what runs killed outright left\n"
            "       metis --version\n"
            "exit status: 0 no discrepancy, 1 discrepancy (with --known: a new class),\n"
            "             2 bad usage or config, 3 infrastructure failure, 130 interrupted,\n"
            "             6 a bounded search not complete with --require-complete\n"
            "`metis COMMAND --help` tells more of one command; see also metis(1), metis.ini(5)\n");
}

/* Help for one command, so that it need not be found in the whole usage (swarm's is in swarm.c,
 * beside its options). */
static void command_usage(const char *cmd)
{
    if (!strcmp(cmd, "check")) {
        printf("usage: metis check CONFIG [RUN OPTIONS]\n"
               "Loads and validates CONFIG (and any options of metis run) as a run would,\n"
               "without making, mounting or changing anything; for search = bounded, says\n"
               "what it enumerates and how many transitions leave each state.\n"
               "exit status: 0 valid, 2 not (one line FILE:LINE: message)\n");
        return;
    }
    printf("usage: metis run CONFIG [OPTIONS]\n"
           "  --ops N          stop after N operations, 0 = no limit ([run] ops)\n"
           "  --seconds S      stop after S seconds, 0 = no limit ([run] seconds)\n"
           "  --seed N         seed of the input generator ([run] seed)\n"
           "  --depth N        SPIN's search depth bound, 1..100000000 ([run] max_depth)\n"
           "  --out DIR        output directory ([run] out; default runs/TIME-CONFIG)\n"
           "  --keep-going     go on after a discrepancy ([run] keep_going)\n"
           "  --together SHARE share of the steps that issue several operations at once on each\n"
           "                   fs under test, held against every serial order on the reference\n"
           "                   ([run] together)\n"
           "  --vt I --swarm-seed S\n"
           "                   search as VT I of the swarm of seed S does, alone\n"
           "  --vts N          with --vt, the swarm's VT count: a bounded config's VT searches\n"
           "                   only its share of the first two transitions (I of N)\n"
           "  --claims NAME    search = bounded: share the claim table /dev/shm/metis-claims-NAME\n"
           "                   with the other VTs on this host given NAME: a state one claims\n"
           "                   is left to it by the others (a swarm gives its VTs its id)\n"
           "  --known FILE     classes listed in FILE (metis known add) are known: their hits\n"
           "                   neither stop the run nor make it fail\n"
           "  --strict-known   with --known, exit 1 on any class all the same\n"
           "  --junit FILE     write the run as JUnit XML (a test case per class)\n"
           "  --require-complete\n"
           "                   search = bounded: exit 6 when the budget ended before every\n"
           "                   state within max_depth was checked\n"
           "Options override the config's keys named in brackets. A run first removes what\n"
           "runs killed outright left on this host, as metis clean does.\n"
           "exit status: 0 no discrepancy (with --known: no new class), 1 discrepancy,\n"
           "             2 bad usage or config, 3 infrastructure failure, 130 interrupted,\n"
           "             6 with --require-complete: the bounded search did not complete\n");
}

static void exe_dir(char *out, size_t len)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    snprintf(out, len, "%s", dirname(buf));
}

static void on_signal(int sig)
{
    forwarded_signal = sig;
    if (engine_pid > 0)          /* the same signal, so that the engine's reason names it */
        kill(engine_pid, sig);
}

static int make_out_dir(struct metis_config *cfg, char *out, size_t len)
{
    if (cfg->run.out[0]) {
        snprintf(out, len, "%s", cfg->run.out);
    } else {
        char stamp[64];
        time_t t = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(out, len, "runs/%s-%s", stamp, cfg->name);
        for (int k = 2; access(out, F_OK) == 0; k++)
            snprintf(out, len, "runs/%s-%s-%d", stamp, cfg->name, k);
    }
    if (mkdir_p(out) < 0) {
        fprintf(stderr, "metis: %s: cannot create the output directory: %s\n", out, strerror(errno));
        return -1;
    }
    char abs[PATH_MAX];
    if (realpath(out, abs))
        snprintf(out, len, "%s", abs);
    return 0;
}

static void setenv_u64(const char *name, unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    setenv(name, buf, 1);
}

/* A bounded swarm VT's share of the first two transitions (search/bounded.c): "I/N". */
static void set_split_env(const struct run_opts *ro)
{
    char buf[64];
    unsetenv("METIS_SPLIT");
    unsetenv("METIS_CLAIMS");
    if (ro->claims[0])
        setenv("METIS_CLAIMS", ro->claims, 1);
    if (ro->vts > 1 && search_kind_parse(ro->cfg.run.search) == SEARCH_BOUNDED) {
        snprintf(buf, sizeof buf, "%d/%d", ro->vt, ro->vts);
        setenv("METIS_SPLIT", buf, 1);
    }
}

/* pan reads the config file again: what a swarm VT's search shape changed of it reaches pan
 * here, and nothing of an earlier run's shape (the environment may come from one). */
static void set_shape_env(const struct run_opts *ro)
{
    const struct search_shape *sh = search_shape_get(ro->search.shape);
    const struct run_config *run = &ro->cfg.run;
    unsetenv("METIS_SEARCH_KIND");
    unsetenv("METIS_DIVE");
    unsetenv("METIS_MAX_DEPTH");
    unsetenv("METIS_SEARCH_OPS");
    if (sh->kind >= 0)
        setenv("METIS_SEARCH_KIND", run->search, 1);
    if (sh->dive >= 0)
        setenv_u64("METIS_DIVE", (unsigned long long)run->dive);
    if (sh->depth > 0)
        setenv_u64("METIS_MAX_DEPTH", (unsigned long long)run->max_depth);
    if (sh->search_ops >= 0)
        setenv_u64("METIS_SEARCH_OPS", run->search_ops);
    /* A bounded search's depth is its verdict's: --depth must reach the engine too. */
    if (search_kind_parse(run->search) == SEARCH_BOUNDED)
        setenv_u64("METIS_MAX_DEPTH", (unsigned long long)run->max_depth);
    set_split_env(ro);
}

static void set_engine_env(const struct run_opts *ro, const char *cfg_copy, const char *out,
                           const char *run_id, const char *bindir)
{
    char buf[64];
    setenv("METIS_CONFIG", cfg_copy, 1);
    setenv("METIS_OUT", out, 1);
    setenv("METIS_RUN_ID", run_id, 1);
    /* The engine runs the reffs, reffs-mutant and {bin} commands that belong to this metis. */
    setenv("METIS_BIN", bindir, 1);
    setenv_u64("METIS_SEED", (unsigned long long)ro->cfg.run.seed);
    setenv_u64("METIS_OPS", (unsigned long long)ro->cfg.run.ops);
    snprintf(buf, sizeof buf, "%g", ro->cfg.run.seconds);
    setenv("METIS_SECONDS", buf, 1);
    setenv_u64("METIS_KEEP_GOING", (unsigned long long)ro->cfg.run.keep_going);
    snprintf(buf, sizeof buf, "%.17g", ro->cfg.run.together);
    setenv("METIS_TOGETHER", buf, 1);
    set_shape_env(ro);
}

/* The engine starts with its stop signals held until it has its handlers (metis_start). A -1
 * (it could not start) has been told on stderr. */
static pid_t spawn_engine(char **argv, const char *out)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/pan.out", out);
    struct spawn_how how = { .out = path, .flags = SPAWN_HOLD_STOPS };
    pid_t pid = spawn_start(argv, &how);
    if (pid < 0)
        fprintf(stderr, "metis: cannot run %s: %s\n", argv[0], strerror(errno));
    return pid;
}

static int wait_engine(pid_t pid)
{
    int status = 0, waited_after_signal = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, 0);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return METIS_EXIT_INFRA;
        /* Interrupted by a signal: give the engine time to tear down, then insist. */
        if (forwarded_signal && ++waited_after_signal == 1)
            alarm(30);
        else if (forwarded_signal)
            kill(pid, SIGKILL);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status) == METIS_EXIT_STOPPED ? METIS_EXIT_INTERRUPTED
                                                         : WEXITSTATUS(status);
    fprintf(stderr, "metis: the engine died from signal %d (%s)\n", WTERMSIG(status),
            strsignal(WTERMSIG(status)));
    return METIS_EXIT_INFRA;
}

static void on_alarm(int sig)
{
    if (engine_pid > 0)
        kill(engine_pid, SIGKILL);
}

static void install_forwarding(void)
{
    signals_catch_stops(on_signal);
    signals_on_alarm(on_alarm);
}

/* Here rather than in pan: report.html needs json-c, which pan does not link. */
static void write_report_html(const char *dir)
{
    char err[PATH_MAX + 256];
    if (report_html_build(dir, err, sizeof err) != 0)
        fprintf(stderr, "metis: report.html: %s\n", err);
}

static int cmd_report(int argc, char **argv)
{
    char err[PATH_MAX + 256];
    if (argc != 3) {
        fprintf(stderr, "usage: metis report RUN_DIR|SWARM_DIR\n");
        return METIS_EXIT_BAD_INPUT;
    }
    int rc = report_html_build(argv[2], err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "metis report: %s\n", err);
    return rc == 0 ? METIS_EXIT_OK : rc == REPORT_NOT_A_RUN ? METIS_EXIT_BAD_INPUT : METIS_EXIT_INFRA;
}

/* One pan per search: when SPIN's search completes with budget left, the engine exits with
 * METIS_EXIT_RESTART and the next search (the next derived seed) starts in the same run
 * directory, after the finished one's own files moved to search-N/. */
static int run_searches(const struct run_opts *ro, const char *pan, const char *out,
                        const char *run_id)
{
    char n[16], err[8400];
    for (int search = 1;; search++) {
        snprintf(n, sizeof n, "%d", search);
        setenv("METIS_SEARCH", n, 1);
        struct search_opts so = search_opts_of(&ro->search, search);
        engine_pid = spawn_engine(pan_args(&ro->cfg, &so, pan), out);
        if (engine_pid < 0)
            return METIS_EXIT_INFRA;
        int rc = wait_engine(engine_pid);
        if (rc != METIS_EXIT_RESTART)
            return rc;
        backend_sweep(run_id);
        if (forwarded_signal) {
            /* The finished search wrote its summary as if the run went on. */
            if (summary_mark_interrupted(out, strsignal(forwarded_signal)) < 0)
                fprintf(stderr, "metis: %s/summary.json: cannot mark it interrupted\n", out);
            return METIS_EXIT_INTERRUPTED;
        }
        if (search_archive(out, search, err, sizeof err) < 0) {
            fprintf(stderr, "metis: %s\n", err);
            return METIS_EXIT_INFRA;
        }
    }
}

static const char *run_error(int rc)
{
    return rc == METIS_EXIT_INFRA ? "infrastructure failure" :
           rc == METIS_EXIT_BAD_INPUT ? "bad config or input" :
           rc == METIS_EXIT_INTERRUPTED ? "interrupted" :
           rc == METIS_EXIT_INCOMPLETE ? "bounded search not complete (--require-complete)" :
           rc == METIS_EXIT_OK || rc == METIS_EXIT_DISCREPANCY ? NULL : "unexpected exit status";
}

static void write_junit(const struct run_opts *ro, const char *out, int rc)
{
    char log[PATH_MAX + 16], err[PATH_MAX + 256];
    snprintf(log, sizeof log, "%s/log.txt", out);
    struct junit_suite s = { ro->cfg.name, ro->cfg.name, out, run_error(rc), log, "" };
    if (junit_write(ro->junit, &s, 1, err, sizeof err) < 0)
        fprintf(stderr, "metis: --junit: %s\n", err);
}

/* With --known: the classes marked in summary.json (also of a run that failed, exit 3, whose
 * classes are triaged all the same), and the exit rule (only a new class fails the run,
 * unless --strict-known). */
static int apply_known(const struct run_opts *ro, const struct known_list *k, const char *out,
                       int rc)
{
    int fresh = 0;
    if (!ro->known || (rc != METIS_EXIT_OK && rc != METIS_EXIT_DISCREPANCY &&
                       rc != METIS_EXIT_INFRA))
        return rc;
    if (known_apply_summary(out, ro->known, k, &fresh) < 0) {
        fprintf(stderr, "metis: %s/summary.json: cannot mark the known classes\n", out);
        return rc;
    }
    fprintf(stderr, "metis: %d new class%s (known file %s)\n", fresh, fresh == 1 ? "" : "es",
            ro->known);
    return rc == METIS_EXIT_DISCREPANCY && fresh == 0 && !ro->strict_known ? METIS_EXIT_OK : rc;
}

/* The triage, classes.txt, report.html and JUnit of a run whose engine ended with rc; the
 * run's exit status. */
static int after_run(struct run_opts *ro, const struct known_list *k, const char *out,
                     const char *bindir, const char *run_id, int rc)
{
    int ended = rc == METIS_EXIT_OK || rc == METIS_EXIT_DISCREPANCY;
    int exit_rc = apply_known(ro, k, out, rc);
    /* Metis's own failure (exit 3) ends the run, not what it found before: those classes are
     * triaged as any run's, and the exit status stays 3. */
    int failed_with = rc == METIS_EXIT_INFRA ? triage_classes_found(out) : 0;
    int found = rc == METIS_EXIT_DISCREPANCY || failed_with > 0;
    if (failed_with > 0)
        fprintf(stderr, "metis: the run failed (exit 3) after finding %d class%s: triaging "
                "%s all the same\n", failed_with, failed_with == 1 ? "" : "es",
                failed_with == 1 ? "it" : "them");
    if ((found || (ro->known && ended)) && !forwarded_signal) {
        /* Shrinking is part of carrying on (keep_going); a stopped run's class is shrunk by hand. */
        struct triage t = { out, bindir, run_id,
                            ro->cfg.run.keep_going && found ? ro->cfg.run.shrink_seconds : 0,
                            ro->cfg.run.shrink_max_seconds,
                            &forwarded_signal, &engine_pid, ro->known != NULL };
        if (triage_run(&t) < 0)
            fprintf(stderr, "metis: triage interrupted\n");
    }
    write_report_html(out);   /* after the triage, so the page links its traces and reproducers */
    exit_rc = bounded_exit(out, ro->require_complete, exit_rc);
    if (ro->junit)
        write_junit(ro, out, exit_rc == METIS_EXIT_INCOMPLETE ? exit_rc : rc);
    bounded_print_verdict(out, stderr);
    return exit_rc;
}

static int run_with_lock(struct run_opts *ro, const struct known_list *known, const char *run_id)
{
    char out[PATH_MAX], work[PATH_MAX + 8], cfg_copy[PATH_MAX + 16], pan[PATH_MAX + 8];
    char bindir[PATH_MAX], libdir[PATH_MAX + 16], err[8192], note[400];
    if (make_out_dir(&ro->cfg, out, sizeof out) < 0)
        return METIS_EXIT_BAD_INPUT;
    snprintf(work, sizeof work, "%s/work", out);
    snprintf(cfg_copy, sizeof cfg_copy, "%s/config.ini", out);
    mkdir(work, 0755);
    if (copy_file(ro->cfg.path, cfg_copy) < 0) {
        fprintf(stderr, "metis: %s: cannot copy the config: %s\n", cfg_copy, strerror(errno));
        return METIS_EXIT_BAD_INPUT;
    }
    exe_dir(bindir, sizeof bindir);
    snprintf(libdir, sizeof libdir, "%s/../lib/metis", bindir);
    if (getenv("METIS_LIBDIR"))
        snprintf(libdir, sizeof libdir, "%s", getenv("METIS_LIBDIR"));
    if (pan_build(&ro->cfg, &ro->search, work, libdir, pan, sizeof pan, err, sizeof err) < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return METIS_EXIT_INFRA;
    }
    set_engine_env(ro, cfg_copy, out, run_id, bindir);
    fprintf(stderr, "metis: run %s, output in %s\n", run_id, out);
    if (ro->vt >= 0) {
        search_opts_describe(&ro->search, search_kind_parse(ro->cfg.run.search) ==
                             SEARCH_BOUNDED, note, sizeof note);
        fprintf(stderr, "metis: VT %d of swarm seed %llu searches with %s\n", ro->vt,
                (unsigned long long)ro->swarm_seed, note);
    }
    if (vary_skipped(&ro->cfg, note, sizeof note))
        fprintf(stderr, "metis: note: %s\n", note);
    if (forwarded_signal) {
        fprintf(stderr, "metis: interrupted before the engine started\n");
        return METIS_EXIT_INTERRUPTED;
    }
    int rc = run_searches(ro, pan, out, run_id);
    backend_sweep(run_id);
    alarm(0);
    return after_run(ro, known, out, bindir, run_id, rc);
}

/* A run first sweeps what dead runs left, then holds its own lock (backend/runlock.h) for as
 * long as it lives, so that the sweeps of runs started later leave it alone. */
static int cmd_run(struct run_opts *ro, const struct known_list *known)
{
    char run_id[64], err[PATH_MAX + 128];
    install_forwarding();
    snprintf(run_id, sizeof run_id, "m%d", (int)getpid());
    clean_dead_runs("metis");
    int lock = runlock_hold(run_id, err, sizeof err);
    if (lock < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return METIS_EXIT_INFRA;
    }
    /* Held for the run's whole life (a pan per depth maps it): the last VT to let go of the
     * claim table removes it, and a sweep removes one a killed VT left. */
    int claims = ro->claims[0] ? claims_hold(ro->claims, err, sizeof err) : -1;
    if (ro->claims[0] && claims < 0)
        fprintf(stderr, "metis: %s: searching without it\n", err);
    int rc = run_with_lock(ro, known, run_id);
    claims_let_go(claims, ro->claims);
    runlock_release(lock, run_id);
    return rc;
}

static int cmd_check(struct run_opts *ro)
{
    int ops = 0;
    for (int i = 0; i < OP_COUNT; i++)
        ops += ro->cfg.op_weight[i] > 0;
    char note[800];
    printf("%s: ok (%d file systems, %d operations)\n", ro->cfg.path, ro->cfg.nfs, ops);
    if (vary_skipped(&ro->cfg, note, sizeof note))
        printf("note: %s\n", note);
    check_print_lacks(&ro->cfg, stdout);
    bounded_describe(&ro->cfg, stdout);
    together_describe(&ro->cfg, note, sizeof note);
    if (note[0])
        printf("%s\n", note);
    return METIS_EXIT_OK;
}

/* A --known file is read (and refused, exit 2) before anything is made; pan reads it again. */
static int run_or_check(struct run_opts *ro, int is_run)
{
    static struct known_list known;
    char abs[PATH_MAX];
    unsetenv("METIS_KNOWN");
    if (ro->known && known_open(ro->known, &known) < 0)
        return METIS_EXIT_BAD_INPUT;
    if (ro->known && realpath(ro->known, abs))
        setenv("METIS_KNOWN", abs, 1);
    int rc = is_run ? cmd_run(ro, &known) : cmd_check(ro);
    known_free(&known);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? METIS_EXIT_BAD_INPUT : METIS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("metis %s\n", METIS_VERSION);
        return METIS_EXIT_OK;
    }
    if (!strcmp(argv[1], "report"))
        return cmd_report(argc, argv);
    if (!strcmp(argv[1], "known"))
        return known_main(argc - 1, argv + 1);
    if (!strcmp(argv[1], "clean"))
        return clean_main(argc - 1, argv + 1);
    /* Hidden: config_keys.c's key table, for tests/integration/project/man_config_keys.sh. */
    if (!strcmp(argv[1], "config-keys"))
        return config_keys_print(stdout), 0;
    swarm_report_written = write_report_html;
    if (!strcmp(argv[1], "swarm"))
        return swarm_main(argc - 1, argv + 1);
    int is_run = !strcmp(argv[1], "run"), is_check = !strcmp(argv[1], "check");
    if (!is_run && !is_check) {
        fprintf(stderr, "metis: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return METIS_EXIT_BAD_INPUT;
    }
    struct run_opts ro;
    int parsed = run_opts_parse(argc - 1, argv + 1, &ro);
    if (parsed > 0) {
        command_usage(argv[1]);
        return METIS_EXIT_OK;
    }
    if (parsed < 0)
        return METIS_EXIT_BAD_INPUT;
    return run_or_check(&ro, is_run);
}
