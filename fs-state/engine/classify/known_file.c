/* The known-classes file read and appended (format in known_file.h); libc only, shared by pan, bin/metis and metis-replay. */
#include "engine/classify/known_file.h"
#include "lib/text/buf.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void known_free(struct known_list *k)
{
    free(k->v);
    memset(k, 0, sizeof *k);
}

static int find_kind(const struct known_list *k, const char *text, int group)
{
    for (int i = 0; i < k->n; i++)
        if (k->v[i].group == group && strcmp(k->v[i].signature, text) == 0)
            return i;
    return -1;
}

int known_find(const struct known_list *k, const char *signature)
{
    return find_kind(k, signature, 0);
}

int known_find_group(const struct known_list *k, const char *key)
{
    return find_kind(k, key, 1);
}

int known_match(const struct known_list *k, const char *signature, const char *group)
{
    int i = known_find(k, signature);
    return i >= 0 || !group || !group[0] ? i : known_find_group(k, group);
}

/* The value after "key: " with trailing blanks cut, or NULL when line is not that key. */
static char *value_of(char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) || line[n] != ':')
        return NULL;
    char *v = line + n + 1, *end;
    v += strspn(v, " \t");
    for (end = v + strlen(v); end > v && strchr(" \t\r\n", end[-1]); end--)
        ;
    *end = '\0';
    return v;
}

static int add_class(struct known_list *k, const char *sig, int group)
{
    if (array_reserve(&k->v, &k->cap, (size_t)k->n + 1, sizeof *k->v))
        return -1;
    memset(&k->v[k->n], 0, sizeof k->v[k->n]);
    snprintf(k->v[k->n].signature, KNOWN_SIG_MAX, "%s", sig);
    k->v[k->n].group = group;
    k->n++;
    return 0;
}

/* A "class:" or "group:" record's first line: 0, or -1 with the reason in why. */
static int take_record(struct known_list *k, const char *v, int group, const char **why)
{
    *why = !*v ? (group ? "empty group key" : "empty signature")
         : strlen(v) >= KNOWN_SIG_MAX ? (group ? "group key too long" : "signature too long")
         : find_kind(k, v, group) >= 0 ? (group ? "group listed twice" : "signature listed twice")
         : NULL;
    return *why ? -1 : add_class(k, v, group) < 0 ? (*why = "out of memory", -1) : 0;
}

static void append_text(char *to, const char *text)
{
    size_t n = strlen(to);
    snprintf(to + n, KNOWN_TEXT_MAX - n, "%s%s", n ? "; " : "", text);
}

int known_add(struct known_list *k, const struct known_class *c)
{
    if (add_class(k, c->signature, c->group) < 0)
        return -1;
    k->v[k->n - 1] = *c;
    return 0;
}

/* One line of the file: 0, or -1 with the reason in why. */
static int take_line(struct known_list *k, char *line, const char **why)
{
    char *v;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
        return 0;
    if ((v = value_of(line, "class")))
        return take_record(k, v, 0, why);
    if ((v = value_of(line, "group")))
        return take_record(k, v, 1, why);
    int is_note = (v = value_of(line, "note")) != NULL;
    if (!is_note && !(v = value_of(line, "link"))) {
        *why = "expected 'class: SIGNATURE', 'group: KEY', 'note: TEXT' or 'link: URL'";
        return -1;
    }
    if (k->n == 0) {
        *why = "a note or link before the first 'class:' or 'group:' line";
        return -1;
    }
    struct known_class *c = &k->v[k->n - 1];
    if (is_note)
        append_text(c->note, v);
    else
        snprintf(c->link, KNOWN_TEXT_MAX, "%s", v);
    return 0;
}

int known_load(const char *path, struct known_list *k, char *err, size_t errlen)
{
    char line[2048];
    const char *why = NULL;
    int lineno = 0;
    memset(k, 0, sizeof *k);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    while (!why && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f))
            why = "line too long";
        else
            take_line(k, line, &why);
    }
    fclose(f);
    if (!why)
        return 0;
    snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
    known_free(k);
    return -1;
}

static const char header[] =
    "# Known discrepancy classes of Metis (metis known add; see metis(1)). One record per class:\n"
    "# 'class: SIGNATURE' exactly as classes.txt shows it, or per cause group: 'group: KEY'\n"
    "# (every class of the group), then optional 'note:' and 'link:' lines. Signatures and\n"
    "# keys are compared exactly: a Metis that signs classes differently makes these records\n"
    "# stale.\n";

int known_append(const char *path, const struct known_class *c, char *err, size_t errlen)
{
    int fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fresh)
        fputs(header, f);
    fprintf(f, "\n%s: %s\n", c->group ? "group" : "class", c->signature);
    if (c->note[0])
        fprintf(f, "note: %s\n", c->note);
    if (c->link[0])
        fprintf(f, "link: %s\n", c->link);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
