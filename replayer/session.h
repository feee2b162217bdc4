/* A replay session: the config's file systems made fresh, stepped like the engine steps them, outside SPIN. */
#ifndef METIS_SESSION_H
#define METIS_SESSION_H

#include <stdint.h>
#include "abstract.h"
#include "backend.h"
#include "config.h"
#include "equalize.h"
#include "trace.h"

#define SESSION_NO_STATE UINT64_MAX

struct session {
    struct metis_config cfg;
    int nfs, dlen;
    struct backend *be[METIS_MAX_FS];
    struct abstract_opts abs[METIS_MAX_FS];
    char exclude[METIS_MAX_FS][600];          /* the config's exclusions plus the filler */
    struct free_counts fillers[METIS_MAX_FS];  /* what equalization added to each fs */
    struct trace_outcome out[METIS_MAX_FS];   /* of the last step (or the initial state) */
    unsigned differs[METIS_MAX_FS];           /* TRACE_DIFF_* against fs 0, after compare */
    double timeout;
    uint64_t live;              /* the state the file systems are in, if saved */
    int needs_history;          /* a backend restores by replaying (fuse without an image) */
    char err[1400];
    int started;
    struct op_args *plan;       /* the engine's prepopulation of the initial state */
    size_t nplan;
};

/* Run id of this process ("r<pid>", or $METIS_RUN_ID) and the directory of its mount points. */
const char *session_run_id(void);
/* Installs the signal handlers and the exit hook that sweep this run's mounts and devices. */
void session_install_cleanup(void);
/* 1 once SIGINT/SIGTERM/SIGHUP arrived: callers stop, close the session and exit 130. */
int session_interrupted(void);

/* Opens every backend of cfg, sets them up, makes the initial state (prepopulated as the engine
 * does) and saves it as state 0; out[] holds the initial abstract states. */
int session_start(struct session *s, const struct metis_config *cfg);
/* One step on every fs: restore(from) unless from is SESSION_NO_STATE, begin, op_exec,
 * abstract_state, end, save(to) unless to is SESSION_NO_STATE. Fills out[]. */
int session_step(struct session *s, const struct op_args *a, uint64_t from, uint64_t to);
/* Makes state sid of every fs the one in files[i] (exported image or pickle); -1 with a
 * message when a backend cannot import (then the caller replays from the start). */
int session_import(struct session *s, const char *const files[METIS_MAX_FS], uint64_t sid);
void session_discard(struct session *s, uint64_t sid);
/* Compares every fs with fs 0 as engine_compare does; fills differs[], returns how many differ.
 * initial: the initial state (no result to compare). */
int session_compare(struct session *s, int initial);
void session_stop(struct session *s);

#endif
