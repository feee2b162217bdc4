/* The reproducer's verdict: exit 1 on the fs under test and 0 on the reference, how often it bites when run again, and why it may not. */
#include "repro_check.h"
#include "triage_io.h"
#include "repro_why.h"
#include "lib/system/helpers.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The reference's name: the first fs run.sh's usage comment lists ("(FS: REF, ..."). */
static void reference_of(const char *script, char *out, size_t len)
{
    char line[512];
    triage_last_line(script, "# usage: run.sh [FS]  (FS: ", line, sizeof line);
    line[strcspn(line, ",;")] = '\0';
    snprintf(out, len, "%.63s", line);
}

/* An exit that says what the reproducer found, not that its run was cut short. */
static int finished(int rc)
{
    return rc >= 0 && rc < 128;
}

/* Runs on the target again while a run as long as the first still fits in the class's spare
 * share: a reproducer that bites only sometimes says how often, not just "does not bite". */
static void run_again(const struct triage *t, struct run_class *c, char *const argv[],
                      const char *log, double took, double stop)
{
    double t0 = now_seconds();
    while (c->runs < REPRO_RUNS && !*t->stop && now_seconds() + took <= stop) {
        int rc = triage_run_child(t, argv, log, stop);
        c->rerun_s = now_seconds() - t0;
        if (!finished(rc))
            break;
        c->runs++;
        c->bites += rc == 1;
    }
}

void repro_check(const struct triage *t, struct run_class *c, double until, double spare,
                 json_object *summary)
{
    char script[PATH_MAX + 96], log[PATH_MAX + 80], ref[64];
    c->exit_target = c->exit_ref = -1;
    c->runs = c->bites = 0;
    if (!c->repro[0] || *t->stop || now_seconds() > until)
        return;
    snprintf(script, sizeof script, "%s/%s", t->out, c->repro);
    snprintf(log, sizeof log, "%s/class-%d.log", t->out, c->id);
    reference_of(script, ref, sizeof ref);
    char *on_target[] = { script, NULL }, *on_ref[] = { script, ref, NULL };
    fprintf(stderr, "metis: running the reproducer of class %d on %s and on %s\n", c->id, c->fs,
            ref);
    double t0 = now_seconds();
    c->exit_target = triage_run_child(t, on_target, log, until);
    double took = now_seconds() - t0, stop = now_seconds() + spare;
    c->runs = finished((int)c->exit_target);
    c->bites = c->exit_target == 1;
    if (!*t->stop && ref[0])
        c->exit_ref = triage_run_child(t, on_ref, log, until);
    if (c->exit_target != 1 && c->runs) {
        fprintf(stderr, "metis: the reproducer of class %d did not bite: running it again\n",
                c->id);
        run_again(t, c, on_target, log, took, stop < until ? stop : until);
    }
    if (c->runs && (c->bites < c->runs || c->exit_ref != 0))
        repro_why(c, summary, ref, c->why, sizeof c->why);
}
