/* One discrepancy in report.html: outcomes per file system and the trees side by side. */
#include "disc_view.h"
#include "front/report/html/html.h"
#include <stdlib.h>
#include <string.h>

#define SHOWN_CHARS 18           /* of a digest or an xattr list; the cell's title has all */

static void outcome_cell(FILE *f, const char *text, int differs)
{
    fputs(differs ? "<td class=\"mono attr-diff\">" : "<td class=\"mono\">", f);
    html_esc(f, text);
    fputs("</td>", f);
}

static void outcome_table(FILE *f, const struct disc_file *d)
{
    fputs("<table class=\"grid\"><tr><th>file system</th><th>ret</th><th>errno</th>"
          "<th>abstract state</th><th>differs from the reference in</th></tr>\n", f);
    for (int i = 0; i < d->nout; i++) {
        const struct disc_outcome *o = &d->out[i];
        fputs("<tr><td>", f);
        html_esc(f, o->fs);
        fputs(i == 0 ? " <span class=\"note\">(reference)</span></td>" : "</td>", f);
        outcome_cell(f, o->ret, o->ret_differs);
        outcome_cell(f, o->err, o->errno_differs);
        outcome_cell(f, o->state, o->state_differs);
        fputs("<td class=\"differs\">", f);
        html_escf(f, "%s%s%s", o->ret_differs ? "ret " : "", o->errno_differs ? "errno " : "",
                  o->state_differs ? "state" : "");
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct disc_entry *)a)->path, ((const struct disc_entry *)b)->path);
}

static struct disc_entry *sorted_copy(const struct disc_tree *t)
{
    struct disc_entry *c = malloc((t->n ? t->n : 1) * sizeof *c);
    if (c) {
        memcpy(c, t->e, t->n * sizeof *c);
        qsort(c, t->n, sizeof *c, cmp_entry);
    }
    return c;
}

static void value_cell(FILE *f, const char *v, int differs, int first)
{
    if (differs || first)
        fprintf(f, "<td class=\"%s\"", differs && first ? "attr-diff sep" : differs ? "attr-diff"
                                                                                  : "sep");
    else
        fputs("<td", f);
    if (strlen(v) > SHOWN_CHARS) {
        fputs(" title=\"", f);
        html_esc(f, v);
        fprintf(f, "\">");
        html_escf(f, "%.*s…", SHOWN_CHARS - 2, v);
    } else {
        fputc('>', f);
        html_esc(f, v);
    }
    fputs("</td>", f);
}

static void side_cells(FILE *f, const struct disc_entry *e, const struct disc_entry *other)
{
    if (!e) {
        fprintf(f, "<td class=\"absent sep\" colspan=\"%d\">absent</td>", DISC_NFIELDS);
        return;
    }
    for (int k = 0; k < DISC_NFIELDS; k++)
        value_cell(f, e->field[k], other && strcmp(e->field[k], other->field[k]) != 0, k == 0);
}

static int entries_differ(const struct disc_entry *a, const struct disc_entry *b)
{
    if (!a || !b)
        return 1;
    for (int k = 0; k < DISC_NFIELDS; k++)
        if (strcmp(a->field[k], b->field[k]))
            return 1;
    return 0;
}

static void tree_row(FILE *f, const struct disc_entry *a, const struct disc_entry *b)
{
    fputs(entries_differ(a, b) ? "<tr class=\"diff\"><td>" : "<tr><td>", f);
    html_esc(f, a ? a->path : b->path);
    fputs("</td>", f);
    side_cells(f, a, b);
    side_cells(f, b, a);
    fputs("</tr>\n", f);
}

static void tree_head(FILE *f, const struct disc_tree *ref, const struct disc_tree *t)
{
    fprintf(f, "<table class=\"grid tree\"><tr><th rowspan=\"2\">path</th>"
            "<th colspan=\"%d\">", DISC_NFIELDS);
    html_esc(f, ref->fs);
    fprintf(f, " (reference)</th><th colspan=\"%d\">", DISC_NFIELDS);
    html_esc(f, t->fs);
    fputs("</th></tr>\n<tr>", f);
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < DISC_NFIELDS; k++)
            fprintf(f, "<th%s>%s</th>", k == 0 ? " class=\"sep\"" : "", disc_field_name[k]);
    fputs("</tr>\n", f);
}

/* Walks both path-sorted listings together; returns how many rows differ. */
static size_t tree_rows(FILE *f, const struct disc_entry *a, size_t na, const struct disc_entry *b,
                        size_t nb)
{
    size_t i = 0, j = 0, rows = 0, differing = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].path, b[j].path);
        const struct disc_entry *x = c <= 0 ? &a[i] : NULL, *y = c >= 0 ? &b[j] : NULL;
        differing += entries_differ(x, y);
        if (rows++ < DISC_VIEW_MAX_ROWS)
            tree_row(f, x, y);
        i += c <= 0;
        j += c >= 0;
    }
    if (rows > DISC_VIEW_MAX_ROWS)
        fprintf(f, "<tr><td colspan=\"%d\" class=\"note\">%zu more entries: see the detail file"
                "</td></tr>\n", 1 + 2 * DISC_NFIELDS, rows - DISC_VIEW_MAX_ROWS);
    return differing;
}

static void note_of(FILE *f, const struct disc_tree *t)
{
    if (!t->note[0] && !t->truncated)
        return;
    fputs("<p class=\"note\">", f);
    html_escf(f, "%s: %s%s", t->fs, t->note, t->truncated ? " (listing cut short)" : "");
    fputs("</p>\n", f);
}

static void tree_diff(FILE *f, const struct disc_tree *ref, const struct disc_tree *t)
{
    struct disc_entry *a = sorted_copy(ref), *b = sorted_copy(t);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    fputs("<h4>", f);
    html_escf(f, "tree of %s beside %s after the operation", t->fs, ref->fs);
    fputs("</h4>\n", f);
    note_of(f, ref);
    note_of(f, t);
    tree_head(f, ref, t);
    size_t differing = tree_rows(f, a, ref->n, b, t->n);
    fprintf(f, "</table>\n<p class=\"note\">%zu of the listed entries differ.</p>\n", differing);
    free(a);
    free(b);
}

void disc_view(FILE *f, const struct disc_file *d)
{
    fputs("<p class=\"mono\">", f);
    html_esc(f, d->what[0] ? d->what : "(the detail file names no operation)");
    fputs("</p>\n", f);
    if (d->nout)
        outcome_table(f, d);
    for (int i = 1; i < d->ntrees; i++)
        tree_diff(f, &d->tree[0], &d->tree[i]);
    if (d->ntrees < 2)
        fputs("<p class=\"note\">The detail file lists no trees to compare.</p>\n", f);
    if (d->nstates)
        fprintf(f, "<p class=\"note\">%d saved concrete states exported for metis-replay.</p>\n",
                d->nstates);
}
