/* Primary side of the swarm: VTs through GNU parallel, interrupts, and collecting every host. */
#include "run.h"
#include "front/swarm/results/swarm_bounded.h"
#include "front/swarm/shared/swarm_util.h"
#include "lib/system/spawner.h"
#include "lib/system/signals.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t swarm_signal;
static volatile pid_t running_parallel;

static void on_swarm_signal(int sig)
{
    if (!swarm_signal && running_parallel > 0)
        kill(running_parallel, SIGINT);   /* parallel: kill every job with --termseq, exit */
    swarm_signal = sig;
}

void swarm_install_signals(void)
{
    signals_on_stop(on_swarm_signal);
}

/* The shell command a worker runs: metis at our path, else the one in its PATH. */
static void worker_prefix(const struct swarm *s, char *out, size_t len)
{
    char qm[PATH_MAX + 64];
    swarm_shell_quote(s->metis, qm, sizeof qm);
    snprintf(out, len, "m=%s; [ -x \"$m\" ] || m=metis; exec \"$m\" swarm", qm);
}

static void vt_command(const struct swarm *s, char *out, size_t len)
{
    char pre[PATH_MAX + 128], qc[PATH_MAX + 64], extra[PATH_MAX + 256] = "", qk[PATH_MAX + 64];
    worker_prefix(s, pre, sizeof pre);
    swarm_shell_quote(s->stage_cfg, qc, sizeof qc);
    if (s->o.have_seconds)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --seconds %g", s->o.seconds);
    if (s->o.have_ops)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --ops %llu",
                 (unsigned long long)s->o.ops);
    if (s->stage_known[0]) {
        swarm_shell_quote(s->stage_known, qk, sizeof qk);
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --known %s", qk);
    }
    if (swarm_is_bounded(s))     /* each VT searches its share of one space */
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --vts %d", s->nvts);
    snprintf(out, len, "%s --vt-job --id %s --config %s --swarm-seed %llu%s%s%s --vt {}", pre,
             s->id, qc, (unsigned long long)s->o.swarm_seed, extra,
             s->o.keep_going ? " --keep-going" : "", s->o.stop_on_discrepancy ? " --halt-mode" : "");
}

static pid_t start_parallel(char **argv, const char *out)
{
    pid_t pid = swarm_spawn(argv, "/dev/null", out, "&2", 1);
    running_parallel = pid;
    if (swarm_signal && pid > 0)     /* interrupted while we were starting it */
        kill(pid, SIGINT);
    return pid;
}

static int any_remote(const struct swarm *s)
{
    for (int k = 0; k < s->nhosts; k++)
        if (s->host[k].ready && strcmp(s->host[k].login, ":"))
            return 1;
    return 0;
}

/* Runs VTs 0..nvts-1 on the ready hosts. Returns parallel's exit status. */
int swarm_run_vts(struct swarm *s)
{
    static char *argv[SWARM_MAX_VTS + 32];
    static char args[SWARM_MAX_VTS][12];
    char cmd[3 * PATH_MAX], hosts[PATH_MAX + 16], joblog[PATH_MAX + 16], timeout[32];
    int n = 0;
    snprintf(hosts, sizeof hosts, "%s/hosts.used", s->out);
    snprintf(joblog, sizeof joblog, "%s/joblog.txt", s->out);
    vt_command(s, cmd, sizeof cmd);
    argv[n++] = "parallel";
    argv[n++] = "--sshloginfile";
    argv[n++] = hosts;
    argv[n++] = "--joblog";
    argv[n++] = joblog;
    if (any_remote(s)) {   /* parallel warns about a --basefile with only ':' */
        argv[n++] = "--basefile";
        argv[n++] = s->stage_cfg;
    }
    if (any_remote(s) && s->stage_known[0]) {
        argv[n++] = "--basefile";
        argv[n++] = s->stage_known;
    }
    argv[n++] = "--termseq";
    argv[n++] = SWARM_TERMSEQ;
    if (s->o.vt_timeout > 0) {
        snprintf(timeout, sizeof timeout, "%g", s->o.vt_timeout);
        argv[n++] = "--timeout";
        argv[n++] = timeout;
    }
    if (s->o.stop_on_discrepancy) {
        argv[n++] = "--halt";
        argv[n++] = "now,fail=1";
    }
    argv[n++] = cmd;
    argv[n++] = ":::";
    for (int i = 0; i < s->nvts; i++) {
        snprintf(args[i], sizeof args[i], "%d", i);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    s->t_start = swarm_now();
    pid_t pid = start_parallel(argv, "&2");
    int rc = pid < 0 ? -1 : spawn_wait(pid);
    running_parallel = 0;
    s->t_end = swarm_now();
    s->interrupted = swarm_signal != 0;
    s->halted = s->o.stop_on_discrepancy && rc > 0 && !s->interrupted;
    return rc;
}

static pid_t start_finish(const struct swarm *s, int k, const char *tarfile)
{
    char cmd[PATH_MAX + 256], pre[PATH_MAX + 128], timeout[16];
    worker_prefix(s, pre, sizeof pre);
    snprintf(cmd, sizeof cmd, "%s --finish --id %s", pre, s->id);
    snprintf(timeout, sizeof timeout, "%d", SWARM_FINISH_TIMEOUT);
    char *argv[] = {"parallel", "--sshlogin", (char *)s->host[k].login, "--nonall", "--timeout",
                    timeout, cmd, NULL};
    return swarm_spawn(argv, "/dev/null", tarfile, "&2", 1);
}

static int unpack(const char *tarfile, const char *out)
{
    struct stat sb;
    if (stat(tarfile, &sb) < 0 || sb.st_size == 0)
        return 0;
    char *argv[] = {"tar", "-xf", (char *)tarfile, "-C", (char *)out, NULL};
    pid_t pid = swarm_spawn(argv, "/dev/null", NULL, NULL, 0);
    return pid < 0 ? -1 : spawn_wait(pid);
}

/* On every ready host at once: wait for its VTs to end, sweep them, ship them here. */
void swarm_collect(struct swarm *s)
{
    static pid_t pid[SWARM_MAX_HOSTS];
    static char tarfile[SWARM_MAX_HOSTS][PATH_MAX + 32];
    for (int k = 0; k < s->nhosts; k++) {
        pid[k] = 0;
        if (!s->host[k].ready)
            continue;
        snprintf(tarfile[k], sizeof tarfile[k], "%s/.collect-%d.tar", s->out, k);
        pid[k] = start_finish(s, k, tarfile[k]);
    }
    for (int k = 0; k < s->nhosts; k++) {
        if (pid[k] <= 0)
            continue;
        int rc = spawn_wait(pid[k]);
        int urc = unpack(tarfile[k], s->out);
        s->host[k].collected = rc == 0 && urc == 0;
        if (!s->host[k].collected)
            fprintf(stderr, "metis swarm: %s: could not collect its VTs (finish %d, tar %d)\n",
                    s->host[k].login, rc, urc);
        unlink(tarfile[k]);
    }
    unlink(s->stage_cfg);
    if (s->stage_known[0])
        unlink(s->stage_known);
    rmdir(s->stage_dir);
}
