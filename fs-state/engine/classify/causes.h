/* Cause groups: classes that share a probable cause (a hint rule's premise, a lacks word, a known delta's first difference) form one group, so one verdict can cover them. */
#ifndef METIS_CAUSES_H
#define METIS_CAUSES_H

#include <stddef.h>
#include <stdio.h>
#include "engine/classify/classes.h"
#include "tree/delta.h"

/* Where a class's step stood on the search path, as far as its cause goes. */
struct cause_path {
    const struct tree_delta *below;   /* the known delta the step came from, or NULL */
    const struct tree_delta *made;    /* the delta of the state it made, or NULL */
    const char *below_text;           /* known_delta_describe's words for below, or NULL */
};

/* Sets c's group: a hint rule's cause (classes_classify found it) comes first; else a known
 * delta's difference of the class's own attribute, the one it was found below or the one it
 * started; else the class is a group of its own, keyed by its signature. fs: the name of the
 * fs that differs. p may be NULL (a target that failed: no path to speak of). */
void causes_assign(struct dclass *c, const char *fs, const struct cause_path *p);
/* The group key of a cause id and an fs: "lacks:fallocate:punch_hole fuse2fs". */
void causes_key(const char *cause_id, const char *fs, char *out, size_t len);
/* "delta:mode-bits-0022" for the delta item "mode<TAB>bits 0022": one word, as ids are. */
void causes_delta_id(const char *item, char *out, size_t len);
/* How many groups the table's classes form. */
int causes_count(const struct dclass_table *t);
/* summary.json's "discrepancy_groups" and "groups" (each group's key, cause, classes and
 * hits, in the order of each group's first class), each followed by a comma. */
void causes_write_json(const struct dclass_table *t, FILE *f);

#endif
