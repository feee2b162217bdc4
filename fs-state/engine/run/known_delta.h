/* The known delta along the search path: each state's attribute-only differences from the reference, held against the next step's, so that the search goes on below a difference that is only an attribute. */
#ifndef METIS_KNOWN_DELTA_H
#define METIS_KNOWN_DELTA_H

#include "tree/delta.h"

struct engine;
struct path_entry;

/* After a step whose trees differ (fsgroup_compare said so), on the path's newest state: each
 * target's state difference against the delta of the state the step came from. A difference
 * the delta held already is no discrepancy (its DIFF_STATE is cleared); one that only adds
 * attributes is, signed by what it added (fs_outcome.fresh), and the search goes on below it;
 * the new state keeps its delta. Returns 1 when a difference is more than attributes (the
 * step is a leaf, as it always was), 0 when not, -1 when a tree could not be read (e->g.err). */
int known_delta_judge(struct engine *e);
/* 1 when the state the next step starts from has a known delta on some fs: its trees will be
 * held against it (the step's read-backs should keep their listings). */
int known_delta_below(const struct engine *e);
/* The delta fs i's tree had at path position k (0: the initial state), or NULL. */
const struct tree_delta *known_delta_at(const struct engine *e, size_t k, int i);
/* Frees what a path entry holds of the delta (unwinding, tear-down). */
void known_delta_drop(struct path_entry *p, int nfs);
/* "3 attribute differences (first: mode 0644 0600)": the delta the step came from, for a
 * detail file; NULL when it had none. */
const char *known_delta_describe(const struct engine *e, int i, char *buf, size_t len);

#endif
