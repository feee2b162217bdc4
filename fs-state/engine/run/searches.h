/* Several searches in one run: when SPIN has explored everything with budget left, the run goes on with the next derived input seed. */
#ifndef METIS_SEARCHES_H
#define METIS_SEARCHES_H

#include <stdint.h>
#include <stdio.h>
#include "engine/runstate/search_types.h"

struct engine;

/* The input seed of search index (1: the run's seed itself). */
uint64_t search_seed(uint64_t base, int index);
/* At engine_init: which search this is (METIS_SEARCH), its seed, the previous searches'
 * totals and the budget they left. -1 with e->err on a missing or foreign carry file. */
int search_resume(struct engine *e);
/* When the search starts (after the set-up): the time budget left to it. */
void search_begin(struct engine *e);
/* Counts an operation's reference outcome when it started from the initial state. */
void search_note(struct search_run *s, uint64_t from_sid, int err);
/* SPIN has explored everything: 1 when budget and max_searches allow another search. */
int search_should_restart(const struct engine *e, double now);
/* The one-line warning of a first search that ended early, naming its likely cause. */
void search_warn(const struct engine *e, FILE *f);
/* A target failed (its class's signature) after ops_done operations of this search: 1 when
 * that makes SEARCH_FAIL_LIMIT failures of the class in a row without an operation between. */
int search_note_failure(struct search_run *s, const char *signature, uint64_t ops_done);
/* At engine_close, before the report: the previous searches' totals added in. */
void search_fold(struct engine *e);
/* Right after the fs group is opened: what the previous searches learnt of each fs (a daemon
 * that lives on after its unmount) holds in this one too. */
void search_apply_learnt(struct engine *e);
/* ... after the report: the totals for the next search. -1 on a write error. */
int search_save(const struct engine *e);

#endif
