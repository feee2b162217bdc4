/* The discrepancies section of report.html: classes from summary.json, else discrepancy-N.txt. */
#include "disc_list.h"
#include "class_table.h"
#include "group_table.h"
#include "disc_view.h"
#include "front/report/html/html.h"
#include "tree/tree.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A path as it lies in the run directory now: the directory may have moved since the path
 * was written (a swarm's VT directories were copied), so an outside path falls back on its
 * name inside the directory. Returns the part after the directory, or NULL. */
static const char *inside_run(const struct run_loc *loc, const char *path, char *buf, size_t len)
{
    size_t dl = strlen(loc->dir);
    if (path[0] != '/')
        return strstr(path, "..") ? NULL : path;    /* the page links nothing above its directory */
    if (!strncmp(path, loc->dir, dl) && path[dl] == '/')
        return path + dl + 1;
    char real[PATH_MAX];
    if (realpath(path, real) && !strncmp(real, loc->dir, dl) && real[dl] == '/') {
        snprintf(buf, len, "%s", real + dl + 1);
        return buf;
    }
    const char *base = strrchr(path, '/') + 1;
    snprintf(real, sizeof real, "%s/%s", loc->dir, base);
    return *base && access(real, F_OK) == 0 ? base : NULL;
}

void run_href(const struct run_loc *loc, const char *path, char *out, size_t len)
{
    char buf[PATH_MAX];
    const char *rel = path && path[0] ? inside_run(loc, path, buf, sizeof buf) : NULL;
    if (rel)
        snprintf(out, len, "%s%s", loc->href_prefix, rel);
    else
        out[0] = '\0';
}

static void file_link(FILE *f, const struct run_loc *loc, const char *path, const char *what)
{
    char href[PATH_MAX + 64];
    if (!path[0])
        return;
    run_href(loc, path, href, sizeof href);
    fprintf(f, "<li>%s: ", what);
    if (href[0])
        html_link(f, href, href);
    else
        html_esc(f, path);
    fputs("</li>\n", f);
}

static void show_detail(FILE *f, const struct run_loc *loc, const char *path)
{
    char full[2 * PATH_MAX], buf[PATH_MAX];
    const char *rel = inside_run(loc, path, buf, sizeof buf);
    snprintf(full, sizeof full, "%s/%s", loc->dir, rel ? rel : "");
    struct disc_file d;
    if (!rel || disc_parse(full, &d) < 0) {
        fputs("<p class=\"note\">The detail file cannot be read.</p>\n", f);
        return;
    }
    disc_view(f, &d);
    disc_free(&d);
}

/* <p class="CLS">LABEL TEXT</p>, nothing when text is empty. */
static void html_para(FILE *f, const char *cls, const char *label, const char *text)
{
    if (!text[0])
        return;
    fprintf(f, "<p class=\"%s\">", cls);
    html_esc(f, label);
    html_esc(f, text);
    fputs("</p>\n", f);
}

void disc_ref_show(FILE *f, const struct run_loc *loc, const struct disc_ref *r, int detail)
{
    fputs("<section class=\"disc\"><h3>", f);
    html_esc(f, r->title);
    fputs("</h3>\n", f);
    if (r->signature[0]) {
        fputs("<p>signature: <span class=\"mono\">", f);
        html_esc(f, r->signature);
        fputs("</span></p>\n", f);
    }
    html_para(f, "group", "group: ", r->group);
    if (r->known[0]) {
        fprintf(f, "<p class=\"%s\">", strcmp(r->known, "new") ? "note" : "status-bad");
        html_esc(f, strcmp(r->known, "new") ? r->known : "new: not in the known file");
        fputs("</p>\n", f);
    }
    if (r->hits >= 0 || r->first_op >= 0) {
        fputs("<p>", f);
        if (r->hits >= 0)
            html_escf(f, "hits: %.0f ", r->hits);
        if (r->first_op >= 0)
            html_escf(f, "first at operation %.0f", r->first_op);
        fputs("</p>\n", f);
    }
    fputs("<ul>\n", f);
    file_link(f, loc, r->detail, "detail");
    file_link(f, loc, r->trace, "shrunk trace");
    file_link(f, loc, r->repro, "reproducer");
    fputs("</ul>\n", f);
    if (detail && r->detail[0])
        show_detail(f, loc, r->detail);
    fputs("</section>\n", f);
}

void disc_ref_from_class(json_object *cls, int index, struct disc_ref *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->title, sizeof r->title, "class %d", index + 1);
    snprintf(r->signature, sizeof r->signature, "%s", rj_str(cls, "signature", ""));
    r->hits = rj_num(cls, "hits", -1);
    r->first_op = rj_num(cls, "first_op", -1);
    snprintf(r->detail, sizeof r->detail, "%s", rj_str(cls, "detail", ""));
    snprintf(r->trace, sizeof r->trace, "%s", rj_str(cls, "trace", ""));
    snprintf(r->repro, sizeof r->repro, "%s", rj_str(cls, "repro", ""));
    const char *group = rj_str(cls, "group", ""), *cause = rj_str(cls, "cause", "");
    if (group[0] && strcmp(group, r->signature))   /* a group of its own says nothing more */
        snprintf(r->group, sizeof r->group, "%.200s%s%.300s", group, cause[0] ? ": " : "", cause);
    disc_ref_known(cls, r);
}

void disc_ref_known(json_object *cls, struct disc_ref *r)
{
    const char *note = rj_str(cls, "note", ""), *link = rj_str(cls, "link", "");
    if (!rj_get(cls, "known"))
        r->known[0] = '\0';
    else if (!rj_true(cls, "known"))
        snprintf(r->known, sizeof r->known, "new");
    else
        snprintf(r->known, sizeof r->known, "known%s%.500s%s%.500s%s", note[0] ? ": " : "", note,
                 link[0] ? " (" : "", link, link[0] ? ")" : "");
}

void disc_known_split(FILE *f, json_object *summary)
{
    json_object *gone = rj_get(summary, "known_not_seen");
    if (!rj_get(summary, "known_file"))
        return;
    fputs("<p>Known file <span class=\"mono\">", f);
    html_esc(f, rj_str(summary, "known_file", ""));
    fputs("</span>", f);
    html_escf(f, ": %.0f new class%s, %.0f known; %zu known class%s not seen%s",
              rj_num(summary, "new_classes", 0), rj_num(summary, "new_classes", 0) == 1 ? "" : "es",
              rj_num(summary, "known_classes", 0), rj_len(summary, "known_not_seen"),
              rj_len(summary, "known_not_seen") == 1 ? "" : "es",
              rj_len(summary, "known_not_seen") ? ":" : ".");
    fputs("</p>\n", f);
    if (!rj_len(summary, "known_not_seen"))
        return;
    fputs("<ul>\n", f);
    for (size_t i = 0; i < rj_len(summary, "known_not_seen"); i++) {
        json_object *c = json_object_array_get_idx(gone, i);
        fputs("<li><span class=\"mono\">", f);
        html_esc(f, rj_str(c, "signature", ""));
        fputs("</span> ", f);
        html_esc(f, rj_str(c, "note", ""));
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* The classes group by group: the class table, the groups' table and the lacks line that
 * declares every refusal (declared: summary.json's "lacks"), then each class's panel. */
static void show_classes(FILE *f, const struct run_loc *loc, json_object *classes,
                         json_object *groups, json_object *declared)
{
    size_t n = json_object_array_length(classes);
    size_t *order = calloc(n, sizeof *order);
    int *gid = calloc(n, sizeof *gid);
    if (!order || !gid) {
        free(order);
        free(gid);
        return;
    }
    int ngroups = group_order(classes, groups, order, gid);
    fprintf(f, "<p id=\"class-count\">%zu discrepancy class%s in %d group%s.</p>\n", n,
            n == 1 ? "" : "es", ngroups, ngroups == 1 ? "" : "s");
    class_table(f, loc, classes, order, gid);
    group_table(f, classes, groups);
    group_lacks(f, classes, declared);
    for (size_t k = 0; k < n && k < DISC_LISTED; k++) {
        struct disc_ref r;
        size_t i = order[k];
        disc_ref_from_class(json_object_array_get_idx(classes, i), (int)i, &r);
        fprintf(f, "<div id=\"class-%zu\">\n", i + 1);
        disc_ref_show(f, loc, &r, k < DISC_DETAILED);
        fputs("</div>\n", f);
    }
    free(order);
    free(gid);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

struct numbers {
    long *v;
    size_t n, max;
};

/* Keeps N when name is discrepancy-N.txt; 1 (the listing stops) once max are kept. */
static int detail_number(void *ctx, const char *name)
{
    struct numbers *s = ctx;
    long k;
    char tail[8];
    if (s->n >= s->max)
        return 1;
    if (sscanf(name, "discrepancy-%ld.%7s", &k, tail) == 2 && !strcmp(tail, "txt"))
        s->v[s->n++] = k;
    return 0;
}

/* The N of every discrepancy-N.txt, sorted; *n is how many (at most max). */
static long *detail_numbers(const char *dir, size_t max, size_t *n)
{
    struct numbers s = { malloc(max * sizeof(long)), 0, max };
    if (s.v) {
        tree_dir_names(dir, detail_number, &s);
        qsort(s.v, s.n, sizeof *s.v, cmp_long);
    }
    *n = s.n;
    return s.v;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

struct related {
    char pre[64], pre2[64];     /* discrepancy-N. and discrepancy-N- */
    struct disc_ref *r;
};

/* The first reproducer and the first other trace file of discrepancy N go into r. */
static int related_file(void *ctx, const char *nm)
{
    struct related *s = ctx;
    if ((strncmp(nm, s->pre, strlen(s->pre)) && strncmp(nm, s->pre2, strlen(s->pre2))) ||
        !strcmp(nm + strlen(s->pre), "txt"))
        return 0;
    char *slot = strstr(nm, "repro") || ends_with(nm, ".c") ? s->r->repro : s->r->trace;
    if (!slot[0])
        snprintf(slot, PATH_MAX, "%s", nm);
    return 0;
}

/* Other files a triage step left beside discrepancy-N.txt: discrepancy-N.* and discrepancy-N-*. */
static void related_files(const struct run_loc *loc, long k, struct disc_ref *r)
{
    struct related s = { .r = r };
    snprintf(s.pre, sizeof s.pre, "discrepancy-%ld.", k);
    snprintf(s.pre2, sizeof s.pre2, "discrepancy-%ld-", k);
    tree_dir_names(loc->dir, related_file, &s);
}

static void show_files(FILE *f, const struct run_loc *loc, json_object *summary)
{
    size_t n;
    long *num = detail_numbers(loc->dir, DISC_LISTED, &n);
    double counted = rj_num(summary, "discrepancies", (double)n);
    if (!n) {
        fprintf(f, "<p>%s</p>\n", counted > 0 ? "The run counted discrepancies but left no "
                "discrepancy-N.txt." : "No discrepancy.");
        free(num);
        return;
    }
    fprintf(f, "<p>%.0f discrepanc%s%s.</p>\n", counted, counted == 1 ? "y" : "ies",
            n >= DISC_LISTED ? " (the first ones listed)" : "");
    for (size_t i = 0; i < n; i++) {
        struct disc_ref r;
        memset(&r, 0, sizeof r);
        r.hits = r.first_op = -1;
        snprintf(r.title, sizeof r.title, "discrepancy %ld", num[i]);
        snprintf(r.detail, sizeof r.detail, "discrepancy-%ld.txt", num[i]);
        related_files(loc, num[i], &r);
        disc_ref_show(f, loc, &r, i < DISC_DETAILED);
    }
    free(num);
}

void disc_section(FILE *f, const struct run_loc *loc, json_object *summary)
{
    json_object *classes = rj_get(summary, "classes");
    fputs("<h2 id=\"discrepancies\">Discrepancies</h2>\n", f);
    disc_known_split(f, summary);
    if (classes && json_object_is_type(classes, json_type_array) &&
        json_object_array_length(classes) > 0)
        show_classes(f, loc, classes, rj_get(summary, "groups"), rj_get(summary, "lacks"));
    else
        show_files(f, loc, summary);
}
