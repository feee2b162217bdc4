/* Known classes in the front end: `metis known add`, and a run's summary.json marked new/known against a known file. */
#ifndef METIS_FRONT_KNOWN_H
#define METIS_FRONT_KNOWN_H

#include <stdio.h>
#include "engine/classify/known_file.h"

/* `metis known add RUN_DIR|SWARM_DIR [--note TEXT] [--link URL] --to FILE`: argv[0] is
 * "known". Returns the exit status. */
int known_main(int argc, char **argv);
/* Loads a --known FILE: 0, or -1 after printing "metis: FILE:LINE: why". */
int known_open(const char *path, struct known_list *k);
/* Marks every class of dir/summary.json "known" (with its note and link) or not, and adds
 * the split (known_json_split); *fresh gets the number of new classes. 0, or -1 when the
 * summary cannot be read or written. */
int known_apply_summary(const char *dir, const char *path, const struct known_list *k,
                        int *fresh);
/* The members "known_file", "new_classes", "known_classes" and "known_not_seen" (each known
 * class whose seen[i] is 0: signature, note, link), each followed by a comma. */
void known_json_split(FILE *f, const char *path, const struct known_list *k, const int *seen,
                      int fresh, int known);

#endif
