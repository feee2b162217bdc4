/* Inline SVG charts of report.html: line plots, stacked bars, paired bars. */
#ifndef METIS_REPORT_SVG_H
#define METIS_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

struct line_plot {
    const char *xlabel, *ylabel;
    const double *x, *y;
    size_t n;
};

/* One row per item (an operation): its label, its total and its value per segment kind. */
struct stack_rows {
    size_t nrows, nsegs;
    const char *const *row_label;
    const double *total;             /* nrows; each bar is drawn as shares of its total */
    const double *value;             /* nrows * nsegs, row-major */
    const char *const *seg_name;     /* nsegs */
    const char *const *seg_color;    /* nsegs */
};

/* Two bars per item (the configured share, the drawn share), as on a coverage table. */
struct pair_bars {
    size_t n;
    const char *const *label;
    const char *const *tip;          /* per item, for the bar's title; NULL: the label */
    const double *expected, *drawn;
    const char *expected_name, *drawn_name;
};

void svg_line_plot(FILE *f, const struct line_plot *p);
void svg_stacked_rows(FILE *f, const struct stack_rows *s);
void svg_pair_bars(FILE *f, const struct pair_bars *b);

#endif
