/* report.html's charts of summary.json: reach as stacked bars, coverage as paired bars. */
#include "charts.h"
#include "front/report/html/html.h"
#include "front/report/html/svg.h"
#include <stdlib.h>
#include <string.h>

#define MAX_OPS 64
#define MAX_SEGS 48              /* "ok" and the errnos seen */
#define MAX_BARS 64

static const char *const OK_COLOR = "#2e9d4f";
/* The errnos the operations return most, each with its own colour in every report. */
static const struct { const char *name, *color; } ERRNO_COLORS[] = {
    { "ENOENT", "#ff7f0e" }, { "EEXIST", "#d62728" }, { "ENOTDIR", "#8c564b" },
    { "EISDIR", "#9467bd" }, { "ENOTEMPTY", "#e377c2" }, { "ELOOP", "#bcbd22" },
    { "EINVAL", "#1f77b4" }, { "ENOSPC", "#17becf" }, { "EPERM", "#f4a582" },
    { "ENODATA", "#7f7f7f" }, { "EACCES", "#c49c94" }, { "ENAMETOOLONG", "#dbdb8d" },
    { "EFBIG", "#9edae5" }, { "EMLINK", "#c5b0d5" }, { "EXDEV", "#f7b6d2" },
    { "EBUSY", "#ffbb78" }, { "EOPNOTSUPP", "#393b79" }, { "ERANGE", "#637939" },
    { "E2BIG", "#8c6d31" }, { "ENODEV", "#843c39" },
};
static const char *const OTHER_COLORS[] = { "#5254a3", "#8ca252", "#bd9e39", "#ad494a",
                                            "#a55194", "#6b6ecf", "#b5cf6b", "#e7ba52" };

struct reach_table {
    size_t nrows, nsegs;
    const char *row[MAX_OPS], *seg[MAX_SEGS], *color[MAX_SEGS];
    double total[MAX_OPS], value[MAX_OPS * MAX_SEGS], seg_sum[MAX_SEGS];
};

static size_t seg_index(struct reach_table *t, const char *name)
{
    for (size_t k = 0; k < t->nsegs; k++)
        if (!strcmp(t->seg[k], name))
            return k;
    if (t->nsegs == MAX_SEGS)
        return MAX_SEGS;
    t->seg[t->nsegs] = name;
    return t->nsegs++;
}

static void add_reach_row(struct reach_table *t, const char *op, json_object *r)
{
    size_t row = t->nrows++;
    double sum = 0;
    t->row[row] = op;
    t->value[row * MAX_SEGS + seg_index(t, "succeeded")] = rj_num(r, "ok", 0);
    sum += rj_num(r, "ok", 0);
    json_object *errs = rj_get(r, "errors");
    if (errs && json_object_is_type(errs, json_type_object)) {
        json_object_object_foreach(errs, name, count) {
            size_t k = seg_index(t, name);
            if (k < MAX_SEGS)
                t->value[row * MAX_SEGS + k] = json_object_get_double(count);
            sum += json_object_get_double(count);
        }
    }
    double tried = rj_num(r, "tried", 0);
    t->total[row] = tried > sum ? tried : sum;
}

static const char *errno_color(const char *name, size_t *others)
{
    for (size_t i = 0; i < sizeof ERRNO_COLORS / sizeof *ERRNO_COLORS; i++)
        if (!strcmp(ERRNO_COLORS[i].name, name))
            return ERRNO_COLORS[i].color;
    return OTHER_COLORS[(*others)++ % (sizeof OTHER_COLORS / sizeof *OTHER_COLORS)];
}

static void assign_colors(struct reach_table *t)
{
    size_t others = 0;
    for (size_t k = 0; k < t->nsegs; k++)
        for (size_t r = 0; r < t->nrows; r++)
            t->seg_sum[k] += t->value[r * MAX_SEGS + k];
    t->color[0] = OK_COLOR;
    for (size_t k = 1; k < t->nsegs; k++)
        t->color[k] = errno_color(t->seg[k], &others);
}

static void reach_legend(FILE *f, const struct reach_table *t)
{
    fputs("<p class=\"legend\">", f);
    for (size_t k = 0; k < t->nsegs; k++) {
        fprintf(f, "<span class=\"item\"><span class=\"sw\" style=\"background:%s\"></span>",
                t->color[k]);
        html_esc(f, t->seg[k]);
        fputs(" (", f);
        html_num(f, t->seg_sum[k]);
        fputs(")</span> ", f);
    }
    fputs("</p>\n", f);
}

/* The values live in a table MAX_SEGS wide; the chart wants them nsegs wide. */
static double *packed_values(const struct reach_table *t)
{
    double *v = calloc(t->nrows * t->nsegs + 1, sizeof *v);
    for (size_t r = 0; v && r < t->nrows; r++)
        memcpy(v + r * t->nsegs, t->value + r * MAX_SEGS, t->nsegs * sizeof *v);
    return v;
}

static void never_tried(FILE *f, json_object *reach)
{
    int n = 0;
    json_object_object_foreach(reach, op, r) {
        if (rj_num(r, "tried", 0) > 0)
            continue;
        fputs(n++ ? ", " : "<p class=\"note\">Never tried (weight 0 or not drawn): ", f);
        html_esc(f, op);
    }
    if (n)
        fputs("</p>\n", f);
}

void reach_section(FILE *f, json_object *summary)
{
    json_object *reach = rj_get(summary, "reach");
    fputs("<h2 id=\"reach\">Reach: how each operation ended</h2>\n", f);
    if (!reach || !json_object_is_type(reach, json_type_object)) {
        fputs("<div class=\"nodata\">no reach data in summary.json</div>\n", f);
        return;
    }
    struct reach_table *t = calloc(1, sizeof *t);
    if (!t)
        return;
    seg_index(t, "succeeded");
    json_object_object_foreach(reach, op, r)
        if (t->nrows < MAX_OPS && rj_num(r, "tried", 0) > 0)
            add_reach_row(t, op, r);
    assign_colors(t);
    double *v = packed_values(t);
    if (v && t->nrows) {
        reach_legend(f, t);
        svg_stacked_rows(f, &(struct stack_rows){ t->nrows, t->nsegs, t->row, t->total, v,
                                                  t->seg, t->color });
    } else if (!t->nrows) {
        fputs("<div class=\"nodata\">no operation was tried</div>\n", f);
    }
    never_tried(f, reach);
    free(v);
    free(t);
}

struct bars {
    size_t n;
    char label_buf[MAX_BARS][64], tip_buf[MAX_BARS][64];
    const char *label[MAX_BARS], *tip[MAX_BARS];
    double expected[MAX_BARS], drawn[MAX_BARS];
};

/* Bounds are powers of two (partition k > 0 is [2^(k-1), 2^k)): 1Ki reads better than 1.02k. */
static void binary_num(char *out, size_t len, double v)
{
    static const char *const unit[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
    int u = 0;
    while (v >= 1024 && u < 6 && v / 1024 == (double)(long long)(v / 1024)) {
        v /= 1024;
        u++;
    }
    snprintf(out, len, "%.0f%s", v, unit[u]);
}

/* The label is the partition's lowest value, short enough to stand under its bar. */
static void partition_label(struct bars *b, json_object *p)
{
    char lo[24], hi[24];
    binary_num(lo, sizeof lo, rj_num(p, "lo", 0));
    binary_num(hi, sizeof hi, rj_num(p, "hi", 1) - 1);
    snprintf(b->label_buf[b->n], sizeof b->label_buf[0], "%s", lo);
    if (rj_num(p, "hi", 1) - rj_num(p, "lo", 0) <= 1)
        snprintf(b->tip_buf[b->n], sizeof b->tip_buf[0], "value %s", lo);
    else
        snprintf(b->tip_buf[b->n], sizeof b->tip_buf[0], "values %s to %s", lo, hi);
    b->label[b->n] = b->label_buf[b->n];
    b->tip[b->n] = b->tip_buf[b->n];
}

static void bars_figure(FILE *f, const struct bars *b, const char *caption, const char *ename,
                        const char *dname)
{
    fputs("<figure><figcaption>", f);
    html_esc(f, caption);
    fputs("</figcaption>\n", f);
    if (b->n)
        svg_pair_bars(f, &(struct pair_bars){ b->n, b->label, b->tip, b->expected, b->drawn,
                                              ename, dname });
    else
        fputs("<div class=\"nodata\">nothing drawn</div>\n", f);
    fputs("</figure>\n", f);
}

static void arg_kind(FILE *f, const char *kind, json_object *a, struct bars *b)
{
    json_object *parts = rj_get(a, "partitions");
    char caption[256];
    b->n = 0;
    for (size_t i = 0; parts && i < json_object_array_length(parts) && b->n < MAX_BARS; i++) {
        json_object *p = json_object_array_get_idx(parts, i);
        partition_label(b, p);
        b->expected[b->n] = rj_num(p, "expected", 0);
        b->drawn[b->n++] = rj_num(p, "share", 0);
    }
    snprintf(caption, sizeof caption, "%s (%s, %.0f draws)", kind, rj_str(a, "mode", "?"),
             rj_num(a, "draws", 0));
    bars_figure(f, rj_num(a, "draws", 0) > 0 ? b : &(struct bars){ .n = 0 }, caption,
                "configured weight", "drawn share");
}

static void bitmap_kind(FILE *f, const char *kind, json_object *m, struct bars *b)
{
    json_object *bits = rj_get(m, "bits");
    char caption[256];
    b->n = 0;
    for (size_t i = 0; bits && i < json_object_array_length(bits) && b->n < MAX_BARS; i++) {
        json_object *bit = json_object_array_get_idx(bits, i);
        snprintf(b->label_buf[b->n], sizeof b->label_buf[0], "%s", rj_str(bit, "name", "?"));
        b->label[b->n] = b->tip[b->n] = b->label_buf[b->n];
        b->expected[b->n] = rj_num(bit, "prob", 0);
        b->drawn[b->n++] = rj_num(bit, "observed", 0);
    }
    snprintf(caption, sizeof caption, "%s bits (%.0f draws)", kind, rj_num(m, "draws", 0));
    bars_figure(f, rj_num(m, "draws", 0) > 0 ? b : &(struct bars){ .n = 0 }, caption,
                "configured probability", "observed");
}

static void coverage_legend(FILE *f)
{
    fputs("<p class=\"legend\"><span class=\"item\"><span class=\"sw\" style=\"background:#fff\">"
          "</span>configured weight (share of the kind's total) or bit probability</span> "
          "<span class=\"item\"><span class=\"sw\" style=\"background:#1f77b4\"></span>drawn "
          "share or observed frequency</span> <span class=\"item note\">(a partition is labelled "
          "by its lowest value)</span></p>\n", f);
}

void coverage_section(FILE *f, json_object *summary)
{
    json_object *cov = rj_get(summary, "coverage");
    json_object *args = rj_get(cov, "args"), *maps = rj_get(cov, "bitmaps");
    fputs("<h2 id=\"coverage\">Coverage of the input partitions</h2>\n", f);
    struct bars *b = malloc(sizeof *b);
    if (!b || !args || !json_object_is_type(args, json_type_object)) {
        fputs("<div class=\"nodata\">no coverage data in summary.json</div>\n", f);
        free(b);
        return;
    }
    coverage_legend(f);
    fputs("<div class=\"plots\">\n", f);
    json_object_object_foreach(args, kind, a)
        arg_kind(f, kind, a, b);
    if (maps && json_object_is_type(maps, json_type_object)) {
        json_object_object_foreach(maps, mkind, m)
            bitmap_kind(f, mkind, m, b);
    }
    fputs("</div>\n", f);
    free(b);
}
