/* Which file systems make a history's restore call when it is replayed: the one that made it in the run, and those that follow a target's restores. */
#ifndef METIS_TRACE_CALLERS_H
#define METIS_TRACE_CALLERS_H

#include <stddef.h>
#include "trace.h"

/* Whether trace fs i makes call step k of t in a replay. The fs that made it does. A call of
 * a fs that logs its own restores' calls (a reference restored logically, fs_logs_own_calls)
 * undoes what that fs did, so no other fs makes it. A target's call is also made by every
 * other fs without a call of its own before it for the same operation: the run's reference,
 * when it was restored by snapshots or needed no call of its own there (a history leaves out
 * its calls where they are the target's), reaches the target's state by the target's calls. */
int trace_call_made_on(const struct trace *t, size_t k, int i);
/* The same for the steps t->ops[idx[0]], ..., t->ops[idx[n - 1]] replayed as one sequence (a
 * shrinker's candidate; idx NULL: the whole trace): whether fs i makes its step j. */
int trace_call_made_on_in(const struct trace *t, const size_t *idx, size_t n, size_t j, int i);

#endif
