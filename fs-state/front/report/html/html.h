/* HTML output helpers of report.html: escaping, relative links, numbers, the page's frame and file name. */
#ifndef METIS_REPORT_HTML_OUT_H
#define METIS_REPORT_HTML_OUT_H

#include <stdio.h>

/* The page's file name in a run or swarm directory (and in each VT's): report_html.c writes it,
 * swarm_page.c links each VT's. */
#define REPORT_HTML_FILE "report.html"

/* s as HTML text or attribute value: markup characters escaped, control bytes dropped. */
void html_esc(FILE *f, const char *s);
/* printf-formatted text, escaped as html_esc does. */
void html_escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <a href="REL">TEXT</a>, the path percent-encoded; a path that is not relative is only shown. */
void html_link(FILE *f, const char *rel, const char *text);
/* A count with thousands grouped (12,345); fractions keep one decimal. */
void html_num(FILE *f, double v);
/* A short form for axis ticks: 950, 1.2k, 3.4M. */
void html_short_num(char *out, size_t len, double v);

/* The document up to <body> (title escaped), with the stylesheet and a policy that blocks
 * every request, so that the page shows the same over file:// as anywhere. */
void html_page_begin(FILE *f, const char *title);
void html_page_end(FILE *f);

#endif
