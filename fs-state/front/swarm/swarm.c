/* `metis swarm`: options, the pre-flight host check and the phases of a swarm verification. */
#include "swarm.h"
#include "front/swarm/shared/swarm_types.h"
#include "front/swarm/launch/hosts.h"
#include "front/swarm/launch/run.h"
#include "front/swarm/launch/job.h"
#include "front/swarm/results/swarm_report.h"
#include "front/swarm/shared/swarm_util.h"
#include "engine/config/config.h"
#include "lib/system/helpers.h"
#include "engine/vocab/exits.h"
#include "lib/text/numbers.h"
#include "front/cli/triage/known.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void swarm_usage(FILE *f)
{
    fprintf(f,
            "usage: metis swarm CONFIG --hosts HOSTS [--vts N] [--seconds S] [--ops N] [--out DIR]\n"
            "                   [--swarm-seed S] [--stop-on-discrepancy] [--keep-going]\n"
            "                   [--vt-timeout S] [--metis PATH]\n"
            "                   [--known FILE [--strict-known]] [--junit FILE]\n"
            "       metis swarm [CONFIG] --check --hosts HOSTS\n"
            "HOSTS is a GNU parallel sshloginfile: one [N/]sshlogin per line, ':' is this machine;\n"
            "N VTs run on that host at once (default: its number of cores).\n"
            "--known FILE: classes in FILE are known (each VT gets it as metis run --known);\n"
            "only a new class makes the exit status 1, unless --strict-known.\n"
            "--junit FILE: one JUnit test suite per VT.\n"
            "exit status: 1 a discrepancy, else 130 interrupted, else 3 a VT failed, else 0;\n"
            "             2 bad usage or config; --check: 0 every host is ready, else 3\n");
}

static int num_arg(const char *opt, const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "metis swarm: %s: '%s' is not a number in [%g, %g]\n", opt, s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int u64_arg(const char *opt, const char *s, uint64_t *out)
{
    if (parse_decimal_u64(s, out) < 0) {
        fprintf(stderr, "metis swarm: %s: '%s' is not a non-negative integer\n", opt, s);
        return -1;
    }
    return 0;
}

enum { S_HOSTS = 1, S_VTS, S_SECONDS, S_OPS, S_OUT, S_SEED, S_STOP, S_CHECK, S_KEEP, S_TIMEOUT,
       S_METIS, S_HELP, S_KNOWN, S_STRICT_KNOWN, S_JUNIT };

static int apply(struct swarm_opts *o, int c, const char *a)
{
    double d;
    switch (c) {
    case S_HOSTS: o->hosts = a; return 0;
    case S_VTS:
        if (num_arg("--vts", a, 1, SWARM_MAX_VTS, &d) < 0)
            return -1;
        o->vts = (int)d;
        return 0;
    case S_SECONDS: o->have_seconds = 1; return num_arg("--seconds", a, 0, 1e9, &o->seconds);
    case S_OPS: o->have_ops = 1; return u64_arg("--ops", a, &o->ops);
    case S_OUT: o->out = a; return 0;
    case S_SEED: o->have_seed = 1; return u64_arg("--swarm-seed", a, &o->swarm_seed);
    case S_STOP: o->stop_on_discrepancy = 1; return 0;
    case S_CHECK: o->check = 1; return 0;
    case S_KEEP: o->keep_going = 1; return 0;
    case S_TIMEOUT: o->have_timeout = 1; return num_arg("--vt-timeout", a, 1, 1e9, &o->vt_timeout);
    case S_METIS: o->metis = a; return 0;
    case S_KNOWN: o->known = a; return 0;
    case S_STRICT_KNOWN: o->strict_known = 1; return 0;
    case S_JUNIT: o->junit = a; return 0;
    }
    return -1;
}

/* What parse returns when --help printed the usage. */
#define SWARM_HELP 1

/* The options: 0, -1 after printing the problem, or SWARM_HELP. */
static int parse(int argc, char **argv, struct swarm_opts *o)
{
    static const struct option lo[] = {
        {"hosts", required_argument, 0, S_HOSTS},     {"vts", required_argument, 0, S_VTS},
        {"seconds", required_argument, 0, S_SECONDS}, {"ops", required_argument, 0, S_OPS},
        {"out", required_argument, 0, S_OUT},         {"swarm-seed", required_argument, 0, S_SEED},
        {"stop-on-discrepancy", no_argument, 0, S_STOP}, {"check", no_argument, 0, S_CHECK},
        {"keep-going", no_argument, 0, S_KEEP},       {"vt-timeout", required_argument, 0, S_TIMEOUT},
        {"metis", required_argument, 0, S_METIS},     {"help", no_argument, 0, S_HELP},
        {"known", required_argument, 0, S_KNOWN},     {"strict-known", no_argument, 0, S_STRICT_KNOWN},
        {"junit", required_argument, 0, S_JUNIT},     {0, 0, 0, 0}};
    int c;
    memset(o, 0, sizeof *o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (c == S_HELP || c == 'h') {
            swarm_usage(stdout);
            return SWARM_HELP;
        }
        if (c == '?') {
            fprintf(stderr, "metis swarm: unknown option '%s' or missing value\n", argv[optind - 1]);
            return -1;
        }
        if (apply(o, c, optarg) < 0)
            return -1;
    }
    if (optind < argc)
        o->config = argv[optind++];
    if (o->strict_known && !o->known) {
        fprintf(stderr, "metis swarm: --strict-known needs --known FILE\n");
        return -1;
    }
    if (optind < argc || (!o->config && !o->check) || !o->hosts) {
        /* one line, as every other refusal: --help prints the usage */
        fprintf(stderr, "metis swarm: %s\n", !o->hosts ? "--hosts HOSTS is required" :
                optind < argc ? "expected exactly one CONFIG" : "expected a CONFIG");
        return -1;
    }
    return 0;
}

static int load_config(struct swarm *s)
{
    static struct metis_config cfg;
    char err[1200], abs[PATH_MAX];
    s->cfg = &cfg;
    if (!s->o.config) {
        memset(&cfg, 0, sizeof cfg);
        snprintf(cfg.name, sizeof cfg.name, "none");
        return 0;
    }
    if (config_load(s->o.config, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return -1;
    }
    if (realpath(s->o.config, abs))
        snprintf(cfg.path, sizeof cfg.path, "%.1000s", abs);
    return 0;
}

/* Limits: the command line's, else the config's; a VT is killed if it overruns by the margin
 * (pan's build and the file systems' teardown come on top of the search time). */
static void settle_limits(struct swarm *s)
{
    if (!s->o.have_seconds && s->cfg->run.seconds > 0) {
        s->o.have_seconds = 1;
        s->o.seconds = s->cfg->run.seconds;
    }
    /* A keep-going VT shrinks its classes after the search, for up to the larger of
     * shrink_seconds and shrink_max_seconds (the triage's bound, triage.c). */
    double most = s->cfg->run.shrink_seconds > s->cfg->run.shrink_max_seconds
                  ? s->cfg->run.shrink_seconds : s->cfg->run.shrink_max_seconds;
    double shrink = (s->o.keep_going || s->cfg->run.keep_going) && s->cfg->run.shrink_seconds > 0
                    ? most : 0;
    if (!s->o.have_timeout && s->o.have_seconds && s->o.seconds > 0)
        s->o.vt_timeout = s->o.seconds + SWARM_VT_TIMEOUT_MARGIN + shrink;
    if (!s->o.have_seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s->o.swarm_seed = ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid();
        s->o.swarm_seed %= 1000000000ULL;
    }
}

static void make_id(struct swarm *s)
{
    unsigned r = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &r, sizeof r) != (ssize_t)sizeof r)
            r = 0;
        close(fd);
    }
    snprintf(s->id, sizeof s->id, "%lx-%d-%04x", (long)time(NULL), (int)getpid(), r & 0xffff);
}

static int make_out(struct swarm *s)
{
    char stamp[32];
    time_t t = time(NULL);
    if (s->o.out) {
        snprintf(s->out, sizeof s->out, "%s", s->o.out);
    } else {
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(s->out, sizeof s->out, "runs/swarm-%s-%s", stamp, s->cfg->name);
    }
    if (mkdir_p(s->out) < 0) {
        fprintf(stderr, "metis swarm: %s: cannot create the output directory: %s\n", s->out,
                strerror(errno));
        return -1;
    }
    char abs[PATH_MAX];
    if (realpath(s->out, abs))
        snprintf(s->out, sizeof s->out, "%s", abs);
    return 0;
}

/* The config (and the known file) go to the same path on every worker (parallel --basefile). */
static int stage_config(struct swarm *s)
{
    char path[PATH_MAX + 32];
    snprintf(s->stage_dir, sizeof s->stage_dir, SWARM_TMP "/metis-swarm-%s", s->id);
    snprintf(s->stage_cfg, sizeof s->stage_cfg, "%s/%.200s.ini", s->stage_dir, s->cfg->name);
    if (s->o.known)
        snprintf(s->stage_known, sizeof s->stage_known, "%s/known.txt", s->stage_dir);
    snprintf(path, sizeof path, "%s/config.ini", s->out);
    if (mkdir_p(s->stage_dir) < 0 || copy_file(s->cfg->path, s->stage_cfg) < 0 ||
        copy_file(s->cfg->path, path) < 0 ||
        (s->o.known && copy_file(s->o.known, s->stage_known) < 0)) {
        fprintf(stderr, "metis swarm: cannot stage the config in %s: %s\n", s->stage_dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

static int run_check(struct swarm *s)
{
    char dir[64];
    snprintf(dir, sizeof dir, SWARM_TMP "/metis-swarm-check-%d", (int)getpid());
    if (mkdir_p(dir) < 0) {
        fprintf(stderr, "metis swarm: %s: %s\n", dir, strerror(errno));
        return METIS_EXIT_INFRA;
    }
    int rc = swarm_probe(s, dir);
    swarm_rm_rf(dir);
    if (rc < 0)
        return METIS_EXIT_INFRA;
    swarm_check_print(s, stdout);
    for (int i = 0; i < s->nhosts; i++)
        if (!s->host[i].ready)
            return METIS_EXIT_INFRA;
    return METIS_EXIT_OK;
}

/* Keeps the ready hosts for the run; the VT count follows their slots unless --vts. */
static int plan(struct swarm *s)
{
    char path[PATH_MAX + 32];
    int slots = 0, ready = 0;
    snprintf(path, sizeof path, "%s/hosts.used", s->out);
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < s->nhosts; i++) {
        const struct swarm_host *h = &s->host[i];
        if (!h->ready) {
            fprintf(stderr, "metis swarm: %s: %s, not used%s%s\n", h->login,
                    h->answered ? "not ready" : "unreachable",
                    h->missing[0] ? ": missing " : h->error[0] ? ": " : "",
                    h->missing[0] ? h->missing : h->error);
            continue;
        }
        if (h->room[0])
            fprintf(stderr, "metis swarm: %s: short of room: %s\n", h->login, h->room);
        fprintf(f, "%s\n", h->line);
        slots += h->slots ? h->slots : (h->cores > 0 ? h->cores : 1);
        ready++;
    }
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "metis swarm: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!ready) {
        fprintf(stderr, "metis swarm: no usable host in %s (see metis swarm --check)\n", s->o.hosts);
        return -1;
    }
    s->nvts = s->o.vts ? s->o.vts : slots;
    if (s->nvts > SWARM_MAX_VTS)
        s->nvts = SWARM_MAX_VTS;
    return 0;
}

static int run_swarm(struct swarm *s)
{
    if (make_out(s) < 0)
        return METIS_EXIT_BAD_INPUT;
    if (swarm_probe(s, s->out) < 0 || swarm_signal || plan(s) < 0) {
        swarm_report(s);
        return swarm_signal ? METIS_EXIT_INTERRUPTED : METIS_EXIT_INFRA;
    }
    if (stage_config(s) < 0)
        return METIS_EXIT_INFRA;
    fprintf(stderr, "metis swarm %s: %d VTs, swarm seed %llu, output in %s\n", s->id, s->nvts,
            (unsigned long long)s->o.swarm_seed, s->out);
    swarm_run_vts(s);
    if (s->interrupted)
        fprintf(stderr, "metis swarm: interrupted: waiting for the VTs to clean up, collecting\n");
    swarm_collect(s);
    return swarm_report(s);
}

int swarm_main(int argc, char **argv)
{
    static struct swarm s;
    if (argc >= 2 && !strcmp(argv[1], "--ping"))
        return puts("metis-swarm 1") < 0;
    if (argc >= 2 && !strcmp(argv[1], "--vt-job"))
        return swarm_vt_job(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "--finish"))
        return swarm_finish_job(argc - 1, argv + 1);
    int parsed = parse(argc, argv, &s.o);
    if (parsed == SWARM_HELP)
        return METIS_EXIT_OK;
    if (parsed < 0 || load_config(&s) < 0 || swarm_hosts_load(&s, s.o.hosts) < 0)
        return METIS_EXIT_BAD_INPUT;
    if (s.o.known && known_open(s.o.known, &s.known) < 0)
        return METIS_EXIT_BAD_INPUT;
    if (s.o.metis)
        snprintf(s.metis, sizeof s.metis, "%s", s.o.metis);
    else
        swarm_self_exe(s.metis, sizeof s.metis);
    swarm_tools_for(&s);
    make_id(&s);
    settle_limits(&s);
    swarm_install_signals();
    return s.o.check ? run_check(&s) : run_swarm(&s);
}
