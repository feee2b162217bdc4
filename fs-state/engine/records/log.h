/* Event log: every operation, result, save, restore and abstract state, buffered in memory. */
#ifndef METIS_LOG_H
#define METIS_LOG_H

#include <stddef.h>
#include <stdarg.h>

/* The log is line-oriented text (fs-state/LOG.md). Lines are appended to a memory buffer
 * that is written out when it fills, at least once a second (log_tick), at exit and on a
 * signal or a discrepancy (log_flush). */
int log_open(const char *path);
void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_tick(double now);
void log_flush(void);
void log_close(void);
/* Hex form of a digest, for log lines. */
void hex_encode(const unsigned char *in, size_t n, char *out);

#endif
