/* Replaying a trace's operations on a session and comparing with the record and across file systems. */
#ifndef METIS_REPLAY_H
#define METIS_REPLAY_H

#include <stddef.h>
#include <stdio.h>
#include "session.h"
#include "trace/trace.h"

/* What one replay of (part of) a trace showed. */
struct replay_outcome {
    size_t ops;                   /* steps replayed: operations, and calls among them */
    size_t calls;                 /* ... a history's restore calls */
    size_t compared, mismatched;  /* recorded results compared with the replay, and differing */
    size_t disc_ops;              /* operations after which some fs disagreed with fs 0 */
    unsigned last[METIS_MAX_FS];  /* the disagreement after the last one (session fs order) */
    int infra;                    /* stopped by an infrastructure failure (message in s->err) */
    int interrupted;
    double seconds;
};

/* What the trace says the end looks like, in session fs order (map: session fs -> trace fs). */
void replay_expected(const struct trace *t, const int map[METIS_MAX_FS], int nfs,
                     unsigned want[METIS_MAX_FS]);
/* 1 if some fs differs in want. */
int replay_has_disc(const unsigned want[METIS_MAX_FS], int nfs);
/* 1 if the last disagreement equals want (the same fs, the same kinds). */
int replay_same_disc(const unsigned a[METIS_MAX_FS], const unsigned b[METIS_MAX_FS], int nfs);

/* 1 when the trace records that no serial order explained concurrent step op on some fs: it is
 * then replayed at once (tries as recorded), else in the order the reference kept. */
int replay_at_once(const struct trace *t, const struct trace_op *op);
/* One step of the trace on the session, from state from, saved as to: an operation, or a
 * concurrent step (at once with tries, when replay_at_once, else in its order); differs[] is
 * set as session_compare sets it. tries 0: the trace's own. */
int replay_step(struct session *s, const struct trace *t, const struct trace_op *op, int tries,
                uint64_t from, uint64_t to);
/* The same for step j of the sequence t->ops[idx[0]], ..., t->ops[idx[n - 1]] (a shrinker's
 * candidate): a restore call is made on the fs trace_call_made_on_in names in that sequence. */
int replay_step_in(struct session *s, const struct trace *t, const size_t *idx, size_t n,
                   size_t j, int tries, uint64_t from, uint64_t to);
/* Replays ops [first, t->nops) from the session's live state (the initial state when first
 * is 0: then the initial states are compared too). Mismatches go to report (at most limit
 * lines; verbose prints every operation). */
void replay_ops(struct session *s, const struct trace *t, const int map[METIS_MAX_FS], size_t first,
                FILE *report, int verbose, struct replay_outcome *o);
/* The kinds in differs as text ("ret,errno"), "none" for 0. */
const char *replay_kinds(unsigned differs, char *buf, size_t len);
/* One line describing the disagreement: "fs bad: ret,errno" or "none". */
void replay_describe(const struct metis_config *cfg, const unsigned d[METIS_MAX_FS], char *buf,
                     size_t len);

#endif
