/* A daemon's attribute cache told apart from a defect: a state difference is read again past the kernel's cache before it may be a class, and one that goes away is counted as cache staleness. */
#ifndef METIS_CACHE_RECHECK_H
#define METIS_CACHE_RECHECK_H

#include <stdio.h>

struct engine;
struct op_args;

/* After a step's trees were compared and judged (known_delta_judge): every fs that still
 * differs in state and is read through the kernel's attribute cache (fsgroup_caches_attrs) is
 * read again past it, with the reference if it is such a mount too, compared and judged again.
 * A fs whose state difference went away counts one cache staleness (e->stale) instead of a
 * class. *leaf gets the new judgement. 0, or -1 with e->g.err. */
int cache_recheck(struct engine *e, const struct op_args *a, int *leaf);

#endif
