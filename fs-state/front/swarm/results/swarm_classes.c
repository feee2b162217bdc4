/* The swarm's discrepancy classes: every VT's classes (its summary.json) merged by signature, with their hits and the VTs that hit them. */
#include "swarm_classes.h"
#include "lib/text/buf.h"
#include "front/cli/classes/summary_classes.h"
#include "front/cli/triage/known.h"
#include "front/cli/classes/class_groups.h"
#include "front/cli/options/search_shape.h"
#include "lib/system/helpers.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct merged {
    struct run_class first;     /* the example of the VT that found it first (sooner) */
    int first_vt;
    double hits;
    int *vts, nvts;
    size_t vts_cap;
};

static struct merged *classes;
static int nclasses;
static int sig_width = 40;   /* the signature column of the text summary */
static size_t classes_cap;

void swarm_classes_reset(void)
{
    for (int k = 0; k < nclasses; k++)
        free(classes[k].vts);
    free(classes);
    classes = NULL;
    nclasses = 0;
    classes_cap = 0;
}

static struct merged *find_or_add(const struct run_class *c, int vt)
{
    for (int k = 0; k < nclasses; k++)
        if (strcmp(classes[k].first.signature, c->signature) == 0)
            return &classes[k];
    if (array_reserve(&classes, &classes_cap, (size_t)nclasses + 1, sizeof *classes))
        return NULL;
    struct merged *m = &classes[nclasses++];
    memset(m, 0, sizeof *m);
    m->first = *c;
    m->first_vt = vt;
    return m;
}

/* Whether c was found sooner into its VT's run than than: a summary that does not say when (an
 * older Metis's) is later than any that does, and a tie stays with the VT added first, the
 * lowest. */
static int sooner(const struct run_class *c, const struct run_class *than)
{
    return c->first_s >= 0 && (than->first_s < 0 || c->first_s < than->first_s);
}

static void add_hit(const struct run_class *c, int vt)
{
    struct merged *m = find_or_add(c, vt);
    if (!m || array_reserve(&m->vts, &m->vts_cap, (size_t)m->nvts + 1, sizeof *m->vts))
        return;
    if (m->nvts && sooner(c, &m->first)) {
        m->first = *c;
        m->first_vt = vt;
    }
    m->vts[m->nvts++] = vt;
    m->hits += c->hits;
}

int swarm_classes_add_vt(const char *summary_json, int vt,
                         void (*each)(void *ctx, int vt, const struct run_class *c), void *ctx)
{
    struct run_class *v;
    int n = classfile_listed(summary_json, &v);
    for (int k = 0; k < n; k++) {
        add_hit(&v[k], vt);
        if (each)
            each(ctx, vt, &v[k]);
    }
    free(v);
    return n < 0 ? -1 : n;
}

int swarm_classes_count(void)
{
    return nclasses;
}

static void json_vts(const struct merged *m, FILE *f)
{
    fputc('[', f);
    for (int i = 0; i < m->nvts; i++)
        fprintf(f, "%s%d", i ? "," : "", m->vts[i]);
    fputc(']', f);
}

/* The known file's record of m, or NULL when m is new (or there is no known file). */
static const struct known_class *known_of(const struct swarm *s, const struct merged *m)
{
    int i = s->o.known ? known_match(&s->known, m->first.signature, m->first.group) : -1;
    return i >= 0 ? &s->known.v[i] : NULL;
}

int swarm_classes_new(const struct swarm *s)
{
    int n = 0;
    for (int k = 0; k < nclasses; k++)
        n += known_of(s, &classes[k]) == NULL;
    return n;
}

void swarm_classes_known_json(const struct swarm *s, FILE *f)
{
    int *seen = calloc((size_t)s->known.n + 1, sizeof *seen);
    if (!s->o.known || !seen) {
        free(seen);
        return;
    }
    for (int k = 0; k < nclasses; k++) {
        int i = known_match(&s->known, classes[k].first.signature, classes[k].first.group);
        if (i >= 0)
            seen[i] = 1;
    }
    int fresh = swarm_classes_new(s);
    known_json_split(f, s->o.known, &s->known, seen, fresh, nclasses - fresh);
    free(seen);
}

static void json_known(const struct swarm *s, const struct merged *m, FILE *f)
{
    const struct known_class *kc = known_of(s, m);
    char note[2 * KNOWN_TEXT_MAX], link[2 * KNOWN_TEXT_MAX];
    json_escape(kc ? kc->note : "", note, sizeof note);
    json_escape(kc ? kc->link : "", link, sizeof link);
    if (s->o.known)
        fprintf(f, ",\"known\":%s,\"note\":\"%s\",\"link\":\"%s\"", kc ? "true" : "false",
                note, link);
}

static const char *shape_of_vt(const struct swarm *s, int vt)
{
    return search_shape_get(search_shape_of(s->o.swarm_seed, vt))->name;
}

/* "first found by VT 3 after 12.50 s (shape dive30)"; without the time when the VT's summary
 * does not record it. */
static void first_found(const struct swarm *s, const struct merged *m, char *out, size_t len)
{
    char after[48] = "";
    if (m->first.first_s >= 0)
        snprintf(after, sizeof after, " after %.2f s", m->first.first_s);
    snprintf(out, len, "first found by VT %d%s (shape %s)", m->first_vt, after,
             shape_of_vt(s, m->first_vt));
}

/* The first example's seconds into its run, null when its summary does not say. */
static void json_seconds(double v, FILE *f)
{
    if (v >= 0)
        fprintf(f, "%.3f", v);
    else
        fputs("null", f);
}

static void json_one(const struct swarm *s, const struct merged *m, FILE *f)
{
    char sig[400], hint[2300], dir[PATH_MAX + 32], qd[2 * PATH_MAX + 64], triage[700];
    char group[400], cause[500];
    json_escape(m->first.group, group, sizeof group);
    json_escape(m->first.cause, cause, sizeof cause);
    json_escape(m->first.signature, sig, sizeof sig);
    json_escape(m->first.hint, hint, sizeof hint);
    json_escape(m->first.triage, triage, sizeof triage);
    snprintf(dir, sizeof dir, "%s/vt-%d", s->out, m->first_vt);
    json_escape(dir, qd, sizeof qd);
    fprintf(f, "{\"signature\":\"%s\",\"fs\":\"%s\",\"hits\":%.0f,\"vts\":", sig, m->first.fs,
            m->hits);
    json_vts(m, f);
    fprintf(f, ",\"first\":{\"vt\":%d,\"seconds\":", m->first_vt);
    json_seconds(m->first.first_s, f);
    fprintf(f, ",\"shape\":\"%s\",\"run_dir\":\"%s\",\"op\":%.0f,\"detail\":\"%s\","
            "\"trace\":\"%s\",\"trace_ops\":%.0f,\"repro\":\"%s\",\"triage\":\"%s\"},"
            "\"hint\":\"%s\"", shape_of_vt(s, m->first_vt), qd, m->first.first_op,
            m->first.detail, m->first.trace, m->first.trace_ops, m->first.repro, triage, hint);
    fprintf(f, ",\"group\":\"%s\",\"cause\":\"%s\"", group, cause);
    json_known(s, m, f);
    fputc('}', f);
}

void swarm_classes_json(const struct swarm *s, FILE *f)
{
    fputs("\"classes\":[", f);
    for (int k = 0; k < nclasses; k++) {
        if (k)
            fputc(',', f);
        json_one(s, &classes[k], f);
    }
    fputs("],", f);
}

static void text_vts(const struct merged *m, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < m->nvts && n + 16 < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%d", i ? "," : "", m->vts[i]);
}

/* With --known: the split, and the known classes no VT found. */
static void text_known(const struct swarm *s, FILE *f)
{
    int fresh = swarm_classes_new(s), gone = 0;
    for (int i = 0; i < s->known.n; i++)
        for (int k = 0; k <= nclasses; k++)
            if (k == nclasses) {
                fprintf(f, "  not seen: %s%s%s%.300s\n", s->known.v[i].group ? "group " : "",
                        s->known.v[i].signature, s->known.v[i].note[0] ? ": " : "",
                        s->known.v[i].note);
                gone++;
            } else if (known_match(&s->known, classes[k].first.signature,
                                   classes[k].first.group) == i) {
                break;
            }
    fprintf(f, "known file %s: %d new, %d known, %d known not seen\n", s->o.known, fresh,
            nclasses - fresh, gone);
}

/* The merged classes' cause groups (their first examples' keys). */
static int groups_count(void)
{
    int n = 0;
    for (int k = 0; k < nclasses; k++) {
        int j = 0;
        while (j < k && strcmp(classes[j].first.group, classes[k].first.group))
            j++;
        n += j == k;
    }
    return n;
}

static void text_mark(const struct swarm *s, const struct merged *m, FILE *f)
{
    const struct known_class *kc = known_of(s, m);
    if (s->o.known)
        fprintf(f, "  %-*s %s%s%.300s\n", sig_width, "", kc ? "known" : "NEW", kc && kc->note[0] ? ": " : "",
                kc ? kc->note : "");
}

void swarm_classes_text(const struct swarm *s, FILE *f)
{
    char vts[256], found[128];
    sig_width = 40;             /* the longest signature's, so that none is cut */
    for (int k = 0; k < nclasses; k++)
        if ((int)strlen(classes[k].first.signature) > sig_width)
            sig_width = (int)strlen(classes[k].first.signature);
    if (nclasses)
        fprintf(f, "%d discrepancy class%s in %d group%s:\n", nclasses, nclasses == 1 ? "" : "es",
                groups_count(), groups_count() == 1 ? "" : "s");
    for (int k = 0; k < nclasses; k++) {
        const struct merged *m = &classes[k];
        text_vts(m, vts, sizeof vts);
        first_found(s, m, found, sizeof found);
        fprintf(f, "  %-*s %6.0f hits  VT%s %s  %s at op %.0f, vt-%d/%s\n", sig_width,
                m->first.signature, m->hits, m->nvts == 1 ? "" : "s", vts, found,
                m->first.first_op, m->first_vt, m->first.detail);
        if (m->first.repro[0])
            fprintf(f, "  %-*s trace vt-%d/%s (%.0f ops), reproducer vt-%d/%s\n", sig_width, "",
                    m->first_vt, m->first.trace, m->first.trace_ops, m->first_vt,
                    m->first.repro);
        if (class_has_cause(&m->first))
            fprintf(f, "  %-*s group: %s\n", sig_width, "", m->first.group);
        if (m->first.hint[0])
            fprintf(f, "  %-*s hint: %.300s\n", sig_width, "", m->first.hint);
        text_mark(s, m, f);
    }
    if (s->o.known)
        text_known(s, f);
}
