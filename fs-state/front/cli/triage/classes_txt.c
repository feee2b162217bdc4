/* classes.txt, what a person reads after a run: one table row per class grouped by probable cause, a line per group, then each class's panel. */
#include "classes_txt.h"
#include "front/cli/classes/class_groups.h"
#include "triage_io.h"
#include "engine/vocab/features.h"
#include "lib/text/buf.h"
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct listing {
    const char *out;            /* the run directory */
    const struct run_class *v;
    int n, have_known;
    int *order, *gid;           /* classes group by group, and each class's group number */
};

/* " [new]", " [known: NOTE]" after a class's line when the run had a known file. */
static void known_mark(FILE *f, const struct listing *l, const struct run_class *c)
{
    if (l->have_known && !c->known)
        fputs(" [new]", f);
    else if (l->have_known)
        fprintf(f, " [known%s%.300s]", c->note[0] ? ": " : "", c->note);
}

/* The first example's operation as its detail file's first line names it (flags by name). */
static void first_operation(FILE *f, const struct listing *l, const struct run_class *c)
{
    char path[PATH_MAX + 80], line[1024];
    snprintf(path, sizeof path, "%s/%s", l->out, c->detail);
    FILE *d = fopen(path, "r");
    if (!d)
        return;
    char *text = fgets(line, sizeof line, d) && !strncmp(line, "operation ", 10) ?
                 strstr(line, ": ") : NULL;
    fclose(d);
    if (text)
        fprintf(f, "  first operation: %s", text + 2);
}

static void describe(FILE *f, const struct listing *l, int k)
{
    const struct run_class *c = &l->v[k];
    fprintf(f, "class %d: %s: %.0f hit%s, first at operation %.0f (%s)", c->id, c->signature,
            c->hits, c->hits == 1 ? "" : "s", c->first_op, c->detail);
    known_mark(f, l, c);
    fputc('\n', f);
    if (class_has_cause(c))
        fprintf(f, "  group: g%d %s\n", l->gid[k], c->group);
    first_operation(f, l, c);
    if (c->trace[0])
        fprintf(f, "  trace: %s (%.0f operations)\n", c->trace, c->trace_ops);
    if (c->start[0])
        fprintf(f, "  starts from: %s; shrinking took %.1f s\n", c->start, c->shrink_s);
    if (c->triage[0])
        fprintf(f, "  triage: %s\n", c->triage);
    if (c->repro[0])
        fprintf(f, "  reproducer: %s (exit 1 while the defect shows)\n", c->repro);
    if (c->why[0])
        fprintf(f, "  why it may not bite: %s\n", c->why);
    if (c->below[0])
        fprintf(f, "  below a known delta: %s\n", c->below);
    if (c->hint[0])
        fprintf(f, "  hint: %s\n", c->hint);
}

/* With a known file: how the classes split, and the known records this run did not find. */
static void known_summary(FILE *f, const struct run_class *v, int n, const char *json)
{
    struct run_class *gone;
    int known = 0, ngone = classfile_not_seen(json, &gone);
    for (int k = 0; k < n; k++)
        known += v[k].known;
    fprintf(f, "%d class%s: %d new, %d known; %d known class%s not seen%s\n", n, n == 1 ? "" : "es",
            n - known, known, ngone > 0 ? ngone : 0, ngone == 1 ? "" : "es", ngone > 0 ? ":" : "");
    for (int k = 0; k < ngone; k++)
        fprintf(f, "  not seen: %s%s%s%.300s\n", gone[k].group_record ? "group " : "",
                gone[k].signature, gone[k].note[0] ? ": " : "", gone[k].note);
    if (ngone > 0)
        free(gone);
}

void classes_txt_verdict(const struct run_class *c, char *out, size_t len)
{
    int bit = c->bites > 0 && c->exit_ref == 0;
    if (c->exit_target < 0)
        snprintf(out, len, "%s", c->repro[0] ? "not run" : "no reproducer");
    else if (c->runs <= 1)
        snprintf(out, len, "%s (%.0f/%.0f)", c->exit_target == 1 && c->exit_ref == 0 ? "bites" :
                 "DOES NOT BITE", c->exit_target, c->exit_ref);
    else                        /* run again: how often it bit, then one run's exits */
        snprintf(out, len, "%s %.0f/%.0f (%.0f/%.0f)", bit ? "bites" : "DOES NOT BITE", c->bites,
                 c->runs, bit ? 1.0 : c->exit_target, c->exit_ref);
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

static void table_row(FILE *f, const struct listing *l, int k, int w)
{
    char hint[40], verdict[96], shrunk[24], group[16];
    const struct run_class *c = &l->v[k];
    hint_short(c->hint, hint, sizeof hint);
    classes_txt_verdict(c, verdict, sizeof verdict);
    snprintf(shrunk, sizeof shrunk, c->trace[0] ? "%.0f" : "-", c->trace_ops);
    snprintf(group, sizeof group, "g%d", l->gid[k]);
    fprintf(f, "%-5d %-*s %-33s %6.0f %8.0f %6s %-14s %-5s %s\n", c->id, w, c->signature, hint,
            c->hits, c->first_op, shrunk, !c->start[0] ? "-" :
            strncmp(c->start, "the saved", 9) ? "initial state" : "saved state", group, verdict);
}

/* The table classes.txt opens with: one row per class, group by group, the signature column
 * as wide as the longest (at least 44, at most the signature's limit). */
static void class_table(FILE *f, const struct listing *l)
{
    int w = 44;
    for (int k = 0; k < l->n; k++)
        if ((int)strlen(l->v[k].signature) > w)
            w = (int)strlen(l->v[k].signature);
    fprintf(f, "%-5s %-*s %-33s %6s %8s %6s %-14s %-5s %s\n", "class", w, "signature", "hint",
            "hits", "first-op", "shrunk", "starts-from", "group",
            "reproducer (exit on target/reference)");
    for (int i = 0; i < l->n; i++)
        table_row(f, l, l->order[i], w);
    fputc('\n', f);
}

/* "g1 lacks:fallocate fuse2fs: 9 classes (1 2 4 ...), 1234 hits: TITLE [known]". */
static void group_line(FILE *f, const struct listing *l, int head)
{
    const struct run_class *h = &l->v[head];
    double hits = 0;
    int members = 0, known = 0;
    fprintf(f, "g%d %s: ", l->gid[head], h->group);
    for (int k = head; k < l->n; k++)
        if (class_group_head(l->v, k) == head) {
            members++;
            hits += l->v[k].hits;
            known += l->v[k].known;
        }
    fprintf(f, "%d class%s (", members, members == 1 ? "" : "es");
    for (int k = head, n = 0; k < l->n; k++)
        if (class_group_head(l->v, k) == head)
            fprintf(f, "%s%d", n++ ? " " : "", l->v[k].id);
    fprintf(f, "), %.0f hit%s: %s", hits, hits == 1 ? "" : "s", h->cause[0] ? h->cause :
            "no cause known");
    if (l->have_known)
        fprintf(f, known == members ? " [known]" : " [%d new]", members - known);
    fputc('\n', f);
}

static void group_lines(FILE *f, const struct listing *l)
{
    int groups = class_groups_count(l->v, l->n);
    fprintf(f, "%d class%s in %d group%s (classes of one probable cause form a group):\n", l->n,
            l->n == 1 ? "" : "es", groups, groups == 1 ? "" : "s");
    for (int k = 0; k < l->n; k++)
        if (class_group_head(l->v, k) == k)
            group_line(f, l, k);
    fputc('\n', f);
}

/* 1 when class k is the first to name a lacks word on its fs. */
static int first_refusal_of_fs(const struct run_class *v, int k)
{
    for (int j = 0; j < k; j++)
        if (v[j].lacks[0] && !strcmp(v[j].fs, v[k].fs))
            return 0;
    return v[k].lacks[0] != 0;
}

/* The words fs declared and the words its refusals name, as bits of the vocabulary. */
static uint64_t lacks_wanted(const struct run_class *v, int n, const char *fs, const char *json)
{
    char declared[600], err[200];
    uint64_t words = 0;
    classfile_declared_lacks(json, fs, declared, sizeof declared);
    if (features_parse(declared, &words, err, sizeof err) < 0)
        words = 0;              /* a summary of another vocabulary: the refusals alone */
    for (int k = 0; k < n; k++) {
        int w = strcmp(v[k].fs, fs) ? -1 : feature_lookup(v[k].lacks);
        if (w >= 0)
            words |= 1ULL << w;
    }
    return words;
}

void classes_txt_lacks(FILE *f, const struct run_class *v, int n, const char *json)
{
    for (int k = 0; k < n; k++) {
        if (!first_refusal_of_fs(v, k))
            continue;
        const char *fs = v[k].fs;
        uint64_t words = lacks_wanted(v, n, fs, json);
        fprintf(f, "%s refused what the reference did; if it lacks that by design, declare in "
                "[fs %s]:\nlacks =", fs, fs);
        for (int w = 0, n = 0; w < features_count(); w++)
            if ((words >> w) & 1)
                fprintf(f, "%s %s", n++ ? "," : "", feature_word(w));
        fputs("\n\n", f);
    }
}

static void write_text(FILE *f, const struct listing *l, const char *json)
{
    if (l->n > 0) {
        class_table(f, l);
        group_lines(f, l);
        classes_txt_lacks(f, l->v, l->n, json);
    }
    for (int i = 0; i < l->n; i++)
        describe(f, l, l->order[i]);
    if (l->have_known)
        known_summary(f, l->v, l->n, json);
}

void classes_txt_write(const char *out, const struct run_class *v, int n, const char *json,
                       int have_known)
{
    char *text = NULL;
    size_t len = 0;
    struct listing l = { out, v, n, have_known, calloc((size_t)n + 1, sizeof(int)),
                         calloc((size_t)n + 1, sizeof(int)) };
    FILE *f = l.order && l.gid ? open_memstream(&text, &len) : NULL;
    if (f) {
        class_groups_order(v, n, l.order, l.gid);
        write_text(f, &l, json);
        fclose(f);
        triage_write_text(out, "classes.txt", text);
        fputs(text, stderr);
    }
    free(text);
    free(l.order);
    free(l.gid);
}
