/* classes.txt: the table of a run's classes by cause group, the groups, then each class with its trace, reproducer and hint. */
#ifndef METIS_CLASSES_TXT_H
#define METIS_CLASSES_TXT_H

#include <stdio.h>
#include "front/cli/classes/summary_classes.h"

/* Writes out/classes.txt from the n classes v (json: summary.json's text, for the known classes
 * not seen; have_known: mark each class new or known) and prints it on stderr. */
void classes_txt_write(const char *out, const struct run_class *v, int n, const char *json,
                       int have_known);
/* The reproducer's verdict as the table shows it: "bites (1/0)", "bites 2/5 (1/0)",
 * "DOES NOT BITE 0/5 (0/0)", "not run", "no reproducer". */
void classes_txt_verdict(const struct run_class *c, char *out, size_t len);
/* The first page's end: for each fs whose refusals name lacks words (run_class.lacks), the
 * "lacks = ..." line that would declare them all, with the words summary.json (json) says it
 * declared already, in the vocabulary's order; nothing when no class is such a refusal. */
void classes_txt_lacks(FILE *f, const struct run_class *v, int n, const char *json);

#endif
