/* The run's time series writer (samples.csv), linked into pan with the rest of the engine. */
#include "engine/records/sampler.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int report_sampler_open(struct report_sampler *s, const char *run_dir)
{
    char path[4096];
    s->next_t = 0;
    if (snprintf(path, sizeof path, "%s/%s", run_dir, REPORT_SAMPLES_FILE) >= (int)sizeof path) {
        s->f = NULL;
        errno = ENAMETOOLONG;
        return -1;
    }
    s->f = fopen(path, "w");
    if (!s->f)
        return -1;
    fputs(REPORT_SAMPLES_HEADER "\n", s->f);
    return 0;
}

void report_sample_write(FILE *f, const struct report_sample *v)
{
    fprintf(f, "%.3f,%" PRIu64 ",%.0f,%.0f,%" PRIu64 ",%" PRIu64 "\n", v->t, v->ops, v->states,
            v->matched, v->restores, v->discrepancies);
    fflush(f);
}

void report_sampler_tick(struct report_sampler *s, const struct report_sample *v)
{
    if (!s->f || v->t < s->next_t)
        return;
    report_sample_write(s->f, v);
    /* Due times stay on whole seconds, so a slow step does not shift every later sample. */
    s->next_t = (double)(int64_t)v->t + 1.0;
}

void report_sampler_close(struct report_sampler *s, const struct report_sample *v)
{
    if (!s->f)
        return;
    report_sample_write(s->f, v);
    fclose(s->f);
    s->f = NULL;
}
