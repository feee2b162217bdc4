/* Inline SVG charts of report.html: line plots, stacked bars, paired bars. */
#include "svg.h"
#include "html.h"
#include <math.h>

#define PLOT_W 480
#define PLOT_H 240
#define PAD_L 60
#define PAD_R 16
#define PAD_T 12
#define PAD_B 40
#define MAX_TICKS 6

struct axis { double lo, hi, step; };

/* A 1-2-5 step that gives at most MAX_TICKS ticks from 0 (or lo) to hi; a loose axis ends on
 * the tick above hi, a tight one (time, operations) at hi itself. */
static struct axis nice_axis(double lo, double hi, int tight)
{
    struct axis a = { lo, hi, 1 };
    if (!(hi > lo))
        a.hi = lo + 1;
    double raw = (a.hi - a.lo) / (MAX_TICKS - 1);
    double mag = pow(10, floor(log10(raw)));
    double mult[] = { 1, 2, 5, 10 };
    for (int i = 0; i < 4; i++) {
        a.step = mult[i] * mag;
        if (a.step >= raw)
            break;
    }
    a.lo = floor(a.lo / a.step) * a.step;
    if (!tight)
        a.hi = ceil(a.hi / a.step - 1e-9) * a.step;
    return a;
}

static double scale(const struct axis *a, double v, double from, double to)
{
    return from + (v - a->lo) / (a->hi - a->lo) * (to - from);
}

static void range_of(const double *v, size_t n, double *lo, double *hi)
{
    *lo = 0;
    *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] < *lo)
            *lo = v[i];
        if (isfinite(v[i]) && v[i] > *hi)
            *hi = v[i];
    }
}

static void tick_label(FILE *f, double x, double y, const char *anchor, double v)
{
    char t[32];
    html_short_num(t, sizeof t, fabs(v) < 1e-12 ? 0 : v);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x, y, anchor, t);
}

static void draw_axes(FILE *f, const struct axis *ax, const struct axis *ay, const char *xl,
                      const char *yl)
{
    const double x0 = PAD_L, x1 = PLOT_W - PAD_R, y0 = PLOT_H - PAD_B, y1 = PAD_T;
    for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step) {
        double y = scale(ay, v, y0, y1);
        fprintf(f, "<line class=\"grid\" x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\"/>", x0, y, x1, y);
        tick_label(f, x0 - 5, y + 4, "end", v);
    }
    for (double v = ax->lo; v <= ax->hi + ax->step * 1e-6; v += ax->step)
        tick_label(f, scale(ax, v, x0, x1), y0 + 15, "middle", v);
    fprintf(f, "<line class=\"axis\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>", x0, y0, x1, y0);
    fprintf(f, "<line class=\"axis\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>\n", x0, y0, x0, y1);
    fprintf(f, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">", (x0 + x1) / 2, PLOT_H - 6);
    html_esc(f, xl);
    fprintf(f, "</text><text transform=\"translate(13 %g) rotate(-90)\" text-anchor=\"middle\">",
            (y0 + y1) / 2);
    html_esc(f, yl);
    fputs("</text>\n", f);
}

/* Counts read as whole numbers; rates and times below 100 keep a decimal. */
static int decimals(double v)
{
    return fabs(v) >= 100 || v == floor(v) ? 0 : 1;
}

void svg_line_plot(FILE *f, const struct line_plot *p)
{
    if (p->n == 0) {
        fputs("<div class=\"nodata\">no samples</div>\n", f);
        return;
    }
    double xlo, xhi, ylo, yhi;
    range_of(p->x, p->n, &xlo, &xhi);
    range_of(p->y, p->n, &ylo, &yhi);
    struct axis ax = nice_axis(xlo, xhi, 1), ay = nice_axis(ylo, yhi, 0);
    fprintf(f, "<svg viewBox=\"0 0 %d %d\" role=\"img\">", PLOT_W, PLOT_H);
    draw_axes(f, &ax, &ay, p->xlabel, p->ylabel);
    fputs("<polyline class=\"series\" points=\"", f);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%s%.1f,%.1f", i ? " " : "", scale(&ax, p->x[i], PAD_L, PLOT_W - PAD_R),
                scale(&ay, p->y[i], PLOT_H - PAD_B, PAD_T));
    fputs("\"/>\n", f);
    for (size_t i = 0; i < p->n; i++) {
        fprintf(f, "<circle class=\"pt\" r=\"2\" cx=\"%.1f\" cy=\"%.1f\"><title>",
                scale(&ax, p->x[i], PAD_L, PLOT_W - PAD_R), scale(&ay, p->y[i], PLOT_H - PAD_B, PAD_T));
        html_escf(f, "%s %.*f, %s %.*f", p->xlabel, decimals(p->x[i]), p->x[i], p->ylabel,
                  decimals(p->y[i]), p->y[i]);
        fputs("</title></circle>\n", f);
    }
    fputs("</svg>\n", f);
}

#define ROW_H 20
#define LABEL_W 130
#define COUNT_W 80
#define ROWS_W 900

static void stacked_row(FILE *f, const struct stack_rows *s, size_t r, double y)
{
    const double width = ROWS_W - LABEL_W - COUNT_W;
    double x = LABEL_W;
    fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LABEL_W - 6, y + 14);
    html_esc(f, s->row_label[r]);
    fputs("</text>", f);
    for (size_t k = 0; k < s->nsegs && s->total[r] > 0; k++) {
        double v = s->value[r * s->nsegs + k];
        if (v <= 0)
            continue;
        double w = v / s->total[r] * width;
        fprintf(f, "<rect class=\"seg\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
                "fill=\"%s\"><title>", x, y + 2, w, ROW_H - 4, s->seg_color[k]);
        html_escf(f, "%s %s: %.0f of %.0f (%.1f%%)", s->row_label[r], s->seg_name[k], v,
                  s->total[r], 100 * v / s->total[r]);
        fputs("</title></rect>", f);
        x += w;
    }
    char t[32];
    html_short_num(t, sizeof t, s->total[r]);
    fprintf(f, "<text x=\"%d\" y=\"%.0f\">%s tried</text>\n", ROWS_W - COUNT_W + 6, y + 14,
            s->total[r] > 0 ? t : "never");
}

void svg_stacked_rows(FILE *f, const struct stack_rows *s)
{
    int h = (int)s->nrows * ROW_H + 24;
    fprintf(f, "<svg viewBox=\"0 0 %d %d\" role=\"img\" style=\"max-width:%dpx\">", ROWS_W, h,
            ROWS_W);
    for (int pct = 0; pct <= 100; pct += 25) {
        double x = LABEL_W + pct / 100.0 * (ROWS_W - LABEL_W - COUNT_W);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>", x, x, h - 20, x,
                h - 6, pct);
    }
    fputc('\n', f);
    for (size_t r = 0; r < s->nrows; r++)
        stacked_row(f, s, r, (double)r * ROW_H);
    fputs("</svg>\n", f);
}

#define BARS_W 420
#define BARS_H 200
#define BARS_PAD_L 44
#define BARS_PAD_B 40

static void pair_bar(FILE *f, const struct pair_bars *b, size_t i, const struct axis *ay,
                     double slot)
{
    double x = BARS_PAD_L + (double)i * slot, bw = slot * 0.38, y0 = BARS_H - BARS_PAD_B;
    const double *vals[2] = { b->expected, b->drawn };
    const char *cls[2] = { "weight", "drawn" }, *name[2] = { b->expected_name, b->drawn_name };
    for (int k = 0; k < 2; k++) {
        double y = scale(ay, vals[k][i], y0, PAD_T);
        fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                "<title>", cls[k], x + slot * 0.1 + k * bw, y, bw, y0 - y);
        html_escf(f, "%s: %s %.3f", b->tip ? b->tip[i] : b->label[i], name[k], vals[k][i]);
        fputs("</title></rect>", f);
    }
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-40)\" text-anchor=\"end\">",
            x + slot / 2, y0 + 12);
    html_esc(f, b->label[i]);
    fputs("</text>\n", f);
}

void svg_pair_bars(FILE *f, const struct pair_bars *b)
{
    double lo, hi, lo2, hi2;
    range_of(b->expected, b->n, &lo, &hi);
    range_of(b->drawn, b->n, &lo2, &hi2);
    struct axis ay = nice_axis(0, hi2 > hi ? hi2 : hi, 0);
    double slot = (double)(BARS_W - BARS_PAD_L - 6) / (double)(b->n ? b->n : 1);
    fprintf(f, "<svg viewBox=\"0 0 %d %d\" role=\"img\">", BARS_W, BARS_H);
    for (double v = ay.lo; v <= ay.hi + ay.step / 2; v += ay.step) {
        double y = scale(&ay, v, BARS_H - BARS_PAD_B, PAD_T);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                BARS_PAD_L, y, BARS_W - 6, y);
        tick_label(f, BARS_PAD_L - 4, y + 4, "end", v);
    }
    fputc('\n', f);
    for (size_t i = 0; i < b->n; i++)
        pair_bar(f, b, i, &ay, slot);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></svg>\n",
            BARS_PAD_L, BARS_H - BARS_PAD_B, BARS_W - 6, BARS_H - BARS_PAD_B);
}
