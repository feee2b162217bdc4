/* What a trace needs before anything is mounted: its config loaded, its fs matched, every operation inside the pool. */
#ifndef METIS_CHECK_H
#define METIS_CHECK_H

#include <stddef.h>
#include "engine/config/config.h"
#include "trace.h"

/* Loads the config of t: override if given, else the embedded one, else t->config_path, with
 * the trace's seed and hash. map[i] is the trace fs index of config fs i (-1 if the trace has
 * none). Without override every trace fs must be in the config, in order, of the same type.
 * 0, or -1 with "file:line: message". */
int trace_check_config(const struct trace *t, const char *override, struct metis_config *cfg,
                      int map[METIS_MAX_FS], char *err, size_t errlen);
/* The names of an operation a trace's config pool must hold (check.c's table, one row per
 * operation); 0 when op is out of range. */
enum { CHECK_PATH = 1, CHECK_PATH2 = 2, CHECK_TARGET = 4, CHECK_XNAME = 8 };
unsigned trace_pool_checks(enum op_id op);
/* Every path, link target and xattr name of t must be one the config's pool holds. */
int trace_check_pool(const struct trace *t, const struct metis_config *cfg, char *err, size_t errlen);
/* Both, plus config_validate: the whole check of `run` before mounting. */
int trace_check(const struct trace *t, const char *override, struct metis_config *cfg,
                int map[METIS_MAX_FS], char *err, size_t errlen);

#endif
