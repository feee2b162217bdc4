/* The engine's run state, shared by the pan-side driver, the checker and the run report. */
#ifndef METIS_ENGINE_H
#define METIS_ENGINE_H

#include <stdint.h>
#include "abstract.h"
#include "backend.h"
#include "config.h"
#include "equalize.h"
#include "input.h"
#include "ops.h"
#include "reach.h"

enum run_status { STATUS_OK = 0, STATUS_DISCREPANCY = 1, STATUS_INFRA = 3, STATUS_INTERRUPTED = 4 };

/* What one step did on one file system, and where its time went. */
struct fs_outcome {
    struct op_result res;
    unsigned char digest[ABSTRACT_MAX_DIGEST];
    int dlen;
    int differs;                 /* what differs from the reference: DIFF_* bits */
    double t_prepare, t_op, t_abstract, t_finish;
};
enum { DIFF_RET = 1, DIFF_ERRNO = 2, DIFF_STATE = 4 };

struct path_entry {
    uint64_t sid;                /* concrete state id */
    uint64_t seq;                /* the operation that made it (0: the initial state) */
    char *op;                    /* its text form, kept only for backends that restore by replay */
};

struct engine {
    struct metis_config cfg;
    int nfs, dlen;
    struct backend *be[METIS_MAX_FS];
    struct abstract_opts abs[METIS_MAX_FS];
    char exclude[METIS_MAX_FS][600];     /* the config's exclusions plus the filler */
    struct free_counts fillers[METIS_MAX_FS];   /* what equalization added to each fs */
    int needs_history;           /* a backend restores by replaying the search path */
    struct fs_outcome out[METIS_MAX_FS];
    struct input in;
    struct op_args args;
    struct op_args *plan;        /* prepopulation of the initial state */
    size_t nplan;
    struct reach reach;
    struct path_entry *path;
    size_t depth, path_cap;
    uint64_t cur_sid, live_sid, next_sid;
    uint64_t ops, restores, discrepancies;
    double stored, matched;
    long max_depth_seen;
    double t_start, last_progress, timeout;
    char out_dir[1024], run_id[64];
    int finished;
};

struct engine *engine_get(void);
double now_seconds(void);
/* Reads the configuration named by the environment and makes the backends and the log. */
void engine_init(struct engine *e);
/* Writes the report, tears every file system down and exits with the status. */
void engine_finish(enum run_status st, const char *reason) __attribute__((noreturn));
void engine_infra_failure(const char *what) __attribute__((noreturn));
/* Compares every file system's outcome with the reference's; returns how many differ. */
int engine_compare(const struct op_args *a);
/* Logs a discrepancy with both trees and the saved states; stops unless keep_going. */
void engine_report_discrepancy(const struct op_args *a);
void progress_tick(double now);

#endif
