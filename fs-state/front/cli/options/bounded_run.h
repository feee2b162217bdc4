/* search = bounded on the command line: the table's size refused or described, and the run's last line, its verdict. */
#ifndef METIS_BOUNDED_RUN_H
#define METIS_BOUNDED_RUN_H

#include <stddef.h>
#include <stdio.h>
#include "engine/config/config.h"

/* 0 when cfg's bounded search can run (or cfg is no bounded search); else -1 and
 * "FILE:LINE: search = bounded: ..." in err: more transitions than the model may have. */
int bounded_refusal(const struct metis_config *cfg, char *err, size_t len);
/* For `metis check`: the depth, the bounds, and how many transitions leave each state. */
void bounded_describe(const struct metis_config *cfg, FILE *f);
/* The run's exit status once out/summary.json is read: rc, or METIS_EXIT_INCOMPLETE when
 * require_complete and the bounded search ended before its depth. */
int bounded_exit(const char *out, int require_complete, int rc);
/* Prints summary.json's verdict ("metis: verified: ..."), the run's last line. */
void bounded_print_verdict(const char *out, FILE *f);

#endif
