/* Which steps of a search are fault steps, and the fault each arms: drawn from a generator of its own, so the operations drawn are the run's without faults. */
#ifndef METIS_FAULT_PLAN_H
#define METIS_FAULT_PLAN_H

#include <stdint.h>
#include "engine/config/config.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/input/input.h"
#include "engine/vocab/opnames.h"

struct fault_plan {
    const struct metis_config *cfg;
    double share;               /* [run] faults: the share of steps that are fault steps */
    int kinds[FAULT_NKINDS], nkinds;   /* [run] fault_kinds */
    int silent_op;              /* [run] fault_test_silent: its op id, or -1 */
    struct rng rng;
    /* Per operation and direction (0 reads, 1 writes): the most requests a fault step of it
     * saw, so that the request a fault starts at is drawn among those the operation makes. */
    uint64_t seen[OP_COUNT][2];
};

/* Off (share 0) when cfg has no fault steps: then fault_plan_draw never draws. */
void fault_plan_init(struct fault_plan *p, const struct metis_config *cfg);
/* Whether the step of operation op is a fault step, and its fault: s->on. */
void fault_plan_draw(struct fault_plan *p, enum op_id op, struct fault_spec *s);
/* What a fault step of op saw: the device's reads and writes while the fault was armed. */
void fault_plan_learn(struct fault_plan *p, enum op_id op, uint64_t reads, uint64_t writes);

#endif
