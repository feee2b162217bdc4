/* The run's cache staleness as a user reads it: summary.json's "cache_stale" and the end of run's line per file system. */
#ifndef METIS_CACHE_STALE_H
#define METIS_CACHE_STALE_H

#include <stdio.h>

struct engine;

/* summary.json's "cache_stale" member (with its leading comma) and the end of run's lines. */
void cache_stale_write_json(const struct engine *e, FILE *f);
void cache_stale_print(const struct engine *e, FILE *f);

#endif
