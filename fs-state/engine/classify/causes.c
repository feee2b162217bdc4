/* Cause groups of a run's classes: each class's group key from its hint rule's cause or the known delta it belongs to, and the groups for summary.json. */
#include "engine/classify/causes.h"
#include "lib/system/helpers.h"
#include <string.h>

void causes_key(const char *cause_id, const char *fs, char *out, size_t len)
{
    snprintf(out, len, "%.95s %.63s", cause_id, fs);
}

void causes_delta_id(const char *item, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "delta:%.88s", item);
    /* blanks would split the id where a known file's reader expects one word */
    for (size_t k = 0; k < n && k < len; k++)
        if (out[k] == '\t' || out[k] == ' ')
            out[k] = '-';
}

/* The first item of d that is a difference of kind attr ("mode<TAB>..."), or NULL. */
static const char *item_of_kind(const struct tree_delta *d, enum tree_diff attr)
{
    const char *name = tree_diff_name(attr);
    size_t n = strlen(name);
    for (size_t k = 0; d && k < d->n; k++)
        if (!strncmp(d->item[k], name, n) && d->item[k][n] == '\t')
            return d->item[k];
    return NULL;
}

/* A known delta's difference the class belongs to: one of its own attribute that the delta
 * it was found below holds (the class may well be its consequence), else the one the class
 * itself started. A difference of another attribute below it is no evidence of one cause. */
static const char *delta_item(const struct dclass *c, const struct cause_path *p)
{
    if (c->kinds != DIFF_STATE || c->attr == TREE_DIFF_NONE)
        return NULL;            /* an outcome's class is signed by the outcome, not the state */
    const char *held = item_of_kind(p->below, c->attr);
    return held ? held : item_of_kind(p->made, c->attr);
}

void causes_assign(struct dclass *c, const char *fs, const struct cause_path *p)
{
    const char *item = !c->cause_id[0] && p ? delta_item(c, p) : NULL;
    if (p && p->below_text)
        snprintf(c->below_delta, sizeof c->below_delta, "%s", p->below_text);
    if (item) {
        causes_delta_id(item, c->cause_id, sizeof c->cause_id);
        snprintf(c->cause, sizeof c->cause, "a known delta's difference (%.150s)", item);
        for (char *t = c->cause; (t = strchr(t, '\t'));)
            *t = ' ';
    }
    if (c->cause_id[0])
        causes_key(c->cause_id, fs, c->group, sizeof c->group);
    else
        snprintf(c->group, sizeof c->group, "%s", c->signature);
}

/* The index of the first class of class k's group. */
static int group_head(const struct dclass_table *t, int k)
{
    for (int j = 0; j < k; j++)
        if (!strcmp(t->v[j].group, t->v[k].group))
            return j;
    return k;
}

int causes_count(const struct dclass_table *t)
{
    int n = 0;
    for (int k = 0; k < t->n; k++)
        n += group_head(t, k) == k;
    return n;
}

static void json_group(const struct dclass_table *t, int head, FILE *f)
{
    char key[400], cause[500];
    unsigned long long hits = 0;
    json_escape(t->v[head].group, key, sizeof key);
    json_escape(t->v[head].cause, cause, sizeof cause);
    fprintf(f, "{\"group\":\"%s\",\"cause\":\"%s\",\"classes\":[", key, cause);
    for (int k = head, n = 0; k < t->n; k++)
        if (group_head(t, k) == head) {
            fprintf(f, "%s%d", n++ ? "," : "", t->v[k].id);
            hits += t->v[k].hits;
        }
    fprintf(f, "],\"hits\":%llu}", hits);
}

void causes_write_json(const struct dclass_table *t, FILE *f)
{
    fprintf(f, "\"discrepancy_groups\":%d,\"groups\":[", causes_count(t));
    for (int k = 0, n = 0; k < t->n; k++)
        if (group_head(t, k) == k) {
            fputs(n++ ? "," : "", f);
            json_group(t, k, f);
        }
    fputs("],", f);
}
