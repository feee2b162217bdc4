/* What fault steps need of the config: which file systems get them, the silent-write test hook, and why a config cannot have them. */
#ifndef METIS_FAULT_CONFIG_H
#define METIS_FAULT_CONFIG_H

#include <stddef.h>
#include "engine/vocab/fault_kinds.h"

struct metis_config;
struct fs_config;
/* The test hook [run] fault_test_silent: a lost write of a fault step of that operation (op)
 * is silent. */
void fault_spec_hook(struct fault_spec *s, const struct metis_config *cfg, int op);
/* 1 when fs gets fault steps under cfg: [run] faults is above 0, fs is a kernel fs on a
 * device and was not exempted with faults = 0. */
int fault_applies(const struct metis_config *cfg, const struct fs_config *fs);
/* What the fault keys cannot do with cfg: -1 with *fs its index (-1: the [run] keys) and the
 * reason in msg (one line), else 0. */
int fault_config_problem(const struct metis_config *cfg, int *fs, char *msg, size_t len);

#endif
