/* The one JSON reader of bin/metis (json-c): the run's and the swarm's files for report.html, the triage and the swarm. */
#ifndef METIS_REPORT_RJSON_H
#define METIS_REPORT_RJSON_H

#include <json-c/json.h>
#include <stddef.h>

/* The parsed file, or NULL if it is missing or not JSON; release with json_object_put. */
json_object *rj_load(const char *path);
/* The parsed text, or NULL if it is NULL or not JSON; release with json_object_put. */
json_object *rj_parse(const char *text);
/* The member key of o, or NULL (also when o is not an object). */
json_object *rj_get(json_object *o, const char *key);
/* A number member, or dflt when absent or not a number. */
double rj_num(json_object *o, const char *key, double dflt);
/* A whole number member within int's range, else dflt (absent, not a number, a fraction,
 * out of range). */
int rj_int(json_object *o, const char *key, int dflt);
/* A number member within [0, 2^64) truncated to an integer, else dflt. */
unsigned long long rj_u64(json_object *o, const char *key, unsigned long long dflt);
/* A number member into *out: 0, or -1 (*out untouched) when absent or not a number. */
int rj_num_at(json_object *o, const char *key, double *out);
/* A string member copied into out (cut to len - 1 bytes): 0, or -1 (out untouched) when
 * absent or not a string. */
int rj_copy(json_object *o, const char *key, char *out, size_t len);
/* A boolean member, 0 when absent or not a boolean. */
int rj_true(json_object *o, const char *key);
/* A string member, or dflt when absent or not a string. */
const char *rj_str(json_object *o, const char *key, const char *dflt);
/* A value as text: a string as is, anything else as plain JSON (a large seed exactly as written). */
const char *rj_value_text(json_object *v);
/* A string or number member as text (see rj_value_text), else "". */
const char *rj_text(json_object *o, const char *key);
/* An array member's length, 0 when absent or not an array. */
size_t rj_len(json_object *o, const char *key);

#endif
