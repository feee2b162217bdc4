/* The swarm's discrepancy classes: every VT's classes merged by signature, with their hits and the VTs that hit them. */
#ifndef METIS_SWARM_CLASSES_H
#define METIS_SWARM_CLASSES_H

#include <stdio.h>
#include "front/swarm/shared/swarm_types.h"

struct run_class;
void swarm_classes_reset(void);
/* Adds the classes of one VT's summary.json (each also to each(ctx, vt, class)); their count,
 * -1 when the summary lists none at all (written by a Metis without classes). */
int swarm_classes_add_vt(const char *summary_json, int vt,
                         void (*each)(void *ctx, int vt, const struct run_class *c), void *ctx);
int swarm_classes_count(void);
void swarm_classes_json(const struct swarm *s, FILE *f);
void swarm_classes_text(const struct swarm *s, FILE *f);
/* Merged classes not in the known file (all of them without one). */
int swarm_classes_new(const struct swarm *s);
/* With --known: the split and the known classes no VT found (known_json_split). */
void swarm_classes_known_json(const struct swarm *s, FILE *f);

#endif
