/* Worker side of the swarm: the VT wrapper (--vt-job) and the per-host finishing job (--finish). */
#include "job.h"
#include "front/swarm/shared/swarm_types.h"
#include "front/swarm/shared/swarm_util.h"
#include "lib/system/helpers.h"
#include "lib/text/numbers.h"
#include "engine/vocab/exits.h"
#include "front/json/json_reader.h"
#include "lib/system/signals.h"
#include "lib/system/claims.h"
#include "lib/system/spawner.h"
#include "backend/backend.h"
#include "front/cli/runs/clean.h"
#include "front/cli/runs/model.h"
#include "front/cli/options/runopts.h"
#include "front/cli/options/search_shape.h"
#include "tree/tree.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORWARD_GRACE 40        /* metis run gives its engine 30 s after a signal */
#define FINISH_GRACE 60

struct vt_job {
    char id[64], config[PATH_MAX], dir[PATH_MAX], login[512], hostname[256], known[PATH_MAX];
    char options[256], shape[32], run_id[64];
    uint64_t swarm_seed, input_seed, ops;
    int vt, vts, have_seconds, have_ops, keep_going, halt_mode;
    double seconds, started, ended;
    pid_t pid;
    unsigned long long pid_start;
    int exit_code, sig, interrupted;
};

static volatile sig_atomic_t job_signal, job_alarm;

static void on_job_signal(int sig) { job_signal = sig; }
static void on_job_alarm(int sig) { job_alarm = 1; }

static int safe_id(const char *s)
{
    if (!*s || strlen(s) > 60)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return 0;
    return 1;
}

/* Field 22 of /proc/PID/stat: tells a live VT from a later process that reuses its pid. */
static unsigned long long proc_start(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long long start = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    if (p && *p)
        sscanf(p, "%llu", &start);
    return start;
}

static int proc_alive(pid_t pid, unsigned long long start)
{
    return pid > 0 && start && proc_start(pid) == start;
}

static void write_vt_json(const struct vt_job *j)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 16], login[1100], cfg[PATH_MAX * 2], host[600];
    json_escape(j->login, login, sizeof login);
    json_escape(j->config, cfg, sizeof cfg);
    json_escape(j->hostname, host, sizeof host);
    snprintf(path, sizeof path, "%s/vt.json", j->dir);
    snprintf(tmp, sizeof tmp, "%s/vt.json.tmp", j->dir);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "{\"vt\":%d,\"swarm_id\":\"%s\",\"swarm_seed\":%llu,\"sshlogin\":\"%s\","
            "\"hostname\":\"%s\",\"options\":\"%s\",\"shape\":\"%s\",\"input_seed\":%llu,"
            "\"run_id\":\"%s\",\"pid\":%d,\"pid_start\":%llu,\"wrapper_pid\":%d,"
            "\"wrapper_start\":%llu,\"started\":%.3f,\"ended\":%.3f,\"exit\":%d,"
            "\"signal\":%d,\"interrupted\":%d,\"config\":\"%s\"}\n",
            j->vt, j->id, (unsigned long long)j->swarm_seed, login, host, j->options, j->shape,
            (unsigned long long)j->input_seed, j->run_id, (int)j->pid, j->pid_start,
            (int)getpid(), proc_start(getpid()), j->started, j->ended, j->exit_code, j->sig,
            j->interrupted, cfg);
    if (fclose(f) == 0)
        rename(tmp, path);
}

enum { J_ID = 1, J_CONFIG, J_SEED, J_VT, J_SECONDS, J_OPS, J_KEEP, J_HALT, J_KNOWN, J_VTS };

/* One option of --vt-job (written by the swarm's primary, so seeds are plain decimal). */
static int job_option(struct vt_job *j, int c, const char *a)
{
    switch (c) {
    case J_ID: snprintf(j->id, sizeof j->id, "%s", a); return 0;
    case J_CONFIG: snprintf(j->config, sizeof j->config, "%s", a); return 0;
    case J_SEED: return parse_decimal_u64(a, &j->swarm_seed);
    case J_VT: j->vt = atoi(a); return 0;
    case J_SECONDS: j->seconds = atof(a); j->have_seconds = 1; return 0;
    case J_OPS: j->have_ops = 1; return parse_decimal_u64(a, &j->ops);
    case J_KEEP: j->keep_going = 1; return 0;
    case J_HALT: j->halt_mode = 1; return 0;
    case J_KNOWN: snprintf(j->known, sizeof j->known, "%s", a); return 0;
    case J_VTS: j->vts = atoi(a); return j->vts > 0 ? 0 : -1;
    default: return -1;
    }
}

static int parse_job(int argc, char **argv, struct vt_job *j)
{
    static const struct option lo[] = {
        {"id", required_argument, 0, J_ID},          {"config", required_argument, 0, J_CONFIG},
        {"swarm-seed", required_argument, 0, J_SEED}, {"vt", required_argument, 0, J_VT},
        {"seconds", required_argument, 0, J_SECONDS}, {"ops", required_argument, 0, J_OPS},
        {"keep-going", no_argument, 0, J_KEEP},      {"halt-mode", no_argument, 0, J_HALT},
        {"known", required_argument, 0, J_KNOWN},    {"vts", required_argument, 0, J_VTS},
        {0, 0, 0, 0}};
    int c;
    memset(j, 0, sizeof *j);
    j->vt = -1;
    j->exit_code = -1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1)
        if (job_option(j, c, optarg) < 0) {
            fprintf(stderr, "metis swarm --vt-job: bad arguments\n");
            return -1;
        }
    if (!safe_id(j->id) || !j->config[0] || j->vt < 0) {
        fprintf(stderr, "metis swarm --vt-job: needs --id, --config and --vt\n");
        return -1;
    }
    return 0;
}

static void job_dir(const char *id, char *out, size_t len)
{
    const char *login = getenv("PARALLEL_SSHLOGIN");
    char tag[128];
    swarm_host_tag(login && *login ? login : ":", tag, sizeof tag);
    snprintf(out, len, SWARM_TMP "/metis-swarm-%s/%s", id, tag);
}

static void exec_run(struct vt_job *j)
{
    char self[PATH_MAX], vt[32], vts[32], seed[32], secs[32], ops[32], log[PATH_MAX + 16];
    char *argv[24];
    int n = 0;
    swarm_self_exe(self, sizeof self);
    snprintf(vt, sizeof vt, "%d", j->vt);
    snprintf(vts, sizeof vts, "%d", j->vts);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)j->swarm_seed);
    snprintf(secs, sizeof secs, "%g", j->seconds);
    snprintf(ops, sizeof ops, "%llu", (unsigned long long)j->ops);
    snprintf(log, sizeof log, "%s/stderr.txt", j->dir);
    argv[n++] = self;
    argv[n++] = "run";
    argv[n++] = j->config;
    argv[n++] = "--vt";
    argv[n++] = vt;
    argv[n++] = "--swarm-seed";
    argv[n++] = seed;
    if (j->vts) {   /* a bounded config: its share, and the claim table of this host's VTs */
        argv[n++] = "--vts";
        argv[n++] = vts;
        argv[n++] = "--claims";
        argv[n++] = j->id;
    }
    if (j->have_seconds) {
        argv[n++] = "--seconds";
        argv[n++] = secs;
    }
    if (j->have_ops) {
        argv[n++] = "--ops";
        argv[n++] = ops;
    }
    if (j->keep_going)
        argv[n++] = "--keep-going";
    if (j->known[0]) {
        argv[n++] = "--known";
        argv[n++] = j->known;
    }
    argv[n++] = "--out";
    argv[n++] = j->dir;
    argv[n] = NULL;
    /* Own process group: parallel signals the job's group, and metis run must get one
     * TERM only (a second one makes it kill its engine at once). */
    pid_t pid = swarm_spawn(argv, "/dev/null", log, log, 1);
    if (pid < 0)
        _exit(METIS_EXIT_INFRA);
    j->pid = pid;
}

static void install_job_signals(void)
{
    signals_on_stop(on_job_signal);
    signals_on_alarm(on_job_alarm);
}

/* Waits for metis run; forwards the first signal as one TERM, kills it after the grace. */
static int wait_run(struct vt_job *j)
{
    int status, forwarded = 0;
    for (;;) {
        pid_t r = waitpid(j->pid, &status, 0);
        if (r == j->pid)
            break;
        if (r < 0 && errno != EINTR)
            return METIS_EXIT_INFRA;
        if (job_signal && !forwarded) {
            forwarded = 1;
            j->interrupted = 1;
            kill(j->pid, SIGTERM);
            alarm(FORWARD_GRACE);
        }
        if (job_alarm)
            kill(-j->pid, SIGKILL);
    }
    if (WIFSIGNALED(status)) {
        j->sig = WTERMSIG(status);
        return 128 + j->sig;
    }
    return WEXITSTATUS(status);
}

static int job_exit_code(const struct vt_job *j)
{
    if (j->halt_mode)   /* parallel --halt now,fail=1 must fire on discrepancies only */
        return j->exit_code == METIS_EXIT_DISCREPANCY ? METIS_EXIT_DISCREPANCY : METIS_EXIT_OK;
    return j->exit_code;
}

int swarm_vt_job(int argc, char **argv)
{
    struct vt_job j;
    struct search_opts so;
    if (parse_job(argc, argv, &j) < 0)
        return METIS_EXIT_BAD_INPUT;
    const char *login = getenv("PARALLEL_SSHLOGIN");
    snprintf(j.login, sizeof j.login, "%s", login && *login ? login : ":");
    gethostname(j.hostname, sizeof j.hostname - 1);
    job_dir(j.id, j.dir, sizeof j.dir);
    snprintf(j.dir + strlen(j.dir), sizeof j.dir - strlen(j.dir), "/vt-%d", j.vt);
    swarm_rm_rf(j.dir);
    if (mkdir_p(j.dir) < 0) {
        fprintf(stderr, "metis swarm: %s: %s\n", j.dir, strerror(errno));
        return METIS_EXIT_INFRA;
    }
    swarm_diversify(j.swarm_seed, j.vt, &so, &j.input_seed);
    /* j.vts: a bounded config's VT (model.c: no bitstate, the plain bounded search) */
    snprintf(j.shape, sizeof j.shape, "%s",
             search_opts_describe(&so, j.vts != 0, j.options, sizeof j.options));
    j.started = swarm_now();
    install_job_signals();
    exec_run(&j);
    snprintf(j.run_id, sizeof j.run_id, "m%d", (int)j.pid);
    j.pid_start = proc_start(j.pid);
    write_vt_json(&j);
    j.exit_code = wait_run(&j);
    kill(-j.pid, SIGKILL);   /* whatever metis run left in its group (spin or cc if killed early) */
    if (j.sig)   /* metis run itself died: nobody else swept its run id */
        backend_sweep(j.run_id);
    j.ended = swarm_now();
    write_vt_json(&j);
    printf("vt %d on %s (%s): exit %d%s after %.1f s\n", j.vt, j.login, j.hostname, j.exit_code,
           j.interrupted ? ", interrupted" : "", j.ended - j.started);
    return job_exit_code(&j);
}

/* ---- finishing job: one per host after the VT jobs ---- */

struct vt_proc {
    char name[64], run_id[64];
    pid_t pid, wrapper;
    unsigned long long start, wrapper_start;
};

struct vt_list {
    const char *dir;
    struct vt_proc *v;
    int n, max;
};

/* Adds the VT directory name (vt-*) with what its vt.json says; 1 (the listing stops) when full. */
static int list_vt(void *ctx, const char *name)
{
    struct vt_list *l = ctx;
    char path[PATH_MAX + 300];
    json_object *json;
    if (l->n >= l->max)
        return 1;
    if (strncmp(name, "vt-", 3))
        return 0;
    struct vt_proc *p = memset(&l->v[l->n++], 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%.60s", name);
    snprintf(path, sizeof path, "%s/%s/vt.json", l->dir, name);
    if ((json = rj_load(path))) {
        rj_copy(json, "run_id", p->run_id, sizeof p->run_id);
        p->pid = (pid_t)rj_num(json, "pid", 0);
        p->start = rj_u64(json, "pid_start", 0);
        p->wrapper = (pid_t)rj_num(json, "wrapper_pid", 0);
        p->wrapper_start = rj_u64(json, "wrapper_start", 0);
        json_object_put(json);
    }
    return 0;
}

static int list_vts(const char *dir, struct vt_proc *v, int max)
{
    struct vt_list l = { dir, v, 0, max };
    tree_dir_names(dir, list_vt, &l);
    return l.n;
}

/* The wrapper too: it writes the VT's final vt.json after metis run has ended. */
static int any_alive(const struct vt_proc *v, int n)
{
    for (int i = 0; i < n; i++)
        if (proc_alive(v[i].pid, v[i].start) || proc_alive(v[i].wrapper, v[i].wrapper_start))
            return 1;
    return 0;
}

/* VTs that were signalled are still tearing down: wait, then insist. */
static void settle(struct vt_proc *v, int n, double grace)
{
    double deadline = swarm_now() + grace;
    while (any_alive(v, n) && swarm_now() < deadline)
        usleep(100000);
    for (int i = 0; i < n; i++)
        if (proc_alive(v[i].pid, v[i].start)) {
            fprintf(stderr, "metis swarm: %s (pid %d) still runs after %.0f s: killing it\n",
                    v[i].name, (int)v[i].pid, grace);
            kill(-v[i].pid, SIGTERM);
        }
    deadline = swarm_now() + 10;
    while (any_alive(v, n) && swarm_now() < deadline)
        usleep(100000);
    for (int i = 0; i < n; i++) {
        if (proc_alive(v[i].pid, v[i].start))
            kill(-v[i].pid, SIGKILL);
        if (proc_alive(v[i].wrapper, v[i].wrapper_start))
            kill(v[i].wrapper, SIGKILL);
    }
    for (int i = 0; i < n; i++)
        if (v[i].run_id[0])
            backend_sweep(v[i].run_id);
}

static int ship(const char *dir, const struct vt_proc *v, int n)
{
    char *argv[SWARM_MAX_VTS + 8];
    int k = 0;
    argv[k++] = "tar";
    argv[k++] = "-C";
    argv[k++] = (char *)dir;
    argv[k++] = "-cf";
    argv[k++] = "-";
    for (int i = 0; i < n; i++)
        argv[k++] = (char *)v[i].name;
    argv[k] = NULL;
    if (n == 0)
        return 0;
    pid_t pid = swarm_spawn(argv, "/dev/null", NULL, NULL, 0);
    return pid < 0 ? -1 : spawn_wait(pid);
}

/* The staged config: all VTs of every host sharing this machine have ended. */
static int remove_staged_file(void *top, const char *name)
{
    char path[PATH_MAX + 300];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", (const char *)top, name);
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        unlink(path);
    return 0;
}

static void remove_stage(const char *id, const char *dir)
{
    char top[PATH_MAX];
    snprintf(top, sizeof top, SWARM_TMP "/metis-swarm-%s", id);
    swarm_rm_rf(dir);
    tree_dir_names(top, remove_staged_file, top);
    rmdir(top);
}

/* This host's claim table of the swarm's VTs (--claims ID), when a VT killed outright left it. */
static void remove_claims(const char *id)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s%s", CLAIMS_DIR, CLAIMS_PREFIX, id);
    claims_remove_if_free(path);
}

int swarm_finish_job(int argc, char **argv)
{
    char dir[PATH_MAX];
    static struct vt_proc v[SWARM_MAX_VTS];
    double grace = FINISH_GRACE;
    if (argc < 3 || strcmp(argv[1], "--id") || !safe_id(argv[2])) {
        fprintf(stderr, "metis swarm --finish: needs --id ID\n");
        return METIS_EXIT_BAD_INPUT;
    }
    if (argc >= 5 && !strcmp(argv[3], "--grace"))
        grace = atof(argv[4]);
    signals_ignore_pipe();
    clean_dead_runs("metis swarm");   /* on stderr: stdout carries the tar */
    job_dir(argv[2], dir, sizeof dir);
    int n = list_vts(dir, v, SWARM_MAX_VTS);
    settle(v, n, grace);
    remove_claims(argv[2]);
    int rc = ship(dir, v, n);
    remove_stage(argv[2], dir);
    return rc == 0 ? METIS_EXIT_OK : METIS_EXIT_INFRA;
}
