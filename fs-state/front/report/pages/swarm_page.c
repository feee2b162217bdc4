/* The report.html of a swarm directory: totals, one row per VT, merged discrepancies. */
#include "swarm_page.h"
#include "engine/vocab/exits.h"
#include "front/report/sections/disc_list.h"
#include "front/report/html/html.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MERGED 200

static void kv(FILE *f, const char *key, const char *text)
{
    fputs("<tr><th>", f);
    html_esc(f, key);
    fputs("</th><td>", f);
    html_esc(f, text);
    fputs("</td></tr>\n", f);
}

static void kv_num(FILE *f, const char *key, double v)
{
    fputs("<tr><th>", f);
    html_esc(f, key);
    fputs("</th><td>", f);
    html_num(f, v);
    fputs("</td></tr>\n", f);
}

static int swarm_exit_code(const char *status)
{
    return !strcmp(status, "discrepancy") ? METIS_EXIT_DISCREPANCY
         : !strcmp(status, "interrupted") ? METIS_EXIT_INTERRUPTED
         : !strcmp(status, "ok") ? METIS_EXIT_OK : METIS_EXIT_INFRA;
}

static const char *status_class(const char *st)
{
    return !strcmp(st, "ok") ? "status-ok" : !strcmp(st, "discrepancy") ? "status-bad"
                                                                         : "status-warn";
}

static void status_row(FILE *f, const char *status, json_object *s)
{
    fprintf(f, "<tr><th>exit status</th><td><span class=\"%s\">", status_class(status));
    html_escf(f, "%s (exit %d)", status, swarm_exit_code(status));
    fputs("</span>", f);
    if (rj_num(s, "stopped", 0) > 0)
        fputs(", stopped at the first discrepancy", f);
    if (rj_num(s, "interrupted", 0) > 0)
        fputs(", interrupted", f);
    fputs("</td></tr>\n", f);
}

static void header(FILE *f, json_object *s)
{
    json_object *t = rj_get(s, "totals");
    const char *status = rj_str(s, "status", "unknown");
    char line[256];
    fputs("<h1>Metis swarm ", f);
    html_esc(f, rj_str(s, "swarm_id", "?"));
    fputs("</h1>\n<table class=\"kv\">\n", f);
    kv(f, "config", rj_str(s, "config", "?"));
    status_row(f, status, s);
    kv(f, "swarm seed", rj_text(s, "swarm_seed"));
    kv_num(f, "VTs", rj_num(s, "vts", 0));
    snprintf(line, sizeof line, "%.1f s per VT, %.1f s in all", rj_num(s, "seconds", 0),
             rj_num(s, "wall_seconds", 0));
    kv(f, "duration", line);
    kv_num(f, "operations", rj_num(t, "ops", 0));
    kv_num(f, "states", rj_num(t, "states", 0));
    kv_num(f, "ops/s (sum over VTs)", rj_num(t, "ops_per_s", 0));
    kv_num(f, "discrepancies", rj_num(t, "discrepancies", 0));
    snprintf(line, sizeof line, "%.0f ok, %.0f failed, %.0f hosts lost", rj_num(t, "vts_ok", 0),
             rj_num(t, "vts_failed", 0), rj_num(s, "hosts_lost", 0));
    kv(f, "VT outcome", line);
    fputs("<tr><th>files</th><td>", f);
    html_link(f, "summary.txt", "summary.txt");
    fputs(" · ", f);
    html_link(f, "summary.json", "summary.json");
    fputs(" · ", f);
    html_link(f, "discrepancies.txt", "discrepancies.txt");
    fputs("</td></tr>\n</table>\n", f);
}

static void hosts_table(FILE *f, json_object *s)
{
    json_object *hosts = rj_get(s, "hosts");
    size_t n = rj_len(s, "hosts");
    fputs("<h2 id=\"hosts\">Hosts</h2>\n<table class=\"grid\"><tr><th>sshlogin</th><th>host name"
          "</th><th>state</th><th class=\"n\">cores</th><th class=\"n\">slots</th>"
          "<th class=\"n\">VTs</th><th>collected</th><th>missing / error</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        json_object *h = json_object_array_get_idx(hosts, i);
        fputs("<tr><td>", f);
        html_esc(f, rj_str(h, "sshlogin", ""));
        fputs("</td><td>", f);
        html_esc(f, rj_str(h, "hostname", ""));
        fputs("</td><td>", f);
        html_esc(f, rj_str(h, "state", ""));
        fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f"
                "</td><td>%s</td><td>", rj_num(h, "cores", 0), rj_num(h, "slots", 0),
                rj_num(h, "vts", 0), rj_num(h, "collected", 0) > 0 ? "yes" : "no");
        html_escf(f, "%s %s", rj_str(h, "missing", ""), rj_str(h, "error", ""));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}


static void num_cell(FILE *f, json_object *v, const char *key)
{
    fputs("<td class=\"n\">", f);
    html_num(f, rj_num(v, key, 0));
    fputs("</td>", f);
}

/* The VT's own report: written by its metis run; one left without (an old worker) gets it now. */
static void vt_report_link(FILE *f, const char *dir, int vt)
{
    char vdir[PATH_MAX + 32], path[PATH_MAX + 64], href[64];
    snprintf(vdir, sizeof vdir, "%s/vt-%d", dir, vt);
    snprintf(path, sizeof path, "%s/%s", vdir, REPORT_HTML_FILE);
    if (access(path, F_OK) != 0) {
        snprintf(path, sizeof path, "%s/summary.json", vdir);
        if (access(path, F_OK) != 0) {
            fputs("-", f);
            return;
        }
        snprintf(href, sizeof href, "vt-%d/summary.json", vt);
        html_link(f, href, "summary.json");
        return;
    }
    snprintf(href, sizeof href, "vt-%d/%s", vt, REPORT_HTML_FILE);
    html_link(f, href, "report");
}

static void vt_row(FILE *f, const char *dir, json_object *v)
{
    int vt = rj_int(v, "vt", -1);
    const char *st = rj_str(v, "status", "?");
    fprintf(f, "<tr><td class=\"n\">%d</td><td>", vt);
    html_esc(f, rj_str(v, "sshlogin", ""));
    if (rj_str(v, "hostname", "")[0])
        html_escf(f, " (%s)", rj_str(v, "hostname", ""));
    fputs("</td><td class=\"mono\">", f);
    html_esc(f, rj_str(v, "options", ""));
    fputs("</td><td class=\"mono\">", f);
    html_esc(f, rj_text(v, "input_seed"));
    fputs("</td>", f);
    num_cell(f, v, "ops");
    num_cell(f, v, "ops_per_s");
    num_cell(f, v, "states");
    num_cell(f, v, "discrepancies");
    fprintf(f, "<td class=\"%s\">", status_class(st));
    html_esc(f, st);
    fputs("</td><td>", f);
    if (vt >= 0)
        vt_report_link(f, dir, vt);
    fputs("</td></tr>\n", f);
}

static void vt_table(FILE *f, const char *dir, json_object *s)
{
    json_object *vts = rj_get(s, "vt");
    size_t n = rj_len(s, "vt");
    fputs("<h2 id=\"vts\">Verification tasks</h2>\n<table class=\"grid\"><tr><th class=\"n\">VT"
          "</th><th>host</th><th>options</th><th>input seed</th><th class=\"n\">ops</th>"
          "<th class=\"n\">ops/s</th><th class=\"n\">states</th><th class=\"n\">disc.</th>"
          "<th>status</th><th>report</th></tr>\n", f);
    for (size_t i = 0; i < n; i++)
        vt_row(f, dir, json_object_array_get_idx(vts, i));
    fputs("</table>\n", f);
}

struct merged {
    struct disc_ref ref;
    int vt, nvts;
    double first_s;              /* seconds into the first VT's run; < 0: unknown */
    char shape[32];              /* the first VT's search shape; "" when not recorded */
};

static struct merged *find_signature(struct merged *m, size_t n, const char *sig)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(m[i].ref.signature, sig))
            return &m[i];
    return NULL;
}

/* Adds one VT's classes: a signature already seen adds its hits and one more VT. */
static size_t merge_vt(struct merged *m, size_t n, json_object *classes, int vt)
{
    for (size_t i = 0; i < json_object_array_length(classes) && n < MAX_MERGED; i++) {
        struct disc_ref r;
        disc_ref_from_class(json_object_array_get_idx(classes, i), 0, &r);
        struct merged *seen = find_signature(m, n, r.signature);
        if (seen) {
            seen->ref.hits += r.hits > 0 ? r.hits : 0;
            seen->nvts++;
            continue;
        }
        m[n] = (struct merged){ r, vt, 1, -1, "" };
        n++;
    }
    return n;
}

/* A swarm-level "classes" list, whose elements name their VT, is taken as it is. */
static size_t swarm_classes(json_object *classes, struct merged *m)
{
    size_t n = 0;
    for (size_t i = 0; i < json_object_array_length(classes) && n < MAX_MERGED; i++) {
        /* The swarm's merged class: its first example's files are under "first". */
        json_object *c = json_object_array_get_idx(classes, i), *first = rj_get(c, "first");
        disc_ref_from_class(first ? first : c, 0, &m[n].ref);
        snprintf(m[n].ref.signature, sizeof m[n].ref.signature, "%s", rj_str(c, "signature", ""));
        m[n].ref.hits = rj_num(c, "hits", -1);
        disc_ref_known(c, &m[n].ref);
        if (first)
            m[n].ref.first_op = rj_num(first, "op", -1);
        m[n].first_s = first ? rj_num(first, "seconds", -1) : -1;
        snprintf(m[n].shape, sizeof m[n].shape, "%s", first ? rj_str(first, "shape", "") : "");
        m[n].vt = rj_int(first ? first : c, "vt", -1);
        m[n++].nvts = rj_get(c, "vts") ? (int)rj_len(c, "vts") : 1;
    }
    return n;
}

static size_t gather_classes(const char *dir, json_object *s, struct merged *m)
{
    size_t n = 0;
    json_object *vts = rj_get(s, "vt"), *own = rj_get(s, "classes");
    if (own && json_object_is_type(own, json_type_array))
        return swarm_classes(own, m);
    for (size_t i = 0; i < rj_len(s, "vt"); i++) {
        int vt = rj_int(json_object_array_get_idx(vts, i), "vt", -1);
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/vt-%d/summary.json", dir, vt);
        json_object *vs = rj_load(path), *classes = rj_get(vs, "classes");
        if (classes && json_object_is_type(classes, json_type_array))
            n = merge_vt(m, n, classes, vt);
        json_object_put(vs);
    }
    return n;
}

/* "class 2: in 3 VTs, first found by VT 5 after 12.50 s (shape dive30)"; what a swarm summary
 * of an older Metis does not record is left out. */
static void merged_title(const struct merged *m, size_t i, char *out, size_t len)
{
    char after[48] = "", shape[48] = "";
    if (m->first_s >= 0)
        snprintf(after, sizeof after, " after %.2f s", m->first_s);
    if (m->shape[0])
        snprintf(shape, sizeof shape, " (shape %s)", m->shape);
    snprintf(out, len, "class %zu: in %d VT%s, first found by VT %d%s%s", i + 1, m->nvts,
             m->nvts > 1 ? "s" : "", m->vt, after, shape);
}

static void show_merged(FILE *f, const char *dir, struct merged *m, size_t n)
{
    fprintf(f, "<p>%zu discrepancy class%s over all VTs.</p>\n", n, n == 1 ? "" : "es");
    for (size_t i = 0; i < n; i++) {
        char vdir[PATH_MAX + 32], prefix[32] = "";
        snprintf(vdir, sizeof vdir, "%s", dir);
        if (m[i].vt >= 0) {
            snprintf(vdir, sizeof vdir, "%s/vt-%d", dir, m[i].vt);
            snprintf(prefix, sizeof prefix, "vt-%d/", m[i].vt);
        }
        struct run_loc loc = { vdir, prefix };
        merged_title(&m[i], i, m[i].ref.title, sizeof m[i].ref.title);
        disc_ref_show(f, &loc, &m[i].ref, i < DISC_DETAILED);
    }
}

/* Without classes: the swarm's list of discrepancies, each file found in its VT's directory. */
static void show_list(FILE *f, const char *dir, json_object *s)
{
    json_object *list = rj_get(s, "discrepancies");
    size_t n = rj_len(s, "discrepancies");
    if (!n)
        fputs("<p>No discrepancy.</p>\n", f);
    for (size_t i = 0; i < n && i < DISC_LISTED; i++) {
        json_object *d = json_object_array_get_idx(list, i);
        int vt = rj_int(d, "vt", -1);
        char vdir[PATH_MAX + 32], prefix[32];
        snprintf(vdir, sizeof vdir, "%s/vt-%d", dir, vt);
        snprintf(prefix, sizeof prefix, "vt-%d/", vt);
        struct run_loc loc = { vdir, prefix };
        struct disc_ref r;
        memset(&r, 0, sizeof r);
        r.hits = -1;
        r.first_op = -1;
        snprintf(r.title, sizeof r.title, "VT %d: discrepancy at operation %.0f (file system %s)",
                 vt, rj_num(d, "seq", -1), rj_str(d, "fs", "?"));
        snprintf(r.detail, sizeof r.detail, "%s", rj_str(d, "file", ""));
        disc_ref_show(f, &loc, &r, i < DISC_DETAILED);
    }
}

void swarm_page(FILE *f, const char *dir, json_object *summary)
{
    header(f, summary);
    hosts_table(f, summary);
    vt_table(f, dir, summary);
    fputs("<h2 id=\"discrepancies\">Discrepancies</h2>\n", f);
    disc_known_split(f, summary);
    struct merged *m = calloc(MAX_MERGED, sizeof *m);
    size_t n = m ? gather_classes(dir, summary, m) : 0;
    if (n)
        show_merged(f, dir, m, n);
    else
        show_list(f, dir, summary);
    free(m);
}
