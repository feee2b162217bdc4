/* The fault check of one file system within a step: the operation run on the faulty device with a fault armed, the fs mounted again, and what it shows held to what a fault allows. */
#ifndef METIS_FAULT_CHECK_H
#define METIS_FAULT_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include "backend/backend.h"
#include "backend/device/faultdev.h"
#include "tree/classify.h"
#include "tree/digest.h"
#include "engine/config/config.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/ops/ops.h"

/* What the fault check of the last step found on one fs. */
struct fault_result {
    int checked;                /* 1 when the step had a fault check on this fs */
    struct fault_spec spec;     /* the fault armed */
    struct op_result res;       /* the operation's outcome under the fault */
    int sync_err;               /* the syncfs after it, inside the fault: 0 or an errno */
    struct faultdev_counts seen;   /* what the device saw while armed */
    unsigned char digest[TREE_MAX_DIGEST];   /* the tree once mounted again */
    int dlen;
    const char *state;          /* which state that tree is: "after", "before", "neither",
                                   "unmountable", or "-" when it was not judged */
    unsigned kinds;             /* FAULT_*: 0 when it kept what a fault allows */
    struct state_diff diff;     /* with FAULT_LOST or FAULT_PARTIAL: the first difference from
                                   the state the clean run left */
    char detail[700];           /* the first finding, one line; "" when none */
};

struct fault_check;

/* What a fault step's check is given: the states around the step, the operation and what its
 * clean run did. */
struct fault_step {
    uint64_t from;              /* the saved state the step started from */
    uint64_t back;              /* the saved state its clean run made: the fs holds it again
                                   when the check ends */
    const struct op_args *a;
    const struct fault_spec *spec;
    struct op_result clean;     /* the clean run's outcome */
    const unsigned char *before, *after;   /* the digests of from and back */
    int blen, alen;             /* -1 when unknown */
};

/*
 * Life of a check: fault_open (nothing made yet), fault_setup once the backend is set up (its
 * faulty device), then per fault step: fault_expect before the clean step's read-back, which
 * lists its tree into fault_clean_listing, and fault_check_step after the clean step: the
 * state it started from restored, the operation and a syncfs on the faulty device with the
 * fault armed, the fault cleared, an unmount, a mount from the plain device, the tree read
 * back and held to the clean run, the checker, and the clean run's state restored.
 * fault_note_state and fault_forget_state keep the digest of every saved state, for "before".
 * Every int function returns 0 or -1 with a one-line message in b->err: an infrastructure
 * failure. What the check finds is in the result, never a -1.
 */

/* The check of fs i of cfg on backend b with abstraction abs, or NULL when the fs gets no fault
 * steps (or when out of memory: then *failed is 1). */
struct fault_check *fault_open(const struct metis_config *cfg, int i, struct backend *b,
                               const struct tree_opts *abs, int *failed);
int fault_setup(struct fault_check *c);
/* The fs's digest of saved state sid (for the state before a later step), and its forgetting. */
int fault_note_state(struct fault_check *c, uint64_t sid, const unsigned char *digest, int dlen);
void fault_forget_state(struct fault_check *c, uint64_t sid);
/* The digest noted for sid: its length, or -1 when none was. */
int fault_state_digest(struct fault_check *c, uint64_t sid, unsigned char *out);
/* A fault step is coming: the clean read-back lists its tree into fault_clean_listing. */
int fault_expect(struct fault_check *c);
/* Where the clean step's read-back lists its tree (NULL when no fault step is pending). */
FILE *fault_clean_listing(struct fault_check *c);
int fault_check_step(struct fault_check *c, const struct fault_step *s, struct fault_result *r);
/* The report section of the last check: the fault, what the device saw, the finding, both
 * trees. */
void fault_report(struct fault_check *c, const struct fault_result *r, FILE *f);
void fault_close(struct fault_check *c);

#endif
