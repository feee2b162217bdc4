/* After a run that found discrepancies: each class's first example shrunk and made a self-checking reproducer (metis-replay), and classes.txt. */
#ifndef METIS_TRIAGE_H
#define METIS_TRIAGE_H

#include "triage_types.h"

/* Shrinks the classes of out/summary.json, sharing t->seconds among them: one class of each
 * cause group first (its first found), then the rest; each pass the shortest traces first;
 * writes each one's trace (class-K.trace) and reproducer (class-K-repro/) beside its detail
 * file, adds what it made to summary.json and writes and prints classes.txt (with a known
 * file, also when no class was found: its known classes not seen). 0, or -1 when interrupted. */
int triage_run(const struct triage *t);
/* How many classes out/summary.json lists (0 without the file). */
int triage_classes_found(const char *out);

#endif
