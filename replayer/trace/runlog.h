/* Reading a run directory: the trace of the search path to the first discrepancy (or of a target's real history), and its exported states. */
#ifndef METIS_RUNLOG_H
#define METIS_RUNLOG_H

#include <stddef.h>
#include <stdint.h>
#include "trace.h"

struct runlog_export {
    uint64_t sid, seq;          /* concrete state sid, made by operation seq (0: initial) */
    char fs[64];
    char file[1024];            /* resolved path of the exported image or pickle; "" if not saved */
};

struct runlog {
    struct trace trace;         /* only the operations on the search path, or the history */
    int has_disc;               /* the path ends at a discrepancy (else at the last operation) */
    uint64_t disc_seq;
    char run_id[64];
    struct runlog_export *exports;
    size_t nexports;
};

/* Reads RUN_DIR/log.txt (and RUN_DIR/config.ini, embedded in the trace). The trace is the
 * search path, unless the fs the trace is for (fs, or the first that differs at its end) has
 * "fresh" records (a target without snapshots, LOG.md): then it is that fs's real history
 * since its last fresh mount before the end, every operation and its restores' calls
 * (TRACE.md). 0, or -1 with a message naming the file and line. */
int runlog_read(const char *run_dir, const char *fs, struct runlog *rl, char *err,
                size_t errlen);
/* The same, for the discrepancy after operation seq (the first example of a class; its
 * detail file names it) instead of the first one. */
int runlog_read_at(const char *run_dir, uint64_t seq, const char *fs, struct runlog *rl,
                   char *err, size_t errlen);
void runlog_free(struct runlog *rl);
/* The exported file of state sid on fs, or NULL. */
const char *runlog_export_file(const struct runlog *rl, uint64_t sid, const char *fs);

#endif
