/* Discrepancy classes: the signature of each discrepancy (operation and variant, fs, the outcomes or the first differing attribute) and a run's table of them. */
#ifndef METIS_CLASSES_H
#define METIS_CLASSES_H

#include <stdint.h>
#include <stdio.h>
#include "tree/classify.h"
#include "engine/step/step.h"

/* One class: every discrepancy with the same signature is a hit of it. */
struct dclass {
    int id;                     /* 1, 2, ... in the order found */
    int op;                     /* enum op_id; -1 for the initial state */
    int variant;                /* the operation's variant (opnames.h), -1 for none */
    int fs;                     /* config index of the fs that differs (0 only for a crash check) */
    unsigned kinds;             /* DIFF_* */
    enum tree_diff attr;         /* with DIFF_STATE: the most telling difference */
    char signature[160];        /* "mkdir bad state mode", "rename/exchange bad errno EINVAL, reference 0" */
    struct state_diff d;        /* the first example's difference (attr TREE_DIFF_NONE without one) */
    struct op_result ref, res;  /* the first example's outcomes: reference and fs */
    char hint[1024];            /* known behaviours it matches; "" for none */
    char cause_id[96];          /* the probable cause it may share with other classes: the first
                                   matching hint rule's id (hints_cause) or a known delta's
                                   (causes.c); "" for none */
    char cause[200];            /* that cause's title */
    char group[160];            /* "CAUSE_ID FS", or the signature for a class of no known cause */
    char lacks[64];             /* a refusal's cause: the lacks word that would declare it */
    char below_delta[300];      /* found below a known delta: its description, else "" */
    uint64_t hits, first_seq;   /* first_seq: operation of the first example (0: initial) */
    double first_s;             /* seconds into the run of the first example */
    char detail[64];            /* the first example's detail file, "discrepancy-N.txt" */
};

struct dclass_table {
    struct dclass *v;
    int n, cap;
    unsigned details;           /* detail files written so far */
};

/* Error convention: 0 / a count, or -1 with the message in g->err (as the step core). */

/* The signature of fs i's disagreement after g's last step (a: its operation, NULL for the
 * initial state). With a state difference both trees are read back (mounted for the purpose)
 * and compared; a tree that cannot be read leaves attr TREE_DIFF_NONE and says so in d.entry. */
void classes_classify(struct fsgroup *g, int i, const struct op_args *a, struct dclass *c);
/* The class of a target that failed a step (kind: one DIFF_TARGET bit) on fs i: signed by the
 * kind and the fs alone ("daemon-died bindfs"), its evidence g->err (the state, the step, and
 * for restore-unreachable the first differing entry). a: the operation in progress, if any. */
void classes_target_failure(struct fsgroup *g, int i, unsigned kind, const struct op_args *a,
                            struct dclass *c);
/* Counts a hit of c's class at operation seq, secs seconds into the run; adds the class when
 * it is new. Returns the class's index in t and sets *fresh to 1 for a new class, or -1 when
 * out of memory. */
/* The index of the class signed signature, or -1. */
int classes_find(const struct dclass_table *t, const char *signature);
int classes_add(struct dclass_table *t, const struct dclass *c, uint64_t seq, double secs,
                int *fresh);
/* One line for reports: "class 2: mkdir on bad: state differs (mode of /d0/d1: reference
 * 2755, bad 0755)". */
void classes_describe(const struct dclass *c, const struct metis_config *cfg, char *out,
                      size_t len);
/* The "classes" array of summary.json (an empty array when there are none). */
void classes_write_json(const struct dclass_table *t, const struct metis_config *cfg, FILE *f);
void classes_free(struct dclass_table *t);
/* Reads fs i's tree listing (mounting it for the purpose) into a new string; NULL on
 * failure with the message in g->be[i]->err. */
char *classes_read_listing(struct fsgroup *g, int i);

#endif
