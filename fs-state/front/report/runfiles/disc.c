/* A discrepancy-N.txt read back for report.html (format written by fs-state/engine/run/engine.c). */
#include "disc.h"
#include "lib/text/buf.h"
#include "tree/diff.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const disc_field_name[DISC_NFIELDS] = {
    "type", "mode", "nlink", "uid", "gid", "size", "content", "xattrs"
};

static void parse_outcome(struct disc_file *d, const char *line)
{
    struct disc_outcome *o = &d->out[d->nout];
    if (d->nout == DISC_MAX_FS ||
        sscanf(line, "%63s ret=%31s errno=%47s state=%159s", o->fs, o->ret, o->err, o->state) != 4)
        return;
    o->ret_differs = strstr(line, "[ret differs]") != NULL;
    o->errno_differs = strstr(line, "[errno differs]") != NULL;
    o->state_differs = strstr(line, "[state differs]") != NULL;
    d->nout++;
}

/* Splits a listing line in place (tree/diff.h's fields, each cut at its end): the path, then
 * the other fields in the listing's order. */
static int split_entry(char *line, struct disc_entry *e)
{
    struct tree_fields f;
    if (tree_fields_split(line, &f) < 0)
        return -1;
    for (int k = 0; k < TREE_F_COUNT; k++)
        line[f.s[k] - line + f.len[k]] = '\0';
    e->path = line;
    for (int k = 1; k < TREE_F_COUNT; k++)
        e->field[k - 1] = f.s[k];
    return 0;
}

static void add_entry(struct disc_tree *t, const char *line)
{
    if (t->n == DISC_MAX_ENTRIES) {
        t->truncated = 1;
        return;
    }
    if (array_reserve(&t->e, &t->cap, t->n + 1, sizeof *t->e))
        return;
    char *copy = strdup(line);
    if (copy && split_entry(copy, &t->e[t->n]) == 0)
        t->n++;
    else
        free(copy);
}

static void parse_tree_line(struct disc_file *d, const char *line)
{
    struct disc_tree *t = &d->tree[d->ntrees - 1];
    if (line[0] == '(')
        snprintf(t->note, sizeof t->note, "%s", line);
    else if (line[0])
        add_entry(t, line);
}

static void parse_line(struct disc_file *d, char *line, int first)
{
    char name[64];
    line[strcspn(line, "\n")] = '\0';
    if (first) {
        snprintf(d->what, sizeof d->what, "%s", line);
    } else if (sscanf(line, "## tree of %63s after the operation", name) == 1) {
        if (d->ntrees < DISC_MAX_FS)
            snprintf(d->tree[d->ntrees++].fs, sizeof d->tree[0].fs, "%s", name);
    } else if (d->ntrees) {
        parse_tree_line(d, line);
    } else if (!strncmp(line, "state sid=", 10)) {
        d->nstates++;
    } else if (strstr(line, " ret=")) {
        parse_outcome(d, line);
    }
}

int disc_parse(const char *path, struct disc_file *d)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    for (int first = 1; getline(&line, &cap, f) > 0; first = 0)
        parse_line(d, line, first);
    free(line);
    fclose(f);
    return 0;
}

void disc_free(struct disc_file *d)
{
    for (int i = 0; i < d->ntrees; i++) {
        for (size_t k = 0; k < d->tree[i].n; k++)
            free(d->tree[i].e[k].path);
        free(d->tree[i].e);
    }
    memset(d, 0, sizeof *d);
}
