/* The run's time series: the engine appends its counters to RUN_DIR/samples.csv once a second. */
#ifndef METIS_REPORT_SAMPLER_H
#define METIS_REPORT_SAMPLER_H

#include <stdint.h>
#include <stdio.h>

#define REPORT_SAMPLES_FILE   "samples.csv"
#define REPORT_SAMPLES_HEADER "t,ops,states,matched,restores,discrepancies"

/* The engine's counters at t seconds after the run started. */
struct report_sample {
    double t;
    uint64_t ops;
    double states, matched;
    uint64_t restores, discrepancies;
};

struct report_sampler {
    FILE *f;
    double next_t;               /* the next line is due when t reaches this */
};

/* Creates RUN_DIR/samples.csv with its header. 0, or -1 with errno (the run goes on without). */
int report_sampler_open(struct report_sampler *s, const char *run_dir);
/* Writes v if a second has passed since the last line; cheap to call after every operation. */
void report_sampler_tick(struct report_sampler *s, const struct report_sample *v);
/* Writes v as the last line (the run's final counters) and closes the file. */
void report_sampler_close(struct report_sampler *s, const struct report_sample *v);
/* One CSV line of v, flushed so that a crashed run still leaves its series. */
void report_sample_write(FILE *f, const struct report_sample *v);

#endif
