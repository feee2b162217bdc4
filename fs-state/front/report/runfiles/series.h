/* The series report.html plots: samples.csv read back, rates derived, and the log.txt fallback. */
#ifndef METIS_REPORT_SERIES_H
#define METIS_REPORT_SERIES_H

#include "engine/records/sampler.h"
#include <stddef.h>

#define SERIES_MAX_POINTS 300    /* per plot: keeps a long run's page small and quick to draw */

struct series {
    size_t n, cap;
    double *x, *y;
};

struct samples {
    size_t n, cap;
    struct report_sample *v;
};

void series_free(struct series *s);
void samples_free(struct samples *s);

/* Reads a samples.csv (malformed lines skipped). 0, or -1 if it cannot be opened. */
int samples_read(const char *path, struct samples *s);

/* Operations per second and new states per second over time, and states over operations. */
int samples_derive(const struct samples *s, struct series *ops_rate, struct series *states_rate,
                   struct series *states_by_ops);

/* Distinct states (all file systems' abstract states after an operation) over operations,
 * counted from log.txt's res records: what a run without samples.csv still tells.
 * 0, or -1 if the log cannot be opened or memory runs out. */
int log_states_by_ops(const char *log_path, struct series *out);

#endif
