/* What `metis check` says of a config's lacks declarations: per fs and word what is not compared and not drawn, then the run's derived ignores and draws. */
#ifndef METIS_CHECK_LACKS_H
#define METIS_CHECK_LACKS_H

#include <stdio.h>
#include "engine/config/config.h"

/* One line per fs and declared word ("fs bindfs lacks fallocate:punch_hole: fallocate
 * punch_hole is never drawn"), then the run's totals; nothing when no fs declares any. */
void check_print_lacks(const struct metis_config *cfg, FILE *f);

#endif
