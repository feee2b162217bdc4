/* report.html: a self-contained page of a run or swarm directory, built by bin/metis (not pan). */
#ifndef METIS_REPORT_HTML_H
#define METIS_REPORT_HTML_H

#include <stddef.h>

/* Writes DIR/report.html for a run or swarm directory. 0; else a one-line reason in err and
 * REPORT_NOT_A_RUN (DIR is neither) or REPORT_WRITE_FAILED. */
#define REPORT_NOT_A_RUN (-1)
#define REPORT_WRITE_FAILED (-2)
int report_html_build(const char *dir, char *err, size_t errlen);

#endif
