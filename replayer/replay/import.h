/* Loading an exported concrete state (kernel image, RefFS pickle) into a set-up backend: the missing backend hook. */
#ifndef METIS_IMPORT_H
#define METIS_IMPORT_H

#include <stdint.h>
#include "backend/backend.h"

/* Makes file (written by the backend's export_state) the current state of b and saves it as
 * state sid. b is set up and has state 0 saved. 0, or -1 with a message in b->err. */
int import_state(struct backend *b, const char *file, uint64_t sid);
/* 1 if import_state can load states of this backend's type. */
int import_supported(const struct fs_config *cfg);

#endif
