/* The cause groups of report.html: read from summary.json's "groups", listed one row each, and the grouped order of the class table. */
#include "group_table.h"
#include "front/report/html/html.h"
#include <string.h>

/* The index in classes of the class with id, or -1. */
static long class_index(json_object *classes, int id)
{
    for (size_t i = 0; i < json_object_array_length(classes); i++)
        if (rj_num(json_object_array_get_idx(classes, i), "class", -1) == id)
            return (long)i;
    return -1;
}

/* Places the classes group g names that are not placed yet; returns the new count. */
static size_t place_group(json_object *classes, json_object *ids, int g, size_t at,
                          size_t *order, int *gid)
{
    for (size_t j = 0; ids && j < json_object_array_length(ids); j++) {
        long i = class_index(classes, json_object_get_int(json_object_array_get_idx(ids, j)));
        if (i >= 0 && !gid[i]) {
            order[at++] = (size_t)i;
            gid[i] = g;
        }
    }
    return at;
}

int group_order(json_object *classes, json_object *groups, size_t *order, int *gid)
{
    size_t n = json_object_array_length(classes), at = 0;
    int g = 0;
    memset(gid, 0, n * sizeof *gid);
    for (size_t k = 0; groups && k < json_object_array_length(groups); k++) {
        size_t before = at;
        at = place_group(classes, rj_get(json_object_array_get_idx(groups, k), "classes"), g + 1,
                         at, order, gid);
        g += at > before;
    }
    for (size_t i = 0; i < n; i++)
        if (!gid[i]) {
            order[at++] = i;
            gid[i] = ++g;
        }
    return g;
}

/* "all known", "N new" or "" without a known file: how the known file covers the group. */
static void known_cell(json_object *classes, json_object *ids, char *out, size_t len)
{
    int members = 0, known = 0, marked = 0;
    for (size_t j = 0; ids && j < json_object_array_length(ids); j++) {
        long i = class_index(classes, json_object_get_int(json_object_array_get_idx(ids, j)));
        json_object *c = i >= 0 ? json_object_array_get_idx(classes, (size_t)i) : NULL;
        members++;
        known += rj_true(c, "known");
        marked += rj_get(c, "known") != NULL;
    }
    if (!marked)
        snprintf(out, len, "-");
    else if (known == members)
        snprintf(out, len, "all known");
    else
        snprintf(out, len, "%d new", members - known);
}

static void group_row(FILE *f, json_object *classes, json_object *g, int number)
{
    char known[32];
    json_object *ids = rj_get(g, "classes");
    const char *cause = rj_str(g, "cause", "");
    fprintf(f, "<tr class=\"group-row\" id=\"group-%d\"><td>g%d</td><td class=\"mono key\">",
            number, number);
    html_esc(f, rj_str(g, "group", ""));
    fputs("</td><td class=\"cause\">", f);
    html_esc(f, cause[0] ? cause : "no cause known: a group of its own");
    fputs("</td><td class=\"members\">", f);
    for (size_t j = 0; ids && j < json_object_array_length(ids); j++) {
        int id = json_object_get_int(json_object_array_get_idx(ids, j));
        fprintf(f, "%s<a href=\"#class-%ld\">%d</a>", j ? " " : "",
                class_index(classes, id) + 1, id);
    }
    known_cell(classes, ids, known, sizeof known);
    fprintf(f, "</td><td class=\"n hits\">%.0f</td><td class=\"known\">%s</td></tr>\n",
            rj_num(g, "hits", 0), known);
}

void group_table(FILE *f, json_object *classes, json_object *groups)
{
    if (!groups || !json_object_is_type(groups, json_type_array))
        return;
    fputs("<table class=\"grid groups\" id=\"group-table\"><tr><th>group</th><th>key</th>"
          "<th>probable cause</th><th>classes</th><th>hits</th><th>known</th></tr>\n", f);
    for (size_t k = 0; k < json_object_array_length(groups); k++)
        group_row(f, classes, json_object_array_get_idx(groups, k), (int)k + 1);
    fputs("</table>\n", f);
}

/* 1 when the class at index k is the first whose "lacks" is word on fs (word NULL: any). */
static int first_of(json_object *classes, size_t k, const char *fs, const char *word)
{
    for (size_t j = 0; j < k; j++) {
        json_object *c = json_object_array_get_idx(classes, j);
        const char *w = rj_str(c, "lacks", "");
        if (w[0] && !strcmp(rj_str(c, "fs", ""), fs) && (!word || !strcmp(w, word)))
            return 0;
    }
    return 1;
}

/* "lacks = " and the words: fs's declared ones, then each refusal's once, as found. */
static void lacks_words(FILE *f, json_object *classes, const char *fs, json_object *declared)
{
    json_object *mine = rj_get(declared, fs);
    int n = 0;
    fputs("lacks = ", f);
    for (size_t j = 0; mine && json_object_is_type(mine, json_type_array) &&
                       j < json_object_array_length(mine); j++, n++)
        html_escf(f, "%s%s", n ? ", " : "",
                  json_object_get_string(json_object_array_get_idx(mine, j)));
    for (size_t k = 0; k < json_object_array_length(classes); k++) {
        json_object *c = json_object_array_get_idx(classes, k);
        const char *w = rj_str(c, "lacks", "");
        if (w[0] && !strcmp(rj_str(c, "fs", ""), fs) && first_of(classes, k, fs, w))
            html_escf(f, "%s%s", n++ ? ", " : "", w);
    }
}

void group_lacks(FILE *f, json_object *classes, json_object *declared)
{
    for (size_t k = 0; k < json_object_array_length(classes); k++) {
        json_object *c = json_object_array_get_idx(classes, k);
        const char *fs = rj_str(c, "fs", "");
        if (!rj_str(c, "lacks", "")[0] || !first_of(classes, k, fs, NULL))
            continue;
        fputs("<p class=\"lacks-line\">", f);
        html_escf(f, "%s refused what the reference did; if it lacks that by design, declare "
                  "in [fs %s]: ", fs, fs);
        fputs("<code>", f);
        lacks_words(f, classes, fs, declared);
        fputs("</code></p>\n", f);
    }
}
