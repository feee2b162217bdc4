/* Reads the "classes" array of a run's summary.json (front/json/json_reader.h, json-c) and adds keys to one class in its text. */
#include "summary_classes.h"
#include "lib/text/buf.h"
#include "front/json/json_reader.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the run found: the class, its first example and its cause group. */
static void fill_found(struct run_class *c, json_object *obj)
{
    c->id = rj_int(obj, "class", 0);
    rj_copy(obj, "signature", c->signature, sizeof c->signature);
    rj_copy(obj, "fs", c->fs, sizeof c->fs);
    rj_copy(obj, "detail", c->detail, sizeof c->detail);
    rj_copy(obj, "hint", c->hint, sizeof c->hint);
    rj_num_at(obj, "hits", &c->hits);
    rj_num_at(obj, "first_op", &c->first_op);
    c->first_s = -1;             /* a summary written before Metis recorded it */
    rj_num_at(obj, "first_s", &c->first_s);
    rj_copy(obj, "group", c->group, sizeof c->group);
    if (!c->group[0])           /* a summary written before groups: each class its own */
        snprintf(c->group, sizeof c->group, "%s", c->signature);
    rj_copy(obj, "cause", c->cause, sizeof c->cause);
    rj_copy(obj, "below_delta", c->below, sizeof c->below);
    rj_copy(obj, "lacks", c->lacks, sizeof c->lacks);
}

/* What the triage made of it: the trace, the reproducer and its verdict. */
static void fill_triage(struct run_class *c, json_object *obj)
{
    rj_copy(obj, "trace", c->trace, sizeof c->trace);
    rj_copy(obj, "repro", c->repro, sizeof c->repro);
    rj_copy(obj, "triage", c->triage, sizeof c->triage);
    rj_num_at(obj, "trace_ops", &c->trace_ops);
    rj_copy(obj, "trace_start", c->start, sizeof c->start);
    rj_num_at(obj, "shrink_s", &c->shrink_s);
    c->exit_target = c->exit_ref = -1;
    rj_num_at(obj, "repro_exit_target", &c->exit_target);
    rj_num_at(obj, "repro_exit_reference", &c->exit_ref);
    rj_num_at(obj, "repro_runs", &c->runs);
    rj_num_at(obj, "repro_bites", &c->bites);
    rj_copy(obj, "repro_why", c->why, sizeof c->why);
}

static void fill(struct run_class *c, json_object *obj)
{
    memset(c, 0, sizeof *c);
    fill_found(c, obj);
    fill_triage(c, obj);
    c->known = rj_true(obj, "known");
    rj_copy(obj, "note", c->note, sizeof c->note);
    rj_copy(obj, "link", c->link, sizeof c->link);
    c->group_record = !strcmp(rj_str(obj, "record", ""), "group");
}

/* The classes up to the first element that is not an object, as the engine writes only objects. */
static int fill_all(json_object *arr, struct run_class **out)
{
    size_t n = 0, cap = 0, len = json_object_array_length(arr);
    for (; n < len; n++) {
        json_object *obj = json_object_array_get_idx(arr, n);
        if (!json_object_is_type(obj, json_type_object))
            break;
        if (array_reserve(out, &cap, n + 1, sizeof **out))
            return -1;
        fill(&(*out)[n], obj);
    }
    return (int)n;
}

static int listed_under(const char *json, const char *key, struct run_class **out)
{
    json_object *root = rj_parse(json);
    json_object *arr = rj_get(root, key);
    *out = NULL;
    int n = arr && json_object_is_type(arr, json_type_array) ? fill_all(arr, out) : -2;
    json_object_put(root);
    if (n < 0) {
        free(*out);
        *out = NULL;
    }
    return n;
}

int classfile_listed(const char *json, struct run_class **out)
{
    return listed_under(json, "classes", out);
}

int classfile_not_seen(const char *json, struct run_class **out)
{
    int n = listed_under(json, "known_not_seen", out);
    return n == -2 ? 0 : n;
}

int classfile_parse(const char *json, struct run_class **out)
{
    int n = classfile_listed(json, out);
    return n == -2 ? 0 : n;
}

void classfile_declared_lacks(const char *json, const char *fs, char *out, size_t len)
{
    json_object *root = rj_parse(json), *words = rj_get(rj_get(root, "lacks"), fs);
    size_t n = words && json_object_is_type(words, json_type_array) ?
               json_object_array_length(words) : 0, used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < n && used < len; k++) {
        const char *w = json_object_get_string(json_object_array_get_idx(words, k));
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", w ? w : "");
    }
    json_object_put(root);
}

char *classfile_splice(const char *json, size_t at, const char *text)
{
    size_t tl = strlen(text);
    char *s = malloc(strlen(json) + tl + 1);
    if (!s)
        return NULL;
    memcpy(s, json, at);
    memcpy(s + at, text, tl);
    strcpy(s + at + tl, json + at);
    return s;
}

char *classfile_insert(const char *json, int id, const char *text)
{
    char key[48];
    snprintf(key, sizeof key, "{\"class\":%d,", id);
    const char *at = json ? strstr(json, key) : NULL;
    return at ? classfile_splice(json, (size_t)(at - json) + strlen(key), text) : NULL;
}
