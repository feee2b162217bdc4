/* metis-replay recheck: every known class's self-checking reproducer run against the target as installed today: still fails, fixed, or cannot run. */
#include "cli.h"
#include "engine/classify/known_file.h"
#include "lib/system/helpers.h"
#include "lib/system/signals.h"
#include "lib/system/spawner.h"
#include "tree/tree.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEARCH_DEPTH 3          /* RUN_DIR/class-K-repro, SWARM_DIR/vt-I/class-K-repro, DIR/RUN/... */
#define REPRO_GRACE 20

/* A reproducer the triage kept: its directory (run.sh, repro.c) and the class it stands for
 * (the signature file the triage writes beside them). */
struct repro {
    char dir[PATH_MAX], signature[KNOWN_SIG_MAX];
    char group[KNOWN_SIG_MAX];  /* its cause group's key (the group file), "" when none */
};

struct recheck {
    struct repro *v;
    int n;
    size_t cap;
    const char *target;         /* --target FS: run.sh's argument, "" for the fs that disagreed */
    double timeout;
};

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

/* The first line of dir/name without its newline: 1, or 0 ("") when there is none. */
static int first_line(const char *dir, const char *name, char *out, size_t len)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    int got = f && fgets(out, (int)len, f);
    if (f)
        fclose(f);
    out[got ? strcspn(out, "\n") : 0] = '\0';
    return got;
}

static void add_if_repro(struct recheck *r, const char *dir)
{
    char path[PATH_MAX + 32], line[KNOWN_SIG_MAX + 2];
    int got = first_line(dir, "signature", line, sizeof line);
    snprintf(path, sizeof path, "%s/run.sh", dir);
    if (!got || access(path, R_OK) != 0 || array_reserve(&r->v, &r->cap, (size_t)r->n + 1,
                                                        sizeof *r->v))
        return;
    struct repro *p = &r->v[r->n++];
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    snprintf(p->signature, sizeof p->signature, "%.*s", KNOWN_SIG_MAX - 1, line);
    first_line(dir, "group", line, sizeof line);     /* a triage before groups wrote none */
    snprintf(p->group, sizeof p->group, "%.*s", KNOWN_SIG_MAX - 1, line);
}

struct walk { struct recheck *r; const char *dir; int depth; };
static void find_repros(struct recheck *r, const char *dir, int depth);

static int visit(void *ctx, const char *name)
{
    struct walk *w = ctx;
    char sub[PATH_MAX];
    struct stat sb;
    if (snprintf(sub, sizeof sub, "%s/%s", w->dir, name) >= (int)sizeof sub)
        return 0;
    if (strcmp(name, "states") && strcmp(name, "work") && lstat(sub, &sb) == 0 &&
        S_ISDIR(sb.st_mode))
        find_repros(w->r, sub, w->depth + 1);
    return 0;
}

static void find_repros(struct recheck *r, const char *dir, int depth)
{
    struct walk w = { r, dir, depth };
    add_if_repro(r, dir);
    if (depth < SEARCH_DEPTH)
        tree_dir_names(dir, visit, &w);
}

static const struct repro *repro_of(const struct recheck *r, const char *signature)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->v[i].signature, signature) == 0)
            return &r->v[i];
    return NULL;
}

/* The line of the output that tells most: run.sh's verdict, else its last line. */
static void telling_line(const char *text, char *out, size_t len)
{
    const char *v = strstr(text, "repro: the defect shows: ");
    const char *end = text + strlen(text);
    while (!v && end > text && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *start = v ? v : end;
    while (!v && start > text && start[-1] != '\n')
        start--;
    size_t n = v ? strcspn(v, "\n") : (size_t)(end - start);
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), start);
}

/* Runs one reproducer: 0 fixed, 1 still fails, -1 cannot run, with what it said in why. */
static int run_repro(const struct recheck *r, const struct repro *p, char *why, size_t len)
{
    char script[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(script, sizeof script, "%s/run.sh", p->dir);
    snprintf(log, sizeof log, "%s/recheck.log", p->dir);
    char *argv[] = { "/bin/sh", script, (char *)r->target, NULL };
    if (!r->target[0])
        argv[2] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    struct spawn_how how = { .out_fd = fd, .flags = SPAWN_OWN_GROUP };
    pid_t pid = fd < 0 ? -1 : spawn_start(argv, &how);
    if (fd >= 0)
        close(fd);
    if (pid < 0)
        return snprintf(why, len, "cannot start run.sh: %s", strerror(errno)), -1;
    struct spawn_limits lim = { now_seconds() + r->timeout, REPRO_GRACE, &stop_signal };
    int rc = spawn_wait_limited(pid, &lim);
    char *text = read_text_file(log, 1 << 20);
    telling_line(text ? text : "", why, len);
    free(text);
    if (rc == 0 || rc == 1)
        return rc;
    char said[600];
    snprintf(said, sizeof said, "%.599s", why);
    snprintf(why, len, "run.sh exit %d%s: %s", rc, stop_signal ? " (interrupted)" :
             now_seconds() >= lim.deadline ? " (timed out)" : "", said);
    return -1;
}

/* One class's reproducer p: its verdict line on stdout; the counts of each verdict in tally[3]. */
static void recheck_repro(const struct recheck *r, const struct repro *p, int tally[3])
{
    char why[800];
    int v = run_repro(r, p, why, sizeof why);
    if (v == 0)
        printf("fixed: %s (%s/run.sh%s%s exits 0)\n", p->signature, p->dir,
               r->target[0] ? " " : "", r->target);
    else if (v == 1)
        printf("still fails: %s (%s/run.sh%s%s): %s\n", p->signature, p->dir,
               r->target[0] ? " " : "", r->target, why);
    else
        printf("cannot run: %s (%s/run.sh): %s\n", p->signature, p->dir, why);
    tally[v == 0 ? 0 : v == 1 ? 1 : 2]++;
    fflush(stdout);
}

/* Whether an earlier reproducer of r stands for the same class as r->v[i]: a class found in
 * several directories (a swarm's VTs) is run once. */
static int seen_before(const struct recheck *r, int i)
{
    for (int j = 0; j < i; j++)
        if (!strcmp(r->v[j].signature, r->v[i].signature))
            return 1;
    return 0;
}

/* A group record: the reproducer of every class of that group the directories hold. */
static void recheck_group(const struct recheck *r, const struct known_class *c, int tally[3])
{
    int ran = 0;
    for (int i = 0; i < r->n && !stop_signal; i++)
        if (!strcmp(r->v[i].group, c->signature) && !seen_before(r, i)) {
            recheck_repro(r, &r->v[i], tally);
            ran++;
        }
    if (!ran) {
        printf("cannot run: group %s: no reproducer of this group in the directories given\n",
               c->signature);
        tally[2]++;
    }
}

/* One known record: each class it covers gets its verdict line. */
static void recheck_class(const struct recheck *r, const struct known_class *c, int tally[3])
{
    const struct repro *p = c->group ? NULL : repro_of(r, c->signature);
    if (c->group) {
        recheck_group(r, c, tally);
    } else if (!p) {
        printf("cannot run: %s: no reproducer of this class in the directories given\n",
               c->signature);
        tally[2]++;
    } else {
        recheck_repro(r, p, tally);
    }
}

static int parse(int argc, char **argv, struct recheck *r)
{
    static const struct option lo[] = {
        {"target", required_argument, 0, 't'}, {"timeout", required_argument, 0, 'T'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (c == 'h')
            return cli_usage("recheck"), CLI_HELP;
        if (c == 't') {
            r->target = optarg;
        } else if (c == 'T' && (r->timeout = strtod(optarg, &end)) > 0 && !*end) {
            continue;
        } else {
            fprintf(stderr, "metis-replay recheck: bad option '%s'\n", argv[optind - 1]);
            return -1;
        }
    }
    if (argc - optind < 2) {
        fprintf(stderr, "metis-replay recheck: expected KNOWN_FILE and at least one DIR\n");
        return -1;
    }
    return 0;
}

int cmd_recheck(int argc, char **argv)
{
    struct recheck r = { NULL, 0, 0, "", 300 };
    struct known_list k;
    char err[PATH_MAX + 200];
    int tally[3] = { 0, 0, 0 }, rc = parse(argc, argv, &r);
    if (rc)
        return rc == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (known_load(argv[optind], &k, err, sizeof err) < 0) {
        fprintf(stderr, "metis-replay recheck: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    for (int i = optind + 1; i < argc; i++)
        find_repros(&r, argv[i], 0);
    signals_on_stop(on_stop);
    for (int i = 0; i < k.n && !stop_signal; i++)
        recheck_class(&r, &k.v[i], tally);
    printf("recheck: %d known class%s: %d fixed, %d still fail%s, %d cannot run\n", k.n,
           k.n == 1 ? "" : "es", tally[0], tally[1], tally[1] == 1 ? "s" : "", tally[2]);
    known_free(&k);
    free(r.v);
    return stop_signal ? EXIT_INTERRUPTED : tally[1] ? EXIT_REPRODUCED : tally[2] ? EXIT_INFRA
                                                                         : EXIT_MATCH;
}
