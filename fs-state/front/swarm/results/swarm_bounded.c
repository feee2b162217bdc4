/* A bounded config's swarm: the VTs' shares of one space united, and the bound they verified together. */
#include "swarm_bounded.h"
#include "engine/config/config.h"
#include "engine/search/bounded.h"
#include "front/json/json_reader.h"
#include "lib/system/helpers.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the VTs' summaries say, and their states united. */
struct together {
    int vts, complete, discrepancies, missing;  /* VTs: all, complete, with a class, no summary */
    int first_short;            /* the first VT not complete (-1: none) */
    long limit, first_done;     /* max_depth, and the depth the first short VT completed */
    uint64_t transitions, states;
    int states_known;           /* every VT's states were read */
    char bounds[512];
};

int swarm_is_bounded(const struct swarm *s)
{
    return search_kind_parse(s->cfg->run.search) == SEARCH_BOUNDED;
}

/* A VT's states file, appended to *all (*n bytes so far). -1: unreadable. */
static int read_states(const char *dir, unsigned char **all, size_t *n)
{
    char path[PATH_MAX + 64];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, BOUNDED_STATES_FILE);
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &sb) < 0) {
        if (f)
            fclose(f);
        return -1;
    }
    unsigned char *more = realloc(*all, *n + (size_t)sb.st_size + 1);
    size_t got = more ? fread(more + *n, 1, (size_t)sb.st_size, f) : 0;
    fclose(f);
    if (!more)
        return -1;
    *all = more;
    *n += got;
    return got == (size_t)sb.st_size ? 0 : -1;
}

static size_t key_len;          /* for qsort's comparison: the digests of one state */

static int cmp_key(const void *a, const void *b)
{
    return memcmp(a, b, key_len);
}

/* Distinct keys of klen bytes among n bytes of them. */
static uint64_t distinct(unsigned char *keys, size_t n, size_t klen)
{
    size_t count = klen ? n / klen : 0;
    uint64_t d = count > 0;
    key_len = klen;
    qsort(keys, count, klen, cmp_key);
    for (size_t i = 1; i < count; i++)
        d += memcmp(keys + (i - 1) * klen, keys + i * klen, klen) != 0;
    return d;
}

/* One VT's summary into t; its states appended to *all. The key length comes from a VT's
 * file size and state count (every VT's digests are alike). */
static void take_vt(const struct swarm *s, int vt, struct together *t, unsigned char **all,
                    size_t *n, size_t *klen)
{
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/vt-%d", s->out, vt);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_object *j = rj_load(path), *b = j ? rj_get(j, "bounded") : NULL;
    if (!b) {
        t->missing++;
        t->states_known = 0;
        json_object_put(j);
        return;
    }
    size_t before = *n;
    uint64_t states = rj_u64(b, "states", 0);
    int complete = rj_true(j, "complete");
    t->complete += complete;
    t->discrepancies += rj_int(j, "discrepancy_classes", 0) > 0;
    t->transitions += rj_u64(b, "transitions", 0);
    t->limit = rj_int(b, "depth_limit", 0);
    rj_copy(b, "bounds", t->bounds, sizeof t->bounds);
    if (!complete && t->first_short < 0) {
        t->first_short = vt;
        t->first_done = rj_int(b, "depth_completed", 0);
    }
    if (read_states(dir, all, n) < 0 || !states)
        t->states_known = 0;
    else if (!*klen)
        *klen = (*n - before) / states;
    json_object_put(j);
}

static void unite(const struct swarm *s, struct together *t)
{
    unsigned char *all = NULL;
    size_t n = 0, klen = 0;
    memset(t, 0, sizeof *t);
    t->vts = s->nvts;
    t->first_short = -1;
    t->states_known = 1;
    for (int vt = 0; vt < s->nvts; vt++)
        take_vt(s, vt, t, &all, &n, &klen);
    if (t->states_known)
        t->states = distinct(all, n, klen);
    free(all);
}

static int verified(const struct together *t)
{
    return t->vts > 0 && !t->missing && !t->discrepancies && t->complete == t->vts &&
           t->states_known;
}

static void verdict_of(const struct together *t, const char *symmetry, char *buf, size_t len)
{
    if (t->discrepancies)
        snprintf(buf, len, "not verified: %d of %d VTs found a discrepancy class", t->discrepancies,
                 t->vts);
    else if (t->missing)
        snprintf(buf, len, "not complete: %d of %d VTs left no bounded summary", t->missing, t->vts);
    else if (t->first_short >= 0)
        snprintf(buf, len, "not complete: %d of %d VTs complete (VT %d: depth %ld of %ld)",
                 t->complete, t->vts, t->first_short, t->first_done, t->limit);
    else if (!t->states_known)
        snprintf(buf, len, "not complete: a VT's states (%s) could not be read",
                 BOUNDED_STATES_FILE);
    else
        snprintf(buf, len, "verified together: %" PRIu64 " states%s (the union of %d VTs' "
                 "shares), %" PRIu64 " transitions, depth <= %ld, %s: no discrepancy", t->states,
                 strcmp(symmetry, "names") == 0 ? SYMMETRY_STATES : "",
                 t->vts, t->transitions, t->limit, t->bounds);
}

void swarm_bounded_verdict(const struct swarm *s, char *buf, size_t len)
{
    struct together t;
    unite(s, &t);
    verdict_of(&t, s->cfg->run.symmetry, buf, len);
}

void swarm_bounded_json(const struct swarm *s, FILE *f)
{
    struct together t;
    char verdict[1024], escaped[2100];
    if (!swarm_is_bounded(s))
        return;
    unite(s, &t);
    verdict_of(&t, s->cfg->run.symmetry, verdict, sizeof verdict);
    json_escape(verdict, escaped, sizeof escaped);
    fprintf(f, ",\"complete\":%s,\"bounded\":{\"verdict\":\"%s\",\"verified\":%s,\"states\":%"
            PRIu64 ",\"transitions\":%" PRIu64 ",\"depth_limit\":%ld,\"vts_complete\":%d}",
            t.complete == t.vts && !t.missing ? "true" : "false", escaped,
            verified(&t) ? "true" : "false", t.states, t.transitions, t.limit, t.complete);
}
