/* The fault steps' draws: whether a step is one, its kind, and the request its fault starts at. */
#include "engine/fault/fault_plan.h"
#include "engine/config/fault_config.h"
#include <string.h>

/* Requests a fault may start at before any fault step of the operation was seen. */
#define FIRST_GUESS 8

void fault_plan_init(struct fault_plan *p, const struct metis_config *cfg)
{
    unsigned bits = 0;
    char bad[64];
    memset(p, 0, sizeof *p);
    p->cfg = cfg;
    p->silent_op = cfg->run.fault_test_silent[0] ? op_lookup(cfg->run.fault_test_silent) : -1;
    if (cfg->run.faults <= 0 || fault_kinds_parse(cfg->run.fault_kinds, &bits, bad, sizeof bad))
        return;
    for (int k = 0; k < FAULT_NKINDS; k++)
        if (bits & (1u << k))
            p->kinds[p->nkinds++] = k;
    p->share = p->nkinds ? cfg->run.faults : 0;
    /* Its own stream: the operations a seed draws stay those of the run without faults. */
    rng_seed(&p->rng, cfg->run.seed ^ 0x6661756c74737465ULL);
}

/* The requests the operation's fault steps saw at most; before it had one, what any had. */
static uint64_t seen_of(const struct fault_plan *p, enum op_id op, int writes)
{
    uint64_t n = (unsigned)op < OP_COUNT ? p->seen[op][writes] : 0, any = 0;
    for (int k = 0; k < OP_COUNT && !n; k++)
        any = p->seen[k][writes] > any ? p->seen[k][writes] : any;
    return n ? n : any ? any : FIRST_GUESS;
}

void fault_plan_draw(struct fault_plan *p, enum op_id op, struct fault_spec *s)
{
    memset(s, 0, sizeof *s);
    /* The test hook's operation alone gets fault steps: what is found is the planted loss. */
    if (p->share <= 0 || (p->silent_op >= 0 && (int)op != p->silent_op) ||
        rng_unit(&p->rng) >= p->share)
        return;
    s->on = 1;
    s->kind = (enum fault_kind)p->kinds[rng_below(&p->rng, (uint64_t)p->nkinds)];
    if ((int)op == p->silent_op)
        s->kind = FAULT_LOST_WRITE;      /* the hook's: fault_spec_hook makes it silent */
    s->at = rng_below(&p->rng, seen_of(p, op, s->kind != FAULT_EIO_READ));
    fault_spec_hook(s, p->cfg, (int)op);
    if (s->silent)
        s->at = 0;              /* the hook loses the operation's every write */
}

void fault_plan_learn(struct fault_plan *p, enum op_id op, uint64_t reads, uint64_t writes)
{
    if ((unsigned)op >= OP_COUNT)
        return;
    if (reads > p->seen[op][0])
        p->seen[op][0] = reads;
    if (writes > p->seen[op][1])
        p->seen[op][1] = writes;
}
