/* The triage's plumbing: a replay or reproducer run under the triage's limits, a file's last line, a text file written whole. */
#ifndef METIS_TRIAGE_IO_H
#define METIS_TRIAGE_IO_H

#include <stddef.h>
#include "triage_types.h"

#define TRIAGE_GRACE_SECONDS 30 /* a child's teardown after its time limit */

/* Writes text to dir/name through a temporary file renamed over it: 0, or -1. */
int triage_write_text(const char *dir, const char *name, const char *text);
/* Runs argv in its own process group with its output appended to log; stopped (SIGTERM, then
 * SIGKILL) at the deadline or when the front end is signalled. Its exit status, 128+N for
 * signal N, SPAWN_CANNOT_RUN if it could not start (the reason in log), -1 if it was lost. */
int triage_run_child(const struct triage *t, char *const argv[], const char *log,
                     double deadline);
/* The last line of file that starts with prefix (NULL: any line), without the prefix and its
 * newline, or "". */
void triage_last_line(const char *file, const char *prefix, char *out, size_t len);

#endif
