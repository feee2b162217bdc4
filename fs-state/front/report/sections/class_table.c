/* The class table of report.html: the answer first (which classes, shrunk how far, whether the reproducers bite), the panels after. */
#include "class_table.h"
#include "front/report/html/html.h"
#include <limits.h>
#include <string.h>

/* The detail file's first line ("operation N: TEXT (flags=NAMES)") without "operation N: ". */
static void first_operation(const struct run_loc *loc, const char *detail, char *out, size_t len)
{
    char path[2 * PATH_MAX], line[1200];
    out[0] = '\0';
    if (!detail[0] || strstr(detail, ".."))
        return;
    snprintf(path, sizeof path, detail[0] == '/' ? "%s" : "%s/%s", detail[0] == '/' ? detail :
             loc->dir, detail);
    FILE *f = fopen(path, "r");
    if (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *colon = strncmp(line, "operation ", 10) ? NULL : strstr(line, ": ");
        snprintf(out, len, "%s", colon ? colon + 2 : line);
    }
    if (f)
        fclose(f);
}

static void cell(FILE *f, const char *cls, const char *text)
{
    fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    html_esc(f, text);
    fputs("</td>", f);
}

/* "bites (1 on the target, 0 on the reference)", or after runs again on the target "bites 2
 * of 5 runs (...)": a reproducer that bit only sometimes says how often. */
static void verdict(json_object *c, char *out, size_t len)
{
    double t = rj_num(c, "repro_exit_target", -1), r = rj_num(c, "repro_exit_reference", -1);
    double runs = rj_num(c, "repro_runs", 1), bites = rj_num(c, "repro_bites", t == 1);
    int bit = bites > 0 && r == 0;
    char often[48] = "";
    if (runs > 1)
        snprintf(often, sizeof often, " %.0f of %.0f runs", bites, runs);
    if (t < 0)
        snprintf(out, len, "%s", rj_str(c, "repro", "")[0] ? "not run" : "no reproducer");
    else
        snprintf(out, len, "%s%s (%.0f on the target, %.0f on the reference)",
                 bit ? "bites" : "does not bite", often, bit ? 1.0 : t, r);
}

static void verdict_cell(FILE *f, json_object *c)
{
    char text[200];
    const char *why = rj_str(c, "repro_why", "");
    verdict(c, text, sizeof text);
    fprintf(f, "<td class=\"%s\">", strncmp(text, "bites", 5) ? "verdict" : "verdict status-ok");
    html_esc(f, text);
    if (why[0]) {
        fputs("<div class=\"why note\">why it may not bite: ", f);
        html_esc(f, why);
        fputs("</div>", f);
    }
    fputs("</td>", f);
}

static void row(FILE *f, const struct run_loc *loc, json_object *c, size_t i, int group)
{
    char text[1200];
    fprintf(f, "<tr class=\"class-row\" data-group=\"g%d\"><td><a href=\"#class-%zu\">%zu</a></td>",
            group, i + 1, i + 1);
    cell(f, "mono sig", rj_str(c, "signature", ""));
    cell(f, "hint", rj_str(c, "hint", "")[0] ? rj_str(c, "hint", "") : "-");
    snprintf(text, sizeof text, "%.0f", rj_num(c, "hits", 0));
    cell(f, "hits", text);
    first_operation(loc, rj_str(c, "detail", ""), text, sizeof text);
    cell(f, "mono first-op", text);
    if (rj_str(c, "trace", "")[0])
        snprintf(text, sizeof text, "%.0f", rj_num(c, "trace_ops", 0));
    else
        snprintf(text, sizeof text, "not shrunk");
    cell(f, "shrunk", text);
    cell(f, "start", rj_str(c, "trace_start", "")[0] ? rj_str(c, "trace_start", "") : "-");
    snprintf(text, sizeof text, "g%d", group);
    cell(f, "group", text);
    verdict_cell(f, c);
    fputs("</tr>\n", f);
}

void class_table(FILE *f, const struct run_loc *loc, json_object *classes, const size_t *order,
                 const int *gid)
{
    size_t n = json_object_array_length(classes);
    fputs("<table class=\"grid classes\" id=\"class-table\"><tr><th>class</th><th>signature</th>"
          "<th>hint</th><th>hits</th><th>first operation</th><th>shrunk length</th>"
          "<th>trace starts from</th><th>group</th><th>reproducer</th></tr>\n", f);
    for (size_t k = 0; k < n; k++)
        row(f, loc, json_object_array_get_idx(classes, order[k]), order[k], gid[order[k]]);
    fputs("</table>\n", f);
}
