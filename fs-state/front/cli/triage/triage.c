/* The front end's triage after a run: per discrepancy class, metis-replay shrinks its first example and writes a self-checking reproducer; classes.txt lists the classes. */
#include "triage.h"
#include "triage_io.h"
#include "front/cli/classes/summary_classes.h"
#include "classes_txt.h"
#include "front/cli/classes/class_groups.h"
#include "repro_check.h"
#include "backend/backend.h"
#include "lib/system/spawner.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EMIT_SECONDS 180        /* emit-c replays a short trace once */

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
    int rc = triage_run_child(t, shrink, p->log, now_seconds() + limit + TRIAGE_GRACE_SECONDS);
    c->shrink_s = now_seconds() - t0;
    triage_last_line(p->log, "metis-replay: shrink: starts from ", c->start, sizeof c->start);
    triage_last_line(p->log, "metis-replay: shrink: ", said, sizeof said);
    char *to = strstr(said, ", written to ");
    if (to)
        *to = '\0';            /* the trace's path is in the summary already */
    if (rc == 1 && access(p->trace, R_OK) == 0) {
        snprintf(c->triage, sizeof c->triage, "shrunk %.280s", said);
        return;
    }
    snprintf(c->start, sizeof c->start, "the initial state (the unshrunk trace)");
    triage_last_line(p->log, NULL, said, sizeof said);
    snprintf(c->triage, sizeof c->triage, "not shrunk (shrink exit %d: %.200s); the unshrunk "
             "trace instead", rc, said);
    unlink(p->trace);
    if (*t->stop || triage_run_child(t, trace, p->log, now_seconds() + 60) != 0)
        unlink(p->trace);
}

/* The class a reproducer stands for, beside it: metis-replay recheck finds it by its
 * signature in a copied run, swarm or reproducer directory, or by its cause group's key for a
 * known file's group record. */
static void keep_signature(const char *repro_dir, const struct run_class *c)
{
    char text[sizeof c->signature + sizeof c->group + 2];
    snprintf(text, sizeof text, "%s\n", c->signature);
    triage_write_text(repro_dir, "signature", text);
    snprintf(text, sizeof text, "%s\n", c->group);
    triage_write_text(repro_dir, "group", text);
}

/* An unshrunk trace longer than this gets no reproducer from the triage: emit-c of a 70,600-step
 * archivemount history took 151 s of the triage's bound, and a maintainer reads no such
 * program; the other classes' shrinks get the time instead. */
#define UNSHRUNK_EMIT_MOST 2000

static void emit_class(const struct triage *t, struct run_class *c, struct class_paths *p,
                       double last)
{
    char *emit[] = { p->replay, "emit-c", p->trace, "--config", p->cfg, "--fs", c->fs, "-o",
                     p->repro, NULL };
    char said[300];
    if (access(p->trace, R_OK) != 0 || *t->stop)
        return;
    snprintf(c->trace, sizeof c->trace, "class-%d.trace", c->id);
    c->trace_ops = count_ops(p->trace);
    size_t n = strlen(c->triage);
    if (!strncmp(c->triage, "not shrunk", 10) && c->trace_ops > UNSHRUNK_EMIT_MOST) {
        snprintf(c->triage + n, sizeof c->triage - n, "; no reproducer for %d unshrunk steps "
                 "(over %d; metis-replay emit-c writes one by hand)", (int)c->trace_ops,
                 UNSHRUNK_EMIT_MOST);
        return;
    }
    double until = now_seconds() + EMIT_SECONDS;
    if (triage_run_child(t, emit, p->log, until < last ? until : last) == 0) {
        snprintf(c->repro, sizeof c->repro, "class-%d-repro/run.sh", c->id);
        keep_signature(p->repro, c);
        return;
    }
    triage_last_line(p->log, NULL, said, sizeof said);
    snprintf(c->triage + n, sizeof c->triage - n, "; no reproducer (%.150s)", said);
}

/* Shrinks class c for at most limit seconds and writes its reproducer, which must be written
 * by last (the triage's bound, less a teardown). */
static void triage_class(const struct triage *t, struct run_class *c, double limit, double last)
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
    emit_class(t, c, &p, last);
}

/* ---- what the triage made: summary.json keys and classes.txt ---- */

static void add_keys(char **json, const struct run_class *c)
{
    char text[3200], triage[700], start[400], why[1500];
    json_escape(c->triage, triage, sizeof triage);
    json_escape(c->start, start, sizeof start);
    json_escape(c->why, why, sizeof why);
    snprintf(text, sizeof text, "\"trace\":\"%s\",\"trace_ops\":%.0f,\"repro\":\"%s\","
             "\"triage\":\"%s\",\"trace_start\":\"%s\",\"shrink_s\":%.1f,"
             "\"repro_exit_target\":%.0f,\"repro_exit_reference\":%.0f,\"repro_runs\":%.0f,"
             "\"repro_bites\":%.0f,\"repro_why\":\"%s\",", c->trace, c->trace_ops, c->repro,
             triage, start, c->shrink_s, c->exit_target, c->exit_ref, c->runs, c->bites, why);
    char *n = classfile_insert(*json, c->id, text);
    if (n) {
        free(*json);
        *json = n;
    }
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

/* ---- where the shrink budget pays ---- */

/* A class's unshrunk trace (metis-replay trace), its steps counted: how much replaying it once
 * costs, before any budget goes to it. -1 when it cannot be written. */
static long unshrunk_steps(const struct triage *t, const struct run_class *c)
{
    static struct class_paths p;
    snprintf(p.replay, sizeof p.replay, "%s/metis-replay", t->bindir);
    snprintf(p.detail, sizeof p.detail, "%s/%s", t->out, c->detail);
    snprintf(p.trace, sizeof p.trace, "%s/class-%d.trace", t->out, c->id);
    snprintf(p.log, sizeof p.log, "%s/class-%d.log", t->out, c->id);
    char *trace[] = { p.replay, "trace", p.detail, "--fs", (char *)c->fs, "-o", p.trace, NULL };
    if (*t->stop || triage_run_child(t, trace, p.log, now_seconds() + 30) != 0)
        return -1;
    return count_ops(p.trace);
}

#define PLAN_SHARE 4          /* planning measures traces for at most 1/4 of the pool */
#define SHRINK_FLOOR 3.0        /* a class's least share on a target whose sessions start fast */
#define FLOOR_STARTS 4.0        /* ... else this many session starts: the session's own, and
                                   the fresh mounts of a slice and the first suffixes (each
                                   candidate from the initial state mounts a history's target
                                   afresh) */
#define NEED_MOST 30.0          /* a long trace's own need is counted up to this */

struct shrink_plan {
    int k;                      /* the class's index */
    int pass;                   /* 1: its group's first class; 2: a later one of its group */
    long steps;                 /* its unshrunk trace's steps (-1: unknown, planned last) */
};

static int by_pass_and_steps(const void *a, const void *b)
{
    const struct shrink_plan *x = a, *y = b;
    long sx = x->steps < 0 ? LONG_MAX : x->steps, sy = y->steps < 0 ? LONG_MAX : y->steps;
    if (x->pass != y->pass)
        return x->pass - y->pass;
    return sx != sy ? (sx > sy) - (sx < sy) : x->k - y->k;
}

/* The order the classes are shrunk in: first one class of each cause group (its first found),
 * so that every group gets a shrunk trace before any gets a second, then the rest. Within a
 * pass, the shortest unshrunk traces first, so that what they leave of their share goes on to
 * the long ones, instead of a long one spending its share on a replay that cannot end and the
 * rest getting none. Measuring a trace replays it, so it stops at a quarter of the pool: a
 * run of a hundred classes on a slow daemon spent all of it measuring; the classes left
 * unmeasured go last in their pass, in the order found (later found, longer). A target
 * failure needs no plan. */
static struct shrink_plan *plan_shrinks(const struct triage *t, const struct run_class *v, int n)
{
    struct shrink_plan *plan = calloc((size_t)(n > 0 ? n : 1), sizeof *plan);
    double until = now_seconds() + t->seconds / PLAN_SHARE;
    for (int k = 0; plan && k < n; k++) {
        plan[k].k = k;
        plan[k].pass = class_group_head(v, k) == k ? 1 : 2;
        plan[k].steps = is_target_failure(&v[k]) ? 0
                        : now_seconds() < until ? unshrunk_steps(t, &v[k]) : -1;
    }
    if (plan)
        qsort(plan, (size_t)n, sizeof *plan, by_pass_and_steps);
    return plan;
}

/* The triage's time. shrink_seconds is a pool shared among the classes as before, but no
 * class gets less than the floor: one shared pool left 159 of 188 classes of four first runs
 * without a try, and on cryfs a session start alone (a mount: 15.7 s at a load average of 5)
 * outlasted a class's share, so that every try was lost. The floors may take the triage past
 * the pool, up to the larger of shrink_seconds and shrink_max_seconds, said when it starts. */
struct budget {
    double pool_end;            /* when shrink_seconds is spent */
    double end;                 /* the triage's bound: no shrink starts or runs past it */
    double most;                /* its length, in seconds */
    double floor;               /* a class's least share */
    double start_s;             /* the slowest session start a shrink reported (0: none yet) */
    double per_step;            /* the slowest pace of steps a shrink reported (0: none yet) */
    int shrinkable;             /* classes the triage may shrink (not set-up or target failures) */
};

static int shrinkable(const struct run_class *c)
{
    return strncmp(c->signature, "setup ", 6) && !is_target_failure(c);
}

static void budget_start(struct budget *b, const struct triage *t, const struct run_class *v,
                         int n)
{
    double now = now_seconds();
    b->most = t->seconds > t->max_seconds ? t->seconds : t->max_seconds;
    b->pool_end = now + t->seconds;
    b->end = now + b->most;
    b->floor = SHRINK_FLOOR;
    b->start_s = 0;
    b->shrinkable = 0;
    for (int k = 0; k < n; k++)
        b->shrinkable += shrinkable(&v[k]);
    fprintf(stderr, "metis: triage: shrinking %d class%s, shrink_seconds (%g) shared and each "
            "class at least %g s (%g session starts where a target starts slower), at most %g s "
            "in all (shrink_max_seconds), then their reproducers' first runs, at most %g s\n",
            b->shrinkable, b->shrinkable == 1 ? "" : "es", t->seconds, SHRINK_FLOOR,
            FLOOR_STARTS, b->most, t->seconds > EMIT_SECONDS ? t->seconds : EMIT_SECONDS);
}

/* What a shrink said its session start and its steps took (shrink.c's say_costs) raises the
 * floor and the pace a trace's need is counted at: a share that cannot pay for a session start
 * and a few fresh mounts is spent for nothing. 1 when the floor rose. */
static int budget_learn(struct budget *b, const struct triage *t, const struct run_class *c)
{
    char log[PATH_MAX + 80], said[300];
    double start = 0, step_s = 0;
    size_t steps = 0;
    snprintf(log, sizeof log, "%s/class-%d.log", t->out, c->id);
    triage_last_line(log, "metis-replay: shrink: session start ", said, sizeof said);
    if (sscanf(said, "%lf s; %zu steps %lf s", &start, &steps, &step_s) < 1)
        return 0;
    if (steps >= 100 && step_s / (double)steps > b->per_step)
        b->per_step = step_s / (double)steps;
    if (start <= b->start_s)
        return 0;
    b->start_s = start;
    if (FLOOR_STARTS * start <= b->floor)
        return 0;
    b->floor = FLOOR_STARTS * start;
    fprintf(stderr, "metis: triage: a session start took %.1f s (class %d): each class gets at "
            "least %.0f s from now\n", start, c->id, b->floor);
    return 1;
}

/* What shrinking a trace of steps steps needs at the pace learnt so far: the steps of a ddmin
 * and the single removals (about steps (1 + log2 steps) a round, a few rounds), up to
 * NEED_MOST; the floor when the pace or the length is not known. The long histories of a
 * {dir}-backed daemon (mhddfs: 243 to 577 steps at about 1.2 ms a step) stopped at 57 to 528
 * operations in a share of 3 s. */
static double need_of(const struct budget *b, long steps)
{
    double lg = 0;
    for (long k = steps; k > 1; k >>= 1)
        lg += 1;
    double need = b->per_step * (double)steps * (1 + lg) * 4;
    need = need < NEED_MOST ? need : NEED_MOST;
    return need > b->floor ? need : b->floor;
}

/* How many of plan[j..n-1] are in plan[j]'s pass: the classes its share is counted among. */
static int left_in_pass(const struct shrink_plan *plan, int j, int n)
{
    int m = 0;
    for (int i = j; i < n; i++)
        m += plan[i].pass == plan[j].pass;
    return m;
}

/* Class plan[j]'s share: an equal share of the pool left among the rest of its pass, but at
 * least what its trace needs (need_of: the floor at least), and never past the triage's bound
 * (a teardown's grace before it: a quarter of a short bound). */
static double share_of(const struct budget *b, const struct shrink_plan *plan, int j, int n)
{
    double now = now_seconds(), need = need_of(b, plan[j].steps);
    double share = (b->pool_end - now) / left_in_pass(plan, j, n);
    double grace = b->most / 4 < TRIAGE_GRACE_SECONDS ? b->most / 4 : TRIAGE_GRACE_SECONDS;
    double cap = b->end - grace - now;
    share = share > need ? share : need;
    return share < cap ? share : cap;
}

/* The line of a class the bound did not reach: the pass it was in and what came first. */
static void say_no_budget(const struct budget *b, struct run_class *c,
                          const struct shrink_plan *plan, int j)
{
    int firsts = 0;
    for (int i = 0; i < j; i++)
        firsts += plan[i].pass == 1;
    char steps[48] = "not measured", start[64] = "";
    if (plan[j].steps >= 0)
        snprintf(steps, sizeof steps, "%ld steps", plan[j].steps);
    if (b->floor > SHRINK_FLOOR)
        snprintf(start, sizeof start, " (a session start here: %.1f s)", b->start_s);
    snprintf(c->triage, sizeof c->triage, "not shrunk: the triage's bound (%g s, "
             "shrink_max_seconds) came first: %d classes before it (pass %d), each at least "
             "%.0f s%s; its own trace: %s; metis-replay shrink %s does it by hand", b->most,
             plan[j].pass == 1 ? firsts : j, plan[j].pass, b->floor, start, steps, c->detail);
}

/* Each class's reproducer on the target and the reference. The first runs get as long as the
 * shrinking had (at least EMIT_SECONDS), not per class: a run of many classes ends in bounded
 * time, later classes marked "not run". Runs again of one that did not bite come out of what
 * its class's share (an equal one of shrink_seconds, or the floor) left unspent, and of what
 * the shrinking left of the triage's bound (left), so that shrinking and runs again stay
 * within it. */
static void check_all(const struct triage *t, const struct budget *b, struct run_class *v,
                      int n, const char *json)
{
    double until = now_seconds() + (t->seconds > EMIT_SECONDS ? t->seconds : EMIT_SECONDS);
    double left = b->end - now_seconds();
    double share = t->seconds / n > b->floor ? t->seconds / n : b->floor;
    json_object *summary = rj_parse(json);
    for (int k = 0; k < n; k++) {
        double spare = share - v[k].shrink_s;
        spare = spare < left ? spare : left;
        repro_check(t, &v[k], until, spare > 0 ? spare : 0, summary);
        left -= v[k].rerun_s;
    }
    json_object_put(summary);
}

/* Class plan[j]: shrunk within its share, or the one line that says why not. */
static void triage_planned(const struct triage *t, struct budget *b, struct run_class *v,
                           const struct shrink_plan *plan, int j, int n)
{
    struct run_class *c = &v[plan[j].k];
    if (!strncmp(c->signature, "setup ", 6)) {
        snprintf(c->triage, sizeof c->triage, "not shrunk: set-up adapted to it before any "
                 "operation, so no trace shows it; its detail file (%s) says what set-up did",
                 c->detail);
        return;
    }
    if (is_target_failure(c)) {
        snprintf(c->triage, sizeof c->triage, "not shrunk: the target failed (%s); its detail "
                 "file names the state and the operation", c->detail);
        return;
    }
    double limit = share_of(b, plan, j, n);
    if (limit < 1) {
        say_no_budget(b, c, plan, j);
        return;
    }
    fprintf(stderr, "metis: shrinking class %d (%s, pass %d, %ld steps unshrunk) for at most "
            "%.0f s\n", c->id, c->signature, plan[j].pass, plan[j].steps, limit);
    triage_class(t, c, limit, b->end);
    /* The first class on a slow target pays for learning its session start: once, it is
     * shrunk again with the floor that start set. */
    if (budget_learn(b, t, c) && !strncmp(c->triage, "not shrunk", 10) &&
        share_of(b, plan, j, n) > limit) {
        limit = share_of(b, plan, j, n);
        fprintf(stderr, "metis: shrinking class %d again for at most %.0f s\n", c->id, limit);
        triage_class(t, c, limit, b->end);
    }
}

int triage_run(const struct triage *t)
{
    char path[PATH_MAX + 32];
    struct run_class *v;
    struct budget b = { 0 };
    snprintf(path, sizeof path, "%s/summary.json", t->out);
    char *json = read_text_file(path, 64 << 20);
    int n = classfile_parse(json, &v);
    if (t->seconds > 0 && n > 0)
        budget_start(&b, t, v, n);
    struct shrink_plan *plan = t->seconds > 0 && n > 0 ? plan_shrinks(t, v, n) : NULL;
    for (int j = 0; plan && j < n && !*t->stop; j++)
        triage_planned(t, &b, v, plan, j, n);
    free(plan);
    if (t->seconds > 0 && n > 0)
        check_all(t, &b, v, n, json);
    for (int k = 0; k < n && t->seconds > 0; k++)
        add_keys(&json, &v[k]);
    if (n > 0 && t->seconds > 0)
        triage_write_text(t->out, "summary.json", json);
    if (n > 0 || t->have_known)
        classes_txt_write(t->out, v, n > 0 ? n : 0, json, t->have_known);
    free(json);
    free(v);
    return *t->stop ? -1 : 0;
}
