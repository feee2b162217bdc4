/* A concurrent step on a group of file systems: the targets issue the calls at once (tries times), the reference runs every serial order, and the verdict is whether one order explains each try. */
#ifndef METIS_CONCURRENT_H
#define METIS_CONCURRENT_H

#include <stdint.h>
#include "engine/concurrent/serial.h"
#include "engine/step/step.h"
#include "engine/ops/together.h"

/* One fs under test's tries of a concurrent step. */
struct concurrent_fs {
    int tries, passes;          /* tries made; those some serial order explains */
    int early;                  /* passing tries that needed an early resolution */
    uint32_t met;               /* the orders of acts passing tries matched (bit: whole order) */
    struct serial_set last;     /* the orders its last try matched */
    int failed;                 /* none did: not serializable */
    int serial_differs;         /* its last try matched no order, but the same calls made one
                                   after another (the nearest order) differ from the
                                   reference's too: no race, a difference of one call at a
                                   time, which the ordinary steps report */
    int closest;                /* the order nearest its last try (serial_closest) */
    struct op_result res[TOGETHER_MAX];    /* its last try's outcomes, by call number */
};

struct concurrent_verdict {
    struct serial_table orders;            /* the reference's serial orders */
    struct concurrent_fs fs[METIS_MAX_FS];  /* by fs index; [0] is the reference's kept order */
    int kept;                   /* the order whose end state the reference keeps */
    int failed;                 /* fs under test whose last try no order explains */
    int diverged;               /* none failed, but no one order explains every fs's last try
                                   (each behaved as some serial order) or a fs differs one call
                                   at a time too (serial_differs): the step is a leaf of the
                                   search, not a finding */
};

/* Error convention: 0 or -1 with g->err (the step core's; a -1 is infrastructure, or a target
 * that failed the step: fsgroup_target_failure tells). */

/* The concurrent step set from state from (STEP_NO_STATE: the one the file systems hold,
 * parent its id): the reference runs the calls in every serial order, then every fs under
 * test issues them at once, up to tries times from the state before the step, until a try no
 * order explains. The reference keeps the end state of an order every fs's last try matched
 * (or the one nearest the first that failed), and every fs is saved as to. out[i].differs:
 * DIFF_SERIAL where the last try matched no order; history for replaying backends is the
 * kept order. */
int concurrent_step(struct fsgroup *g, const struct together_set *set, int tries, uint64_t from,
                    uint64_t parent, uint64_t to, struct concurrent_verdict *v);
/* The calls made in the order of atoms on every fs (a concurrent step that passed, replayed
 * as the reference kept it), saved as to; v->fs[i].res gets each fs's outcomes. */
int concurrent_in_order(struct fsgroup *g, const struct together_set *set,
                        const unsigned char *atoms, uint64_t from, uint64_t parent, uint64_t to,
                        struct concurrent_verdict *v);

#endif
