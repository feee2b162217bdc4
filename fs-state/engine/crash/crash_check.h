/* The crash check of one file system: sync what an operation touched, copy the device, recover the copy, compare it with the live tree. */
#ifndef METIS_CRASH_H
#define METIS_CRASH_H

#include <stdint.h>
#include <stdio.h>
#include "tree/digest.h"
#include "backend/backend.h"
#include "engine/config/config.h"
#include "engine/vocab/crash_modes.h"
#include "engine/ops/ops.h"

/* What the crash check of the last step found on one fs. */
struct crash_result {
    int checked;                /* 1 when the step ran a crash check */
    unsigned kinds;             /* CRASH_LOST | CRASH_MOUNT | CRASH_FSCK; 0 = as promised */
    char synced[600];           /* what was synced: "fsync:/d0/f0,/d0", "syncfs", "none" */
    char detail[700];           /* the first finding, one line; "" when none */
    unsigned states;            /* crash_states = flushes or stream: the states the step's
                                   recorded stream makes ... */
    unsigned states_checked;    /* ... and how many were checked (at most crash_states_max,
                                   fewer after a finding) ... */
    unsigned states_distinct;   /* ... and how many of those were recovered: the others were
                                   byte-identical to a state of the step recovered before,
                                   whose recovered tree they were judged on */
};

/* Where the crash check's time went over a run, in seconds, and what it checked. */
struct crash_parts {
    double build;               /* the states' images made in memory, and their keys */
    double store;               /* the images written to the copy's file */
    double mount, read, umount; /* recovery: the mount, the read-back, the unmount */
    double fsck;                /* waiting for the format's checker (it runs beside the next
                                   state's recovery with crash_states = flushes or stream) */
    double fsck_run;            /* the checker's own wall time */
    double judge;               /* the oracle */
    double copy;                /* crash_states = copy: the device copied while mounted */
    unsigned long long states, distinct;    /* states judged; of them, recovered */
};

struct crash_check;

/*
 * Life of a check: crash_open (nothing made yet), crash_setup once the backend is set up,
 * then per step crash_start (unmounted, before the step's mount), crash_capture (mounted, right after the operation), the step's read-back into
 * crash_live_listing, crash_verify (after the unmount). Every int function returns 0 or -1
 * with a one-line message in b->err: an infrastructure failure. What the check finds is in
 * the result, never a -1.
 */

/* The check of fs i of cfg on backend b with abstraction abs, or NULL when the fs is not
 * crash-checked (or when out of memory: then *failed is 1). */
struct crash_check *crash_open(const struct metis_config *cfg, int i, struct backend *b,
                               const struct tree_opts *abs, int *failed);
int crash_setup(struct crash_check *c);
/* With crash_states = flushes or stream: takes the image the step starts from and starts the
 * recording device's block log (the fs unmounted, about to be mounted for the step). */
int crash_start(struct crash_check *c);
/* Syncs what op a touched (fsync), the fs (syncfs) or nothing (any), as the mode says, then
 * copies the device; r->synced says what was synced. */
int crash_capture(struct crash_check *c, int rootfd, const struct op_args *a,
                  struct crash_result *r);
/* Where the read-back after a capture lists the live tree (NULL when none is pending). */
FILE *crash_live_listing(struct crash_check *c);
/* Mounts the copy (b unmounted), reads it back and judges it against the live tree whose
 * digest the read-back gave; fills r->kinds and r->detail. Does nothing without a capture.
 * With crash_states = flushes or stream, the same for each state of the recorded stream, up
 * to the first finding (crash_stream.c). */
int crash_verify(struct crash_check *c, const unsigned char *digest, int dlen,
                 struct crash_result *r);
/* The report section of the last check: what was synced and found, both trees, and the copy
 * as taken saved to DIR/NAME-crash-SEQ.img. */
void crash_report(struct crash_check *c, const struct crash_result *r, FILE *f, const char *dir,
                  uint64_t seq);
/* The parts of the check's time so far (all 0 for NULL). */
void crash_parts(const struct crash_check *c, struct crash_parts *p);
void crash_close(struct crash_check *c);

#endif
