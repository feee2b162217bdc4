/* Between two searches of one run: the finished search's own files moved aside, so the run directory always shows the latest search. */
#ifndef METIS_CLI_RESTART_H
#define METIS_CLI_RESTART_H

#include <stddef.h>

/* Moves out's log.txt, pan.out, discrepancy-N.txt and states/ into out/search-INDEX/ (each a
 * run directory metis-replay reads); the run's totals (summary.json, reach.txt, coverage.txt)
 * stay, and the next search rewrites them. 0, or -1 with a one-line message in err. */
int search_archive(const char *out, int index, char *err, size_t errlen);

#endif
