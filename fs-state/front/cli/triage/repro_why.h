/* Why a class's reproducer may not bite: what the run knows of the class (its cause, a known delta) and of the file systems (a kept daemon, restores no trace holds). */
#ifndef METIS_REPRO_WHY_H
#define METIS_REPRO_WHY_H

#include <stddef.h>
#include "front/cli/classes/summary_classes.h"
#include "front/json/json_reader.h"

/* One line of every reason that applies, "; "-separated; a plain word that none is known when
 * none applies. summary: the run's summary.json (its "backends"); ref: the reference's name. */
void repro_why(const struct run_class *c, json_object *summary, const char *ref, char *out,
               size_t len);

#endif
