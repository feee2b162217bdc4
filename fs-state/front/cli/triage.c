/* The front end's triage after a run: per discrepancy class, metis-replay shrinks its first example and writes a self-checking reproducer; classes.txt lists the classes. */
#include "triage.h"
#include "summary_classes.h"
#include "backend/backend.h"
#include "lib/spawner.h"
#include "lib/helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GRACE_SECONDS 30        /* a replay's teardown after its time limit */
#define EMIT_SECONDS 180        /* emit-c replays a short trace once */

/* Runs argv in its own process group with its output appended to log; stopped (SIGTERM, then
 * SIGKILL) at the deadline or when the front end is signalled. Its exit status, 128+N for
 * signal N, SPAWN_CANNOT_RUN if it could not start (the reason in log), -1 if it was lost. */
static int run_child(const struct triage *t, char *const argv[], const char *log, double deadline)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct spawn_how how = { .out_fd = fd, .flags = SPAWN_OWN_GROUP };
    pid_t pid = spawn_start(argv, &how);
    if (pid < 0) {
        dprintf(fd >= 0 ? fd : 2, "metis: cannot run %s: %s\n", argv[0], strerror(errno));
        if (fd >= 0)
            close(fd);
        return SPAWN_CANNOT_RUN;
    }
    if (fd >= 0)
        close(fd);
    *t->child = pid;
    struct spawn_limits lim = { .deadline = deadline, .grace = GRACE_SECONDS, .stop = t->stop };
    int rc = spawn_wait_limited(pid, &lim);
    *t->child = 0;
    backend_sweep(t->run_id);
    return rc;
}

/* The last line of file that starts with prefix (without its newline), or "". */
static void last_line(const char *file, const char *prefix, char *out, size_t len)
{
    char line[1024];
    FILE *f = fopen(file, "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (!prefix || strncmp(line, prefix, strlen(prefix)) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, len, "%.*s", (int)len - 1, line + (prefix ? strlen(prefix) : 0));
        }
    if (f)
        fclose(f);
}

/* The trace's steps after its start record (those before it recreate a saved state): its
 * operations, and a history's restore calls (replayer/TRACE.md). */
static int count_ops(const char *trace)
{
    char line[256];
    int n = 0, whole = 1;
    FILE *f = fopen(trace, "r");
    while (f && fgets(line, sizeof line, f)) {
        /* a call's line may be longer than line: count it once, at its start */
        if (whole)
            n += strncmp(line, "op ", 3) == 0 || strncmp(line, "call ", 5) == 0;
        whole = strchr(line, '\n') != NULL;
        if (strncmp(line, "start ", 6) == 0)
            n = 0;
    }
    if (f)
        fclose(f);
    return n;
}

struct class_paths {
    char replay[PATH_MAX], detail[PATH_MAX + 80], trace[PATH_MAX + 80], log[PATH_MAX + 80];
    char repro[PATH_MAX + 80], cfg[PATH_MAX + 80], secs[32];
};

/* Shrinks the class's first example; on failure the unshrunk trace (the search path, or a
 * target's history) stands in. */
static void shrink_class(const struct triage *t, struct run_class *c, struct class_paths *p,
                         double limit)
{
    char *shrink[] = { p->replay, "shrink", p->detail, "--config", p->cfg, "--fs", c->fs,
                       "--seconds", p->secs, "-o", p->trace, NULL };
    char *trace[] = { p->replay, "trace", p->detail, "--fs", c->fs, "-o", p->trace, NULL };
    char said[300];
    double t0 = now_seconds();
    snprintf(p->secs, sizeof p->secs, "%.1f", limit);
    int rc = run_child(t, shrink, p->log, now_seconds() + limit + GRACE_SECONDS);
    c->shrink_s = now_seconds() - t0;
    last_line(p->log, "metis-replay: shrink: starts from ", c->start, sizeof c->start);
    last_line(p->log, "metis-replay: shrink: ", said, sizeof said);
    char *to = strstr(said, ", written to ");
    if (to)
        *to = '\0';            /* the trace's path is in the summary already */
    if (rc == 1 && access(p->trace, R_OK) == 0) {
        snprintf(c->triage, sizeof c->triage, "shrunk %.280s", said);
        return;
    }
    snprintf(c->start, sizeof c->start, "the initial state (the unshrunk trace)");
    last_line(p->log, NULL, said, sizeof said);
    snprintf(c->triage, sizeof c->triage, "not shrunk (shrink exit %d: %.200s); the unshrunk "
             "trace instead", rc, said);
    unlink(p->trace);
    if (*t->stop || run_child(t, trace, p->log, now_seconds() + 60) != 0)
        unlink(p->trace);
}

/* The class a reproducer stands for, beside it: metis-replay recheck finds it by its
 * signature in a copied run, swarm or reproducer directory. */
static void keep_signature(const char *repro_dir, const char *signature)
{
    char text[sizeof ((struct run_class *)0)->signature + 2];
    snprintf(text, sizeof text, "%s\n", signature);
    triage_write_text(repro_dir, "signature", text);
}

static void emit_class(const struct triage *t, struct run_class *c, struct class_paths *p)
{
    char *emit[] = { p->replay, "emit-c", p->trace, "--config", p->cfg, "--fs", c->fs, "-o",
                     p->repro, NULL };
    char said[300];
    if (access(p->trace, R_OK) != 0 || *t->stop)
        return;
    snprintf(c->trace, sizeof c->trace, "class-%d.trace", c->id);
    c->trace_ops = count_ops(p->trace);
    if (run_child(t, emit, p->log, now_seconds() + EMIT_SECONDS) == 0) {
        snprintf(c->repro, sizeof c->repro, "class-%d-repro/run.sh", c->id);
        keep_signature(p->repro, c->signature);
        return;
    }
    last_line(p->log, NULL, said, sizeof said);
    size_t n = strlen(c->triage);
    snprintf(c->triage + n, sizeof c->triage - n, "; no reproducer (%.150s)", said);
}

static void triage_class(const struct triage *t, struct run_class *c, double limit)
{
    static struct class_paths p;
    snprintf(p.replay, sizeof p.replay, "%s/metis-replay", t->bindir);
    snprintf(p.detail, sizeof p.detail, "%s/%s", t->out, c->detail);
    snprintf(p.trace, sizeof p.trace, "%s/class-%d.trace", t->out, c->id);
    snprintf(p.log, sizeof p.log, "%s/class-%d.log", t->out, c->id);
    snprintf(p.repro, sizeof p.repro, "%s/class-%d-repro", t->out, c->id);
    snprintf(p.cfg, sizeof p.cfg, "%s/config.ini", t->out);
    if (access(p.replay, X_OK) != 0) {
        snprintf(c->triage, sizeof c->triage, "not shrunk: no %.250s", p.replay);
        return;
    }
    FILE *lf = fopen(p.log, "w");   /* each class's log starts empty */
    if (lf)
        fclose(lf);
    shrink_class(t, c, &p, limit);
    emit_class(t, c, &p);
}

/* The reference's name: the first fs run.sh's usage comment lists ("(FS: REF, ..."). */
static void reference_of(const char *script, char *out, size_t len)
{
    char line[512];
    last_line(script, "# usage: run.sh [FS]  (FS: ", line, sizeof line);
    line[strcspn(line, ",;")] = '\0';
    snprintf(out, len, "%.63s", line);
}

/* Runs the class's reproducer once on the fs under test and once on the reference, after the
 * shrinking, until the verdicts' deadline: it should exit 1 and 0. */
static void check_repro(const struct triage *t, struct run_class *c, double until)
{
    char script[PATH_MAX + 96], log[PATH_MAX + 80], ref[64];
    c->exit_target = c->exit_ref = -1;
    if (!c->repro[0] || *t->stop || now_seconds() > until)
        return;
    snprintf(script, sizeof script, "%s/%s", t->out, c->repro);
    snprintf(log, sizeof log, "%s/class-%d.log", t->out, c->id);
    reference_of(script, ref, sizeof ref);
    char *on_target[] = { script, NULL }, *on_ref[] = { script, ref, NULL };
    fprintf(stderr, "metis: running the reproducer of class %d on %s and on %s\n", c->id, c->fs,
            ref);
    c->exit_target = run_child(t, on_target, log, until);
    if (!*t->stop && ref[0])
        c->exit_ref = run_child(t, on_ref, log, until);
}

/* ---- what the triage made: summary.json keys and classes.txt ---- */

static void add_keys(char **json, const struct run_class *c)
{
    char text[1600], triage[700], start[400];
    json_escape(c->triage, triage, sizeof triage);
    json_escape(c->start, start, sizeof start);
    snprintf(text, sizeof text, "\"trace\":\"%s\",\"trace_ops\":%.0f,\"repro\":\"%s\","
             "\"triage\":\"%s\",\"trace_start\":\"%s\",\"shrink_s\":%.1f,"
             "\"repro_exit_target\":%.0f,\"repro_exit_reference\":%.0f,", c->trace, c->trace_ops,
             c->repro, triage, start, c->shrink_s, c->exit_target, c->exit_ref);
    char *n = classfile_insert(*json, c->id, text);
    if (n) {
        free(*json);
        *json = n;
    }
}

int triage_write_text(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fputs(text, f);
    if (fclose(f) == 0 && rename(tmp, path) == 0)
        return 0;
    unlink(tmp);
    return -1;
}

/* " [new]", " [known: NOTE]" after a class's line when the run had a known file. */
static void known_mark(FILE *f, const struct triage *t, const struct run_class *c)
{
    if (t->have_known && !c->known)
        fputs(" [new]", f);
    else if (t->have_known)
        fprintf(f, " [known%s%.300s]", c->note[0] ? ": " : "", c->note);
}

/* The first example's operation as its detail file's first line names it (flags by name). */
static void first_operation(FILE *f, const struct triage *t, const struct run_class *c)
{
    char path[PATH_MAX + 80], line[1024];
    snprintf(path, sizeof path, "%s/%s", t->out, c->detail);
    FILE *d = fopen(path, "r");
    if (!d)
        return;
    char *text = fgets(line, sizeof line, d) && !strncmp(line, "operation ", 10) ?
                 strstr(line, ": ") : NULL;
    fclose(d);
    if (text)
        fprintf(f, "  first operation: %s", text + 2);
}

static void describe(FILE *f, const struct triage *t, const struct run_class *c)
{
    fprintf(f, "class %d: %s: %.0f hit%s, first at operation %.0f (%s)", c->id, c->signature,
            c->hits, c->hits == 1 ? "" : "s", c->first_op, c->detail);
    known_mark(f, t, c);
    fputc('\n', f);
    first_operation(f, t, c);
    if (c->trace[0])
        fprintf(f, "  trace: %s (%.0f operations)\n", c->trace, c->trace_ops);
    if (c->start[0])
        fprintf(f, "  starts from: %s; shrinking took %.1f s\n", c->start, c->shrink_s);
    if (c->triage[0])
        fprintf(f, "  triage: %s\n", c->triage);
    if (c->repro[0])
        fprintf(f, "  reproducer: %s (exit 1 while the defect shows)\n", c->repro);
    if (c->hint[0])
        fprintf(f, "  hint: %s\n", c->hint);
}

/* With a known file: how the classes split, and the known ones this run did not find. */
static void known_summary(FILE *f, const struct run_class *v, int n, const char *json)
{
    struct run_class *gone;
    int known = 0, ngone = classfile_not_seen(json, &gone);
    for (int k = 0; k < n; k++)
        known += v[k].known;
    fprintf(f, "%d class%s: %d new, %d known; %d known class%s not seen%s\n", n, n == 1 ? "" : "es",
            n - known, known, ngone > 0 ? ngone : 0, ngone == 1 ? "" : "es", ngone > 0 ? ":" : "");
    for (int k = 0; k < ngone; k++)
        fprintf(f, "  not seen: %s%s%.300s\n", gone[k].signature, gone[k].note[0] ? ": " : "",
                gone[k].note);
    if (ngone > 0)
        free(gone);
}

/* "bites" when the reproducer exits 1 on the fs under test and 0 on the reference. */
static void verdict_text(const struct run_class *c, char *out, size_t len)
{
    if (c->exit_target < 0)
        snprintf(out, len, "%s", c->repro[0] ? "not run" : "no reproducer");
    else
        snprintf(out, len, "%s (%.0f/%.0f)", c->exit_target == 1 && c->exit_ref == 0 ? "bites" :
                 "DOES NOT BITE", c->exit_target, c->exit_ref);
}

/* The hint's first words, for the table; the whole hint is in the class's panel below. */
static void hint_short(const char *hint, char *out, size_t len)
{
    size_t n = strcspn(hint, ":;,.(");
    if (!hint[0])
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%.*s%s", (int)(n < 30 ? n : 30), hint, n > 30 ? "..." : "");
}

/* The table classes.txt opens with: one row per class, the signature column as wide as the
 * longest (at least 44, at most the signature's limit). */
static void class_table(FILE *f, const struct run_class *v, int n)
{
    char hint[40], verdict[64], shrunk[24];
    int w = 44;
    for (int k = 0; k < n; k++)
        if ((int)strlen(v[k].signature) > w)
            w = (int)strlen(v[k].signature);
    fprintf(f, "%-5s %-*s %-33s %6s %8s %6s %-14s %s\n", "class", w, "signature", "hint", "hits",
            "first-op", "shrunk", "starts-from", "reproducer (exit on target/reference)");
    for (int k = 0; k < n; k++) {
        const struct run_class *c = &v[k];
        hint_short(c->hint, hint, sizeof hint);
        verdict_text(c, verdict, sizeof verdict);
        snprintf(shrunk, sizeof shrunk, c->trace[0] ? "%.0f" : "-", c->trace_ops);
        fprintf(f, "%-5d %-*s %-33s %6.0f %8.0f %6s %-14s %s\n", c->id, w, c->signature, hint,
                c->hits, c->first_op, shrunk, !c->start[0] ? "-" :
                strncmp(c->start, "the saved", 9) ? "initial state" : "saved state", verdict);
    }
    fputc('\n', f);
}

static void write_classes_txt(const struct triage *t, const struct run_class *v, int n,
                              const char *json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    if (n > 0)
        class_table(f, v, n);
    for (int k = 0; k < n; k++)
        describe(f, t, &v[k]);
    if (t->have_known)
        known_summary(f, v, n, json);
    fclose(f);
    triage_write_text(t->out, "classes.txt", text);
    fputs(text, stderr);
    free(text);
}

/* A target that died, hung or could not bring a state back is no difference of outcomes that
 * a shorter trace shows: its detail file names the state and the operation instead. */
static int is_target_failure(const struct run_class *c)
{
    return !strncmp(c->signature, "daemon-died ", 12) || !strncmp(c->signature, "hang ", 5) ||
           !strncmp(c->signature, "restore-unreachable ", 20) ||
           !strncmp(c->signature, "unreadable ", 11) ||
           !strncmp(c->signature, "unmount-failed ", 15);
}

int triage_classes_found(const char *out)
{
    char path[PATH_MAX + 32];
    struct run_class *v = NULL;
    snprintf(path, sizeof path, "%s/summary.json", out);
    char *json = read_text_file(path, 64 << 20);
    int n = json ? classfile_parse(json, &v) : 0;
    free(json);
    free(v);
    return n > 0 ? n : 0;
}

int triage_run(const struct triage *t)
{
    char path[PATH_MAX + 32];
    struct run_class *v;
    snprintf(path, sizeof path, "%s/summary.json", t->out);
    char *json = read_text_file(path, 64 << 20);
    int n = classfile_parse(json, &v);
    double end = now_seconds() + t->seconds;
    for (int k = 0; k < n && t->seconds > 0 && !*t->stop; k++) {
        double limit = (end - now_seconds()) / (n - k);
        if (is_target_failure(&v[k])) {
            snprintf(v[k].triage, sizeof v[k].triage, "not shrunk: the target failed (%s); "
                     "its detail file names the state and the operation", v[k].detail);
            continue;
        }
        if (limit < 1) {
            snprintf(v[k].triage, sizeof v[k].triage, "not shrunk: shrink_seconds (%g) used up "
                     "(metis-replay shrink %s)", t->seconds, v[k].detail);
            continue;
        }
        fprintf(stderr, "metis: shrinking class %d (%s) for at most %.0f s\n", v[k].id,
                v[k].signature, limit);
        triage_class(t, &v[k], limit);
    }
    /* The verdicts get as long as the shrinking had (at least EMIT_SECONDS), not per class:
     * a run of many classes ends in bounded time, later classes marked "not run". */
    double until = now_seconds() + (t->seconds > EMIT_SECONDS ? t->seconds : EMIT_SECONDS);
    for (int k = 0; k < n && t->seconds > 0; k++)
        check_repro(t, &v[k], until);
    for (int k = 0; k < n && t->seconds > 0; k++)
        add_keys(&json, &v[k]);
    if (n > 0 && t->seconds > 0)
        triage_write_text(t->out, "summary.json", json);
    if (n > 0 || t->have_known)
        write_classes_txt(t, v, n, json);
    free(json);
    free(v);
    return *t->stop ? -1 : 0;
}
