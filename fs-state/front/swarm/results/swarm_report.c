/* The swarm's merged report: per-VT table, totals and the list of discrepancies. */
#include "swarm_report.h"
#include "swarm_classes.h"
#include "swarm_bounded.h"
#include "front/swarm/shared/swarm_util.h"
#include "engine/config/config.h"
#include "lib/system/helpers.h"
#include "engine/vocab/exits.h"
#include "front/json/json_reader.h"
#include "front/cli/classes/summary_classes.h"
#include "front/cli/runs/model.h"
#include "front/cli/options/runopts.h"
#include "front/cli/options/search_shape.h"
#include "front/cli/classes/junit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LISTED 10000
#define TABLE_ROWS 40            /* more VTs than this: the table shows the first and the failed */

struct vt_row {
    int have_vt, have_summary, in_joblog, exit_code, job_exit, job_signal, options_differ;
    int signalled;               /* the VT's wrapper passed a signal on to it */
    char login[512], hostname[256], options[256], shape[32], run_id[64], status[48];
    uint64_t input_seed;
    double ops, seconds, ops_per_s, states, matched, restores, discrepancies, job_runtime;
    double searches;             /* SPIN searches the VT's run made (restarts after complete ones) */
    int last_complete;           /* ... and whether the last one completed */
};

struct totals { double ops, ops_per_s, states, matched, restores, discrepancies; int ok, failed; };

struct disc { int vt; long long seq; char fs[64], file[PATH_MAX + 320]; };

static struct vt_row rows[SWARM_MAX_VTS];
static struct disc discs[MAX_LISTED];
static int ndiscs;

/* Joblog columns: Seq Host Starttime JobRuntime Send Receive Exitval Signal Command;
 * our command ends with "--vt I". */
static void read_joblog(const struct swarm *s)
{
    char path[PATH_MAX + 16], line[16384], host[512];
    snprintf(path, sizeof path, "%s/joblog.txt", s->out);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        double start, runtime;
        int exitval, sig, seq, vt;
        line[strcspn(line, "\n")] = '\0';
        char *tail = strrchr(line, ' ');
        if (sscanf(line, "%d\t%511[^\t]\t%lf\t%lf\t%*s\t%*s\t%d\t%d", &seq, host, &start,
                   &runtime, &exitval, &sig) != 6 || !tail || tail - line < 5 ||
            strncmp(tail - 4, "--vt ", 5) || sscanf(tail + 1, "%d", &vt) != 1 ||
            vt < 0 || vt >= s->nvts)
            continue;
        struct vt_row *r = &rows[vt];
        r->in_joblog = 1;
        r->job_exit = exitval;
        r->job_signal = sig;
        r->job_runtime = runtime;
        if (!r->login[0])
            snprintf(r->login, sizeof r->login, "%.500s", host);
    }
    if (f)
        fclose(f);
}

static void read_vt_json(const struct swarm *s, int vt, struct vt_row *r)
{
    char path[PATH_MAX + 32], opts[256];
    snprintf(path, sizeof path, "%s/vt-%d/vt.json", s->out, vt);
    json_object *j = rj_load(path);
    if (!j)
        return;
    r->have_vt = 1;
    rj_copy(j, "sshlogin", r->login, sizeof r->login);
    rj_copy(j, "hostname", r->hostname, sizeof r->hostname);
    rj_copy(j, "run_id", r->run_id, sizeof r->run_id);
    if (rj_copy(j, "options", opts, sizeof opts) == 0 && strcmp(opts, r->options))
        r->options_differ = 1;       /* the worker's metis derives other options: version skew */
    r->exit_code = rj_int(j, "exit", -1);
    r->signalled = rj_num(j, "interrupted", 0) > 0;
    json_object_put(j);
}

static void read_summary(const struct swarm *s, int vt, struct vt_row *r)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/vt-%d/summary.json", s->out, vt);
    json_object *j = rj_load(path);
    if (!j)
        return;
    r->have_summary = 1;
    rj_num_at(j, "ops", &r->ops);
    rj_num_at(j, "seconds", &r->seconds);
    rj_num_at(j, "ops_per_s", &r->ops_per_s);
    rj_num_at(j, "states", &r->states);
    rj_num_at(j, "matched", &r->matched);
    rj_num_at(j, "restores", &r->restores);
    rj_num_at(j, "discrepancies", &r->discrepancies);
    rj_num_at(j, "searches", &r->searches);
    r->last_complete = rj_true(j, "last_search_complete");
    if (!r->run_id[0])
        rj_copy(j, "run_id", r->run_id, sizeof r->run_id);
    json_object_put(j);
}

static int timed_out(const struct swarm *s, const struct vt_row *r)
{
    return r->in_joblog && s->o.vt_timeout > 0 && r->job_runtime >= s->o.vt_timeout - 1;
}

static const char *exit_status(int code)
{
    switch (code) {
    case METIS_EXIT_OK: return "ok";
    case METIS_EXIT_DISCREPANCY: return "discrepancy";
    case METIS_EXIT_BAD_INPUT: return "config-error";
    case METIS_EXIT_INFRA: return "infra-failure";
    case METIS_EXIT_INTERRUPTED: return "interrupted";
    }
    return "crashed";
}

static void judge_row(const struct swarm *s, struct vt_row *r)
{
    const char *st;
    if (r->have_vt && r->exit_code > 128 && r->signalled)
        st = "interrupted";          /* killed by the signal it was sent, e.g. while building pan */
    else if (r->have_vt && r->exit_code >= 0)
        st = exit_status(r->exit_code);
    else if (r->have_vt)
        st = "killed";
    else if (r->in_joblog && r->job_exit == 255)
        st = "ssh-failed";
    else if (r->in_joblog)
        st = "no-result";
    else
        st = s->interrupted || s->halted ? "not-run" : "lost";
    if (timed_out(s, r) && (!strcmp(st, "interrupted") || !strcmp(st, "killed") ||
                            !strcmp(st, "ssh-failed") || !strcmp(st, "no-result")))
        st = "timeout";
    else if (s->halted && !strcmp(st, "interrupted"))
        st = "stopped";
    snprintf(r->status, sizeof r->status, "%s%s", st, r->options_differ ? "!options" : "");
}

static void add_disc(int vt, long long seq, const char *fs, const char *file)
{
    if (ndiscs == MAX_LISTED)
        return;
    discs[ndiscs].vt = vt;
    discs[ndiscs].seq = seq;
    snprintf(discs[ndiscs].fs, sizeof discs[ndiscs].fs, "%s", fs);
    snprintf(discs[ndiscs].file, sizeof discs[ndiscs].file, "%s", file);
    ndiscs++;
}

/* log.txt: "discrepancy SEQ fs=NAME ..." lines; the k-th one is detailed in discrepancy-k.txt. */
static void read_log_discrepancies(const struct swarm *s, int vt)
{
    char path[PATH_MAX + 32], line[4096], fs[64], file[PATH_MAX + 320];
    long long seq;
    int found = 0;
    snprintf(path, sizeof path, "%s/vt-%d/log.txt", s->out, vt);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "discrepancy ", 12) || sscanf(line, "discrepancy %lld fs=%63s", &seq, fs) != 2)
            continue;
        snprintf(file, sizeof file, "%s/vt-%d/discrepancy-%d.txt", s->out, vt, ++found);
        add_disc(vt, seq, fs, access(file, R_OK) == 0 ? file : "");
    }
    if (f)
        fclose(f);
    for (int k = 1; !found && k <= (int)rows[vt].discrepancies; k++) {
        snprintf(file, sizeof file, "%s/vt-%d/discrepancy-%d.txt", s->out, vt, k);
        if (access(file, R_OK) == 0)
            add_disc(vt, -1, "?", file);
    }
}

/* A class's first example: the discrepancy its detail file describes. */
static void add_class_disc(void *ctx, int vt, const struct run_class *c)
{
    const struct swarm *s = ctx;
    char file[PATH_MAX + 320];
    snprintf(file, sizeof file, "%s/vt-%d/%s", s->out, vt, c->detail);
    add_disc(vt, (long long)c->first_op, c->fs, c->detail[0] && access(file, R_OK) == 0 ? file : "");
}

/* The VT's classes (summary.json), one line per class; before classes, every log line. */
static void read_discrepancies(const struct swarm *s, int vt)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/vt-%d/summary.json", s->out, vt);
    char *j = read_text_file(path, 64 << 20);
    int n = swarm_classes_add_vt(j, vt, add_class_disc, (void *)s);
    free(j);
    if (n < 0)
        read_log_discrepancies(s, vt);
}

static void gather(struct swarm *s, struct totals *t)
{
    memset(t, 0, sizeof *t);
    ndiscs = 0;
    swarm_classes_reset();
    for (int i = 0; i < s->nvts; i++) {
        struct vt_row *r = &rows[i];
        struct search_opts so;
        memset(r, 0, sizeof *r);
        r->exit_code = -1;
        swarm_diversify(s->o.swarm_seed, i, &so, &r->input_seed);
        snprintf(r->shape, sizeof r->shape, "%s", search_opts_describe(&so,
                 swarm_is_bounded(s), r->options, sizeof r->options));
    }
    read_joblog(s);
    for (int i = 0; i < s->nvts; i++) {
        struct vt_row *r = &rows[i];
        read_vt_json(s, i, r);
        read_summary(s, i, r);
        judge_row(s, r);
        t->ops += r->ops;
        t->ops_per_s += r->ops_per_s;
        t->states += r->states;
        t->matched += r->matched;
        t->restores += r->restores;
        t->discrepancies += r->discrepancies;
        if (!strcmp(r->status, "ok"))
            t->ok++;
        else if (strcmp(r->status, "discrepancy"))
            t->failed++;
        read_discrepancies(s, i);
        for (int k = 0; k < s->nhosts; k++)
            if (!strcmp(s->host[k].login, r->login))
                s->host[k].vts_ran++;
    }
}

/* With --known (not --strict-known), only a new class makes the swarm's a discrepancy: known
 * ones leave it ok, as they leave each VT. */
static const char *overall(const struct swarm *s, const struct totals *t)
{
    int all_known = s->o.known && !s->o.strict_known && swarm_classes_count() > 0 &&
                    !swarm_classes_new(s);
    if ((t->discrepancies > 0 || ndiscs > 0) && !all_known)
        return "discrepancy";
    if (s->interrupted)
        return "interrupted";
    return t->failed || s->nvts == 0 ? "failed" : "ok";
}

static const char *host_state(const struct swarm_host *h)
{
    return !h->answered ? "unreachable" : !h->ready ? "not-ready" : "ready";
}

static void rerun_cmd(const struct swarm *s, int vt, char *out, size_t len)
{
    char qc[PATH_MAX + 64], extra[96] = "";
    swarm_shell_quote(s->cfg->path, qc, sizeof qc);
    if (s->o.have_seconds)
        snprintf(extra, sizeof extra, " --seconds %g", s->o.seconds);
    if (s->o.have_ops)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --ops %llu",
                 (unsigned long long)s->o.ops);
    if (swarm_is_bounded(s))     /* the VT's share of the split space */
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " --vts %d", s->nvts);
    snprintf(out, len, "metis run %s --vt %d --swarm-seed %llu%s%s", qc, vt,
             (unsigned long long)s->o.swarm_seed, extra, s->o.keep_going ? " --keep-going" : "");
}

static void json_hosts(const struct swarm *s, FILE *f)
{
    char a[1100], b[600], c[1100], d[1100];
    fputs("\"hosts\":[", f);
    for (int k = 0; k < s->nhosts; k++) {
        const struct swarm_host *h = &s->host[k];
        json_escape(h->login, a, sizeof a);
        json_escape(h->hostname, b, sizeof b);
        json_escape(h->missing, c, sizeof c);
        json_escape(h->error, d, sizeof d);
        fprintf(f, "%s{\"sshlogin\":\"%s\",\"state\":\"%s\",\"hostname\":\"%s\",\"cores\":%d,"
                "\"slots\":%d,\"vts\":%d,\"collected\":%d,\"missing\":\"%s\",\"error\":\"%s\"}",
                k ? "," : "", a, host_state(h), b, h->cores, h->slots ? h->slots : h->cores,
                h->vts_ran, h->collected, c, d);
    }
    fputs("],", f);
}

static void json_vts(const struct swarm *s, FILE *f)
{
    char a[1100], b[600], dir[PATH_MAX + 32], qd[PATH_MAX * 2], cmd[PATH_MAX + 256], qc[PATH_MAX * 2];
    fputs("\"vt\":[", f);
    for (int i = 0; i < s->nvts; i++) {
        const struct vt_row *r = &rows[i];
        json_escape(r->login, a, sizeof a);
        json_escape(r->hostname, b, sizeof b);
        snprintf(dir, sizeof dir, "%s/vt-%d", s->out, i);
        json_escape(dir, qd, sizeof qd);
        rerun_cmd(s, i, cmd, sizeof cmd);
        json_escape(cmd, qc, sizeof qc);
        fprintf(f, "%s{\"vt\":%d,\"sshlogin\":\"%s\",\"hostname\":\"%s\",\"options\":\"%s\","
                "\"shape\":\"%s\",\"input_seed\":%llu,\"run_id\":\"%s\",\"status\":\"%s\",\"exit\":%d,"
                "\"ops\":%.0f,\"seconds\":%.3f,\"ops_per_s\":%.1f,\"states\":%.0f,\"matched\":%.0f,"
                "\"restores\":%.0f,\"discrepancies\":%.0f,\"searches\":%.0f,"
                "\"last_search_complete\":%s,\"run_dir\":\"%s\",\"rerun\":\"%s\"}",
                i ? "," : "", i, a, b, r->options, r->shape, (unsigned long long)r->input_seed,
                r->run_id,
                r->status, r->exit_code, r->ops, r->seconds, r->ops_per_s, r->states, r->matched,
                r->restores, r->discrepancies, r->searches, r->last_complete ? "true" : "false",
                r->have_vt ? qd : "", qc);
    }
    fputs("],", f);
}

static void json_discs(const struct swarm *s, FILE *f)
{
    char dir[PATH_MAX + 32], qd[PATH_MAX * 2], qf[PATH_MAX * 2];
    fputs("\"discrepancies\":[", f);
    for (int i = 0; i < ndiscs; i++) {
        snprintf(dir, sizeof dir, "%s/vt-%d", s->out, discs[i].vt);
        json_escape(dir, qd, sizeof qd);
        json_escape(discs[i].file, qf, sizeof qf);
        fprintf(f, "%s{\"vt\":%d,\"run_dir\":\"%s\",\"seq\":%lld,\"fs\":\"%s\",\"file\":\"%s\"}",
                i ? "," : "", discs[i].vt, qd, discs[i].seq, discs[i].fs, qf);
    }
    fputs("]", f);
}

static int hosts_lost(const struct swarm *s)
{
    int n = 0;
    for (int k = 0; k < s->nhosts; k++)
        n += !s->host[k].ready || !s->host[k].collected;
    return n;
}

static void write_json(const struct swarm *s, const struct totals *t, FILE *f)
{
    char cfg[PATH_MAX * 2];
    json_escape(s->cfg->path, cfg, sizeof cfg);
    fprintf(f, "{\"swarm_id\":\"%s\",\"status\":\"%s\",\"config\":\"%s\",\"swarm_seed\":%llu,"
            "\"vts\":%d,\"seconds\":%g,\"vt_timeout\":%g,\"wall_seconds\":%.3f,"
            "\"stop_on_discrepancy\":%d,\"stopped\":%d,\"interrupted\":%d,\"hosts_lost\":%d,",
            s->id, overall(s, t), cfg, (unsigned long long)s->o.swarm_seed, s->nvts,
            s->o.have_seconds ? s->o.seconds : 0, s->o.vt_timeout, s->t_end - s->t_start,
            s->o.stop_on_discrepancy, s->halted, s->interrupted, hosts_lost(s));
    fprintf(f, "\"totals\":{\"ops\":%.0f,\"ops_per_s\":%.1f,\"states\":%.0f,\"matched\":%.0f,"
            "\"restores\":%.0f,\"discrepancies\":%.0f,\"vts_ok\":%d,\"vts_failed\":%d},",
            t->ops, t->ops_per_s, t->states, t->matched, t->restores, t->discrepancies, t->ok,
            t->failed);
    swarm_classes_known_json(s, f);
    json_hosts(s, f);
    swarm_classes_json(s, f);
    json_vts(s, f);
    json_discs(s, f);
    swarm_bounded_json(s, f);
    fputs("}\n", f);
}

static void text_hosts(const struct swarm *s, FILE *f)
{
    for (int k = 0; k < s->nhosts; k++) {
        const struct swarm_host *h = &s->host[k];
        fprintf(f, "  host %-20.20s %-11s %d VTs%s%s%s\n", h->login, host_state(h), h->vts_ran,
                h->ready && !h->collected ? ", results NOT collected" : "",
                h->missing[0] ? ", missing: " : "", h->missing);
        if (!h->answered && h->error[0])
            fprintf(f, "       %.110s\n", h->error);
    }
}

/* "order=t_rand hash=5 storage=bitstate k=3 spin_seed=9 shape=dive30" ->
 * "t_rand h5 bitstate k=3 rs9 dive30" */
static void compact_options(const char *in, char *out, size_t len)
{
    static const char *const from[] = {"order=", "hash=", "storage=", "spin_seed=", "shape="};
    static const char *const to[] = {"", "h", "", "rs", ""};
    size_t n = 0;
    while (*in && n + 1 < len) {
        int hit = 0;
        for (int k = 0; k < 5 && !hit; k++)
            if (!strncmp(in, from[k], strlen(from[k]))) {
                n += snprintf(out + n, len - n, "%s", to[k]);
                in += strlen(from[k]);
                hit = 1;
            }
        if (!hit)
            out[n++] = *in++;
    }
    out[n < len ? n : len - 1] = '\0';
}

static void text_row(int i, const struct vt_row *r, FILE *f)
{
    char opts[112], searches[24] = "-";
    compact_options(r->options, opts, sizeof opts);
    /* "3 done": three searches, the last explored everything; "1 cut": stopped by a limit. */
    if (r->have_summary)
        snprintf(searches, sizeof searches, "%.0f %s", r->searches,
                 r->last_complete ? "done" : "cut");
    fprintf(f, "%4d %-16.16s %-50.50s %9.0f %8.1f %9.0f %5.0f %-8s %s\n", i,
            r->login[0] ? r->login : "-", opts, r->ops, r->ops_per_s, r->states,
            r->discrepancies, searches, r->status);
}

static void text_table(const struct swarm *s, const struct totals *t, FILE *f)
{
    int shown = 0, hidden = 0;
    fprintf(f, "%4s %-16s %-50s %9s %8s %9s %5s %-8s %s\n", "VT", "host", "options", "ops",
            "ops/s", "states", "disc", "searches", "status");
    for (int i = 0; i < s->nvts; i++) {
        if (shown < TABLE_ROWS || strcmp(rows[i].status, "ok")) {
            text_row(i, &rows[i], f);
            shown++;
        } else {
            hidden++;
        }
    }
    if (hidden)
        fprintf(f, "     (%d more VTs with status ok: see summary.json)\n", hidden);
    fprintf(f, "%4s %-16s %-50s %9.0f %8.1f %9.0f %5.0f %-8s %d ok, %d not ok\n", "all", "", "",
            t->ops, t->ops_per_s, t->states, t->discrepancies, "", t->ok, t->failed);
}

static void write_text(const struct swarm *s, const struct totals *t, FILE *f)
{
    char cmd[PATH_MAX + 256];
    fprintf(f, "metis swarm %s: %s, config %s, swarm seed %llu, %d VTs, %.1f s%s", s->id,
            overall(s, t), s->cfg->name, (unsigned long long)s->o.swarm_seed, s->nvts,
            s->t_end - s->t_start, s->halted ? " (stopped at the first discrepancy)" :
            s->interrupted ? " (interrupted)" : "");
    if (hosts_lost(s))
        fprintf(f, ", %d of %d hosts unreachable, not ready or not collected", hosts_lost(s),
                s->nhosts);
    fputc('\n', f);
    text_hosts(s, f);
    text_table(s, t, f);
    swarm_classes_text(s, f);
    for (int i = 0; i < ndiscs && i < 5; i++)
        fprintf(f, "discrepancy: VT %d op %lld fs %s in %s/vt-%d\n", discs[i].vt, discs[i].seq,
                discs[i].fs, s->out, discs[i].vt);
    if (ndiscs > 5)
        fprintf(f, "... %d discrepancies in all: %s/discrepancies.txt\n", ndiscs, s->out);
    rerun_cmd(s, 0, cmd, sizeof cmd);
    fprintf(f, "results in %s; one VT alone: %s (VT 0 shown)\n", s->out, cmd);
    if (swarm_is_bounded(s)) {
        char verdict[1024];
        swarm_bounded_verdict(s, verdict, sizeof verdict);
        fprintf(f, "metis swarm: %s\n", verdict);
    }
}

static void write_disc_list(const struct swarm *s)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/discrepancies.txt", s->out);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "# vt run_dir seq fs detail (replay: metis-replay on the run_dir)\n");
    for (int i = 0; i < ndiscs; i++)
        fprintf(f, "%d %s/vt-%d %lld %s %s\n", discs[i].vt, s->out, discs[i].vt, discs[i].seq,
                discs[i].fs, discs[i].file[0] ? discs[i].file : "-");
    fclose(f);
}

static int exit_code(const struct swarm *s, const struct totals *t)
{
    const char *o = overall(s, t);
    return !strcmp(o, "discrepancy") ? METIS_EXIT_DISCREPANCY
         : !strcmp(o, "interrupted") ? METIS_EXIT_INTERRUPTED
         : !strcmp(o, "failed") ? METIS_EXIT_INFRA : METIS_EXIT_OK;
}

void (*swarm_report_written)(const char *out);

/* One JUnit test suite per VT; a VT that did not end in ok or discrepancy is the run's error. */
static void write_junit(const struct swarm *s)
{
    static struct junit_suite v[SWARM_MAX_VTS];
    static char names[SWARM_MAX_VTS][300], dirs[SWARM_MAX_VTS][PATH_MAX + 16];
    static char logs[SWARM_MAX_VTS][PATH_MAX + 32];
    char err[PATH_MAX + 256];
    for (int i = 0; i < s->nvts; i++) {
        const struct vt_row *r = &rows[i];
        snprintf(names[i], sizeof names[i], "%s vt-%d", s->cfg->name, i);
        snprintf(dirs[i], sizeof dirs[i], "%s/vt-%d", s->out, i);
        snprintf(logs[i], sizeof logs[i], "%s/vt-%d/stderr.txt", s->out, i);
        int fine = !strcmp(r->status, "ok") || !strcmp(r->status, "discrepancy");
        v[i] = (struct junit_suite){ names[i], s->cfg->name, dirs[i], fine ? NULL : r->status,
                                     logs[i], r->hostname[0] ? r->hostname : r->login };
    }
    if (junit_write(s->o.junit, v, s->nvts, err, sizeof err) < 0)
        fprintf(stderr, "metis swarm: --junit: %s\n", err);
}

/* Writes summary.json, summary.txt, discrepancies.txt; prints the table. Returns the exit code. */
int swarm_report(struct swarm *s)
{
    struct totals t;
    char path[PATH_MAX + 32];
    gather(s, &t);
    snprintf(path, sizeof path, "%s/summary.json", s->out);
    FILE *f = fopen(path, "w");
    if (f) {
        write_json(s, &t, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/summary.txt", s->out);
    if ((f = fopen(path, "w"))) {
        write_text(s, &t, f);
        fclose(f);
    }
    write_disc_list(s);
    write_text(s, &t, stdout);
    fflush(stdout);
    if (swarm_report_written)
        swarm_report_written(s->out);
    if (s->o.junit)
        write_junit(s);
    return exit_code(s, &t);
}
