/* What a crash mode needs of the config: which file systems it checks, and why a config cannot have it. */
#ifndef METIS_CRASH_CONFIG_H
#define METIS_CRASH_CONFIG_H

#include <stddef.h>

struct metis_config;
struct fs_config;
/* 1 when fs is crash-checked under cfg: [run] crash is on, the fs has a device image and was
 * not exempted with crash = 0. */
int crash_applies(const struct metis_config *cfg, const struct fs_config *fs);
/* What a crash mode cannot do on one of cfg's file systems: -1 with *fs its index and the
 * reason in msg (one line), else 0. */
int crash_config_problem(const struct metis_config *cfg, int *fs, char *msg, size_t len);

#endif
