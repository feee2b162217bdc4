/* The series report.html plots: samples.csv read back, rates derived, and the log.txt fallback. */
#include "series.h"
#include "lib/text/buf.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void series_free(struct series *s)
{
    free(s->x);
    free(s->y);
    memset(s, 0, sizeof *s);
}

void samples_free(struct samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int series_push(struct series *s, double x, double y)
{
    size_t xcap = s->cap;   /* x and y grow alike: s->cap counts both once y has grown */
    if (array_reserve(&s->x, &xcap, s->n + 1, sizeof *s->x) ||
        array_reserve(&s->y, &s->cap, s->n + 1, sizeof *s->y))
        return -1;
    s->x[s->n] = x;
    s->y[s->n++] = y;
    return 0;
}

/* Keeps every k-th point and the last, so that at most SERIES_MAX_POINTS remain. */
static void series_thin(struct series *s)
{
    if (s->n <= SERIES_MAX_POINTS)
        return;
    size_t k = (s->n + SERIES_MAX_POINTS - 2) / (SERIES_MAX_POINTS - 1), m = 0;
    for (size_t i = 0; i < s->n; i += k, m++) {
        s->x[m] = s->x[i];
        s->y[m] = s->y[i];
    }
    if (s->x[m - 1] != s->x[s->n - 1]) {
        s->x[m] = s->x[s->n - 1];
        s->y[m++] = s->y[s->n - 1];
    }
    s->n = m;
}

static int samples_push(struct samples *s, const struct report_sample *v)
{
    if (array_reserve(&s->v, &s->cap, s->n + 1, sizeof *s->v))
        return -1;
    s->v[s->n++] = *v;
    return 0;
}

int samples_read(const char *path, struct samples *s)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        struct report_sample v;
        if (sscanf(line, "%lf,%" SCNu64 ",%lf,%lf,%" SCNu64 ",%" SCNu64, &v.t, &v.ops, &v.states,
                   &v.matched, &v.restores, &v.discrepancies) != 6 || !strchr(line, '\n'))
            continue;   /* the header, or a line cut short by a crash */
        if (s->n && v.t <= s->v[s->n - 1].t)
            continue;   /* not later than the line before: not a sample of this series */
        if (samples_push(s, &v))
            break;
    }
    fclose(f);
    return 0;
}

#define MIN_RATE_SPAN 0.5     /* seconds; the final line may come just after the last tick */

/* Rates are taken between the picked samples, so a thinned series still averages every second. */
int samples_derive(const struct samples *s, struct series *ops_rate, struct series *states_rate,
                   struct series *states_by_ops)
{
    size_t picks = s->n < SERIES_MAX_POINTS ? s->n : SERIES_MAX_POINTS;
    size_t prev = 0;
    for (size_t k = 0; k < picks; k++) {
        size_t i = picks > 1 ? k * (s->n - 1) / (picks - 1) : 0;
        const struct report_sample *a = &s->v[prev], *b = &s->v[i];
        double span = b->t - a->t;
        if (series_push(states_by_ops, (double)b->ops, b->states))
            return -1;
        if (span < MIN_RATE_SPAN)
            continue;
        if (series_push(ops_rate, b->t, (double)(b->ops - a->ops) / span) ||
            series_push(states_rate, b->t, (b->states - a->states) / span))
            return -1;
        prev = i;
    }
    return 0;
}

/* ---------- the log.txt fallback ---------- */

struct hash_set {
    size_t n, cap;               /* cap is a power of two; 0 marks an empty slot */
    uint64_t *slot;
};

static int set_grow(struct hash_set *h);

/* 1 if v was new, 0 if known, -1 without memory. */
static int set_add(struct hash_set *h, uint64_t v)
{
    if (!v)
        v = 1;
    if (2 * (h->n + 1) > h->cap && set_grow(h))
        return -1;
    for (size_t i = v & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (h->slot[i] == v)
            return 0;
        if (!h->slot[i]) {
            h->slot[i] = v;
            h->n++;
            return 1;
        }
    }
}

static int set_grow(struct hash_set *h)
{
    struct hash_set bigger = { 0, h->cap ? 2 * h->cap : 4096, NULL };
    bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
    if (!bigger.slot)
        return -1;
    for (size_t i = 0; i < h->cap; i++)
        if (h->slot[i])
            set_add(&bigger, h->slot[i]);
    free(h->slot);
    *h = bigger;
    return 0;
}

/* FNV-1a, continued from h: the states of one operation's file systems hashed in order. */
static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h;
}

#define FNV_START 0xcbf29ce484222325ULL

struct log_scan {
    struct hash_set seen;
    uint64_t hash;
    double seq;
    int have_state;
};

/* The states after operation seq are complete: count them as one state of the search. */
static int close_op(struct log_scan *sc, struct series *out)
{
    if (!sc->have_state)
        return 0;
    int added = set_add(&sc->seen, sc->hash);
    sc->have_state = 0;
    sc->hash = FNV_START;
    if (added < 0)
        return -1;
    return sc->seq > 0 ? series_push(out, sc->seq, (double)sc->seen.n) : 0;
}

static void add_state(struct log_scan *sc, const char *line)
{
    const char *st = strstr(line, " state=");
    if (!st)
        return;
    st += 7;
    sc->hash = fnv1a(sc->hash, st, strcspn(st, " \n"));
    sc->hash = fnv1a(sc->hash, "|", 1);
    sc->have_state = 1;
}

static int scan_line(struct log_scan *sc, const char *line, struct series *out)
{
    if (!strncmp(line, "op ", 3)) {
        if (close_op(sc, out))
            return -1;
        sc->seq = strtod(line + 3, NULL);
    } else if (!strncmp(line, "res ", 4) || !strncmp(line, "init ", 5)) {
        add_state(sc, line);
    }
    return 0;
}

int log_states_by_ops(const char *log_path, struct series *out)
{
    FILE *f = fopen(log_path, "r");
    if (!f)
        return -1;
    struct log_scan sc = { { 0, 0, NULL }, FNV_START, 0, 0 };
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (!rc && getline(&line, &cap, f) > 0)
        rc = scan_line(&sc, line, out);
    rc = rc || close_op(&sc, out);
    free(line);
    free(sc.seen.slot);
    fclose(f);
    if (!rc)
        series_thin(out);
    return rc ? -1 : 0;
}
