/* A replay session: the config's file systems made fresh, stepped like the engine steps them, outside SPIN. */
#ifndef METIS_SESSION_H
#define METIS_SESSION_H

#include <stdint.h>
#include "engine/config/config.h"
#include "engine/step/step.h"
#include "trace/trace.h"

#define SESSION_NO_STATE STEP_NO_STATE

/* The engine's step core (step.h) plus what replaying adds: outcomes in the trace's terms. */
struct session {
    struct metis_config cfg;
    struct fsgroup g;
    struct trace_outcome out[METIS_MAX_FS];   /* of the last step (or the initial state) */
    unsigned differs[METIS_MAX_FS];           /* DIFF_* against fs 0, after session_compare */
    char err[1400];
    int started;
};

/* Run id of this process ("r<pid>", or $METIS_RUN_ID) and the directory of its mount points. */
const char *session_run_id(void);
/* Holds the run's lock (backend/runlock.h) and installs the signal handlers and the exit hook
 * that sweep this run's mounts and devices and let go of the lock. Once per process. */
void session_install_cleanup(void);
/* 1 once SIGINT/SIGTERM/SIGHUP arrived: callers stop, close the session and exit 130. */
int session_interrupted(void);

/* Opens every backend of cfg, sets them up, makes the initial state (prepopulated as the engine
 * does) and saves it as state 0; out[] holds the initial abstract states. */
int session_start(struct session *s, const struct metis_config *cfg);
/* One step on every fs: restore(from) unless from is SESSION_NO_STATE, begin, op_exec,
 * tree_digest, end, save(to) unless to is SESSION_NO_STATE; a fault step first when fault is
 * on (fsgroup_step), the config's test hook applied to it. Fills out[]. */
int session_step(struct session *s, const struct op_args *a, const struct fault_spec *fault,
                 uint64_t from, uint64_t to);
/* A restore call of a traced history on the fs of mask on (fsgroup_call): out[].ret and err
 * get its outcome, the states stay the last step's. */
int session_call(struct session *s, const struct rcall *c, unsigned on, uint64_t from,
                 uint64_t to);
/* A trace's step k, an operation (with its fault, if any) or a call, as session_step or
 * session_call. */
int session_trace_step(struct session *s, const struct trace_op *op, unsigned on, uint64_t from,
                       uint64_t to);
/* A concurrent step (together.h) on every fs, from state from (SESSION_NO_STATE: the live
 * one), saved as to. With tries > 0 its calls are issued at once on every fs under test up to
 * tries times and held against every serial order on fs 0, as the engine does
 * (concurrent.h): differs[] gets DIFF_SERIAL where no order explains the last try. With tries
 * 0 they are made in the serial order `order` (together.h's text) on every fs, and compared as
 * a step is. out[] gets every call's outcome. */
int session_together(struct session *s, const struct together_set *set, int tries,
                     const char *order, uint64_t from, uint64_t to);
/* Saves the state every fs holds as sid. */
int session_save(struct session *s, uint64_t sid);
/* The calls made in the order of atoms on fs 0 alone, from saved state from (its outcomes into
 * res, by call number); fs 0 is then read back into out[0], and may be listed. */
int session_order_on_reference(struct session *s, const struct together_set *set,
                               const unsigned char *atoms, uint64_t from, struct op_result *res);
/* Makes state sid of every fs the one in files[i] (exported image or pickle); -1 with a
 * message when a backend cannot import (then the caller replays from the start). */
int session_import(struct session *s, const char *const files[METIS_MAX_FS], uint64_t sid);
void session_discard(struct session *s, uint64_t sid);
/* Compares every fs with fs 0 (fsgroup_compare, as the engine does, a state difference read
 * again past a daemon's attribute cache); fills differs[], returns how many differ.
 * initial: the initial state (no result to compare). */
int session_compare(struct session *s, int initial);
void session_stop(struct session *s);

#endif
