/* Reads the "classes" array of a run's summary.json and adds keys to one class, without a general JSON parser: the engine writes flat objects. */
#include "classfile.h"
#include "buf.h"
#include "swarm/swarm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of the object starting at p ('{'), past quoted strings; NULL if it does not end. */
static const char *object_end(const char *p)
{
    int quoted = 0;
    for (p++; *p; p++) {
        if (quoted && *p == '\\' && p[1])
            p++;
        else if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == '}')
            return p;
    }
    return NULL;
}

static void fill(struct run_class *c, const char *obj)
{
    double v;
    memset(c, 0, sizeof *c);
    c->id = swarm_json_num(obj, "class", &v) == 0 ? (int)v : 0;
    swarm_json_str(obj, "signature", c->signature, sizeof c->signature);
    swarm_json_str(obj, "fs", c->fs, sizeof c->fs);
    swarm_json_str(obj, "detail", c->detail, sizeof c->detail);
    swarm_json_str(obj, "hint", c->hint, sizeof c->hint);
    swarm_json_num(obj, "hits", &c->hits);
    swarm_json_num(obj, "first_op", &c->first_op);
    swarm_json_str(obj, "trace", c->trace, sizeof c->trace);
    swarm_json_str(obj, "repro", c->repro, sizeof c->repro);
    swarm_json_str(obj, "triage", c->triage, sizeof c->triage);
    swarm_json_num(obj, "trace_ops", &c->trace_ops);
}

static int push(struct run_class **v, int *n, int *cap, const char *obj)
{
    size_t room = (size_t)*cap;
    if (array_reserve(v, &room, (size_t)*n + 1, sizeof **v))
        return -1;
    *cap = (int)room;
    fill(&(*v)[(*n)++], obj);
    return 0;
}

int classfile_parse(const char *json, struct run_class **out)
{
    const char *p = json ? strstr(json, "\"classes\":[") : NULL;
    int n = 0, cap = 0;
    *out = NULL;
    for (p = p ? p + 11 : NULL; p && *p == '{';) {
        const char *end = object_end(p);
        char *obj = end ? strndup(p, (size_t)(end - p + 1)) : NULL;
        int rc = obj ? push(out, &n, &cap, obj) : -1;
        free(obj);
        if (rc < 0 || !end) {
            free(*out);
            *out = NULL;
            return end ? -1 : 0;
        }
        p = end + 1 + (end[1] == ',');
    }
    return n;
}

char *classfile_insert(const char *json, int id, const char *text)
{
    char key[48];
    snprintf(key, sizeof key, "{\"class\":%d,", id);
    const char *at = json ? strstr(json, key) : NULL;
    if (!at)
        return NULL;
    size_t head = (size_t)(at - json) + strlen(key), tl = strlen(text);
    char *s = malloc(strlen(json) + tl + 1);
    if (!s)
        return NULL;
    memcpy(s, json, head);
    memcpy(s + head, text, tl);
    strcpy(s + head + tl, json + head);
    return s;
}
