/* `metis known add`, and a run's classes marked new or known against a known file (summary.json's keys; classes.txt follows them). */
#include "known.h"
#include "front/cli/classes/summary_classes.h"
#include "front/cli/classes/class_groups.h"
#include "triage_io.h"
#include "engine/vocab/exits.h"
#include "lib/system/helpers.h"
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int known_open(const char *path, struct known_list *k)
{
    char err[PATH_MAX + 200];
    if (known_load(path, k, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "metis: %s\n", err);
    return -1;
}

void known_json_split(FILE *f, const char *path, const struct known_list *k, const int *seen,
                      int fresh, int known)
{
    char a[2 * PATH_MAX], b[2 * KNOWN_TEXT_MAX], c[2 * KNOWN_TEXT_MAX];
    int first = 1;
    json_escape(path, a, sizeof a);
    fprintf(f, "\"known_file\":\"%s\",\"new_classes\":%d,\"known_classes\":%d,"
            "\"known_not_seen\":[", a, fresh, known);
    for (int i = 0; i < k->n; i++) {
        if (seen[i])
            continue;
        json_escape(k->v[i].signature, a, sizeof a);
        json_escape(k->v[i].note, b, sizeof b);
        json_escape(k->v[i].link, c, sizeof c);
        fprintf(f, "%s{\"signature\":\"%s\",\"note\":\"%s\",\"link\":\"%s\",\"record\":\"%s\"}",
                first ? "" : ",", a, b, c, k->v[i].group ? "group" : "class");
        first = 0;
    }
    fputs("],", f);
}

/* Adds text at the start of the summary's top object; a new string, or NULL. */
static char *insert_top(const char *json, const char *text)
{
    const char *at = strchr(json, '{');
    return at ? classfile_splice(json, (size_t)(at - json) + 1, text) : NULL;
}

/* "known":BOOL,"note":..,"link":.., in class c's object. */
static int mark_class(char **json, const struct run_class *c, const struct known_class *kc)
{
    char text[4 * KNOWN_TEXT_MAX + 64], note[2 * KNOWN_TEXT_MAX], link[2 * KNOWN_TEXT_MAX];
    json_escape(kc ? kc->note : "", note, sizeof note);
    json_escape(kc ? kc->link : "", link, sizeof link);
    snprintf(text, sizeof text, "\"known\":%s,\"note\":\"%s\",\"link\":\"%s\",",
             kc ? "true" : "false", note, link);
    char *n = classfile_insert(*json, c->id, text);
    if (!n)
        return -1;
    free(*json);
    *json = n;
    return 0;
}

static int mark_all(char **json, const struct known_list *k, int *seen, int *fresh, int *known)
{
    struct run_class *v;
    int n = classfile_parse(*json, &v), rc = n < 0 ? -1 : 0;
    for (int j = 0; j < n && rc == 0; j++) {
        int i = known_match(k, v[j].signature, v[j].group);
        if (i >= 0)
            seen[i] = 1;
        *known += i >= 0;
        *fresh += i < 0;
        rc = mark_class(json, &v[j], i >= 0 ? &k->v[i] : NULL);
    }
    free(v);
    return rc;
}

int known_apply_summary(const char *dir, const char *path, const struct known_list *k,
                        int *fresh)
{
    char file[PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    int known = 0, rc = -1;
    *fresh = 0;
    snprintf(file, sizeof file, "%s/summary.json", dir);
    char *json = read_text_file(file, 64 << 20), *top = NULL;
    int *seen = calloc((size_t)k->n + 1, sizeof *seen);
    FILE *f = open_memstream(&text, &len);
    if (json && seen && f && mark_all(&json, k, seen, fresh, &known) == 0) {
        known_json_split(f, path, k, seen, *fresh, known);
        fclose(f);
        f = NULL;
        top = insert_top(json, text);
        rc = top ? triage_write_text(dir, "summary.json", top) : -1;
    }
    if (f)
        fclose(f);
    free(top);
    free(text);
    free(seen);
    free(json);
    return rc;
}

/* ---- metis known add ---- */

static void known_usage(FILE *f)
{
    fprintf(f, "usage: metis known add RUN_DIR|SWARM_DIR [--groups] [--note TEXT] [--link URL] --to FILE\n"
               "Appends each discrepancy class of the run's or swarm's summary.json that FILE\n"
               "does not list yet (FILE is made when missing); with --groups, one record per\n"
               "cause group instead for the classes that share a probable cause.\n"
               "Format: metis(1), KNOWN CLASSES.\n"
               "exit status: 0 done, 2 bad usage, an unreadable run or a malformed FILE\n");
}

/* Newlines would end a record's line early: one line each. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

/* The record that would cover class c: with groups, its cause group's when it has a cause;
 * 0 when k has it already (by that record or its own class record). */
static int record_for(const struct run_class *c, const struct known_list *k, int groups,
                      struct known_class *r)
{
    r->group = groups && class_has_cause(c);
    snprintf(r->signature, sizeof r->signature, "%s", r->group ? c->group : c->signature);
    return known_find(k, c->signature) < 0 &&
           (r->group ? known_find_group(k, r->signature) : known_find(k, r->signature)) < 0;
}

/* How many of the classes k covers already: by their own records, or with groups by their
 * groups' too. */
static int covered(const struct run_class *v, int n, const struct known_list *k, int groups)
{
    int m = 0;
    for (int j = 0; j < n; j++)
        m += (groups ? known_match(k, v[j].signature, v[j].group)
                     : known_find(k, v[j].signature)) >= 0;
    return m;
}

/* Appends the record of each class k does not cover yet to the file to (and to k, so that a
 * group is recorded once): how many, or -1 when the file could not be written. */
static int append_records(const struct run_class *v, int n, const struct known_class *tmpl,
                          int groups, struct known_list *k, const char *to)
{
    char err[PATH_MAX + 200];
    int added = 0;
    for (int j = 0; j < n; j++) {
        struct known_class c = *tmpl;
        if (!record_for(&v[j], k, groups, &c))
            continue;
        if (known_append(to, &c, err, sizeof err) < 0 || known_add(k, &c) < 0) {
            fprintf(stderr, "metis known: %s\n", err);
            return -1;
        }
        added++;
    }
    return added;
}

static int add_classes(const char *dir, const struct known_class *tmpl, const char *to, int groups)
{
    char file[PATH_MAX + 32];
    struct known_list k;
    struct run_class *v;
    snprintf(file, sizeof file, "%s/summary.json", dir);
    char *json = read_text_file(file, 64 << 20);
    int n = classfile_listed(json, &v);
    free(json);
    if (n < 0) {
        fprintf(stderr, "metis known: %s: no readable classes (not a run or swarm directory)\n", file);
        return METIS_EXIT_BAD_INPUT;
    }
    if (access(to, F_OK) == 0 ? known_open(to, &k) < 0 : (memset(&k, 0, sizeof k), 0)) {
        free(v);
        return METIS_EXIT_BAD_INPUT;
    }
    int before = covered(v, n, &k, groups), added = append_records(v, n, tmpl, groups, &k, to);
    if (added >= 0 && groups)
        printf("metis known: %d record%s added to %s, %d class%s covered already\n", added,
               added == 1 ? "" : "s", to, before, before == 1 ? "" : "es");
    else if (added >= 0)
        printf("metis known: %d class%s added to %s, %d already there\n", added,
               added == 1 ? "" : "es", to, before);
    known_free(&k);
    free(v);
    return added < 0 ? METIS_EXIT_INFRA : METIS_EXIT_OK;
}

int known_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"note", required_argument, 0, 'n'}, {"link", required_argument, 0, 'l'},
        {"to", required_argument, 0, 't'},   {"groups", no_argument, 0, 'g'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    struct known_class tmpl;
    const char *to = NULL;
    int c, groups = 0;
    memset(&tmpl, 0, sizeof tmpl);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (c == 'h')
            return known_usage(stdout), METIS_EXIT_OK;
        if (c == '?')
            return known_usage(stderr), METIS_EXIT_BAD_INPUT;
        if (c == 'n')
            snprintf(tmpl.note, sizeof tmpl.note, "%s", optarg);
        else if (c == 'l')
            snprintf(tmpl.link, sizeof tmpl.link, "%s", optarg);
        else if (c == 'g')
            groups = 1;
        else
            to = optarg;
    }
    if (optind + 2 != argc || strcmp(argv[optind], "add") || !to)
        return known_usage(stderr), METIS_EXIT_BAD_INPUT;
    one_line(tmpl.note);
    one_line(tmpl.link);
    return add_classes(argv[optind + 1], &tmpl, to, groups);
}
