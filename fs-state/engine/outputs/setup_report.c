/* What set-up adapted to on a target (a root attribute kept or refused, directory links not counted): a class of its own each, logged, counted and described before the first operation. */
#include "engine/outputs/setup_report.h"
#include "engine/classify/causes.h"
#include "engine/classify/setup_class.h"
#include "engine/records/log.h"
#include <stdio.h>
#include <string.h>

static void describe_setup(FILE *f, const struct dclass *c, const char *line)
{
    fprintf(f, "set-up (before any operation)\n%s\n", line);
    if (c->hint[0])
        fprintf(f, "hint: %s\n", c->hint);
    fprintf(f, "the run goes on from the adapted state: %s\n",
            c->attr == TREE_DIFF_NLINK
                ? "directories' link counts are not compared (lacks = dir_nlink, as if declared)"
                : "the reference's root has the fs's attribute");
}

static void report_note(struct engine *e, const struct setup_note *n)
{
    char path[1200], line[2000];
    const char *fs = e->cfg.fs[n->fs].name;
    struct dclass c;
    int fresh;
    classes_setup(&e->cfg, n, &c);
    causes_assign(&c, fs, NULL);
    e->discrepancies++;
    /* Not a `discrepancy` record: no trace holds set-up, so a replay's initial state agrees. */
    log_line("setup 0 fs=%s attr=%s reference=%s value=%s", fs, n->attr, n->ref, n->other);
    int k = classes_add(&e->classes, &c, 0, 0, &fresh);
    if (k < 0)
        return;
    struct dclass *cl = &e->classes.v[k];
    log_line("class 0 fs=%s id=%d new=%d hits=%llu signature=%s", fs, cl->id, fresh,
             (unsigned long long)cl->hits, cl->signature);
    if (!fresh)
        return;
    snprintf(path, sizeof path, "%s/discrepancy-%u.txt", e->out_dir, ++e->classes.details);
    snprintf(cl->detail, sizeof cl->detail, "%s", strrchr(path, '/') + 1);
    classes_describe(cl, &e->cfg, line, sizeof line);
    fprintf(stderr, "metis: set-up adapted to fs %s (details in %s): %s%s\n", fs, path, line,
            engine_class_known(e, k) ? " [known]" : "");
    FILE *f = fopen(path, "w");
    if (f) {
        describe_setup(f, cl, line);
        fclose(f);
    }
}

void setup_report(struct engine *e)
{
    for (int j = 0; j < e->g.setup.n; j++)
        report_note(e, &e->g.setup.v[j]);
    log_flush();
}
