/* The one JSON reader of bin/metis: json-c, with defaults, for report.html, the triage and the swarm. */
#include "json_reader.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

json_object *rj_load(const char *path)
{
    /* json-c's own file reader prints its failures to stderr; a missing file is no failure here. */
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    json_tokener *tok = json_tokener_new();
    json_object *o = NULL;
    char buf[65536];
    size_t n;
    enum json_tokener_error e = json_tokener_continue;
    while (tok && e == json_tokener_continue && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        o = json_tokener_parse_ex(tok, buf, (int)n);
        e = json_tokener_get_error(tok);
    }
    fclose(f);
    if (tok)
        json_tokener_free(tok);
    if (e != json_tokener_success) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

json_object *rj_parse(const char *text)
{
    return text ? json_tokener_parse(text) : NULL;
}

json_object *rj_get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

static int is_number(json_object *v)
{
    return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

double rj_num(json_object *o, const char *key, double dflt)
{
    json_object *v = rj_get(o, key);
    return is_number(v) ? json_object_get_double(v) : dflt;
}

/* Converting a double outside an integer type's range is undefined: such a value, as NaN or a
 * fraction, is no count or id a Metis wrote, so it reads as absent. */
int rj_int(json_object *o, const char *key, int dflt)
{
    double d = rj_num(o, key, dflt);
    return d >= INT_MIN && d <= INT_MAX && d == (int)d ? (int)d : dflt;
}

unsigned long long rj_u64(json_object *o, const char *key, unsigned long long dflt)
{
    double d = rj_num(o, key, (double)dflt);
    /* 2^64 itself is out of range; every double below it converts. */
    return d >= 0 && d < 18446744073709551616.0 ? (unsigned long long)d : dflt;
}

int rj_num_at(json_object *o, const char *key, double *out)
{
    json_object *v = rj_get(o, key);
    if (!is_number(v))
        return -1;
    *out = json_object_get_double(v);
    return 0;
}

int rj_copy(json_object *o, const char *key, char *out, size_t len)
{
    const char *s = rj_str(o, key, NULL);
    if (!s || len == 0)
        return -1;
    snprintf(out, len, "%s", s);
    return 0;
}

int rj_true(json_object *o, const char *key)
{
    json_object *v = rj_get(o, key);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

const char *rj_str(json_object *o, const char *key, const char *dflt)
{
    json_object *v = rj_get(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

const char *rj_value_text(json_object *v)
{
    if (v && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

const char *rj_text(json_object *o, const char *key)
{
    json_object *v = rj_get(o, key);
    return v && (is_number(v) || json_object_is_type(v, json_type_string)) ? rj_value_text(v) : "";
}

size_t rj_len(json_object *o, const char *key)
{
    json_object *v = rj_get(o, key);
    return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}
