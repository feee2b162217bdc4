/* Per-search variants of a config ([vary]): long names, little free space, few free inodes; each search's input seed picks its own. */
#ifndef METIS_VARY_H
#define METIS_VARY_H

#include "engine/config/config.h"

/* Draws this search's variant from cfg->run.seed and applies it to cfg (pool names padded to
 * NAME_MAX; vary.fill_on for the set-up). The same config and seed give the same variant, so
 * the engine, metis-replay and its record command make the same initial state. Idempotent. */
void vary_apply(struct metis_config *cfg);
/* "long names, little free space, few free inodes" (those chosen) or "none", in buf. */
const char *vary_describe(const struct metis_config *cfg, char *buf, size_t len);

/* The note that the fill variants are skipped (file systems of two kinds), or NULL. */
const char *vary_skipped(const struct metis_config *cfg, char *buf, size_t len);

#endif
