/* What the generated pan calls: the engine's entry points and the state SPIN tracks. */
#ifndef METIS_DRIVER_H
#define METIS_DRIVER_H

#include <stdint.h>

/* Concatenated abstract digests of every file system (tracked "Matched"). */
extern unsigned char metis_abs[];
/* Id of the concrete state the search is at (tracked "UnMatched"): when it differs from
 * what the file systems hold, SPIN has backtracked and the driver restores it. */
extern uint64_t metis_sid;
/* How often the search reached this abstract state before ([run] revisits; tracked "Matched",
 * so a state reached again within the budget is new to SPIN). */
extern uint32_t metis_round;

/* Reads METIS_CONFIG / METIS_OUT / METIS_RUN_ID and the overrides from the environment,
 * makes every file system and the initial state. Exits on failure. */
void metis_start(void);
/* One step of the search: operation op on every file system. SPIN's counters are passed
 * in because they live in pan.c. */
void metis_step(int op, double stored, double matched, long depth);
/* search = bounded: one step of transition t of the table the engine made from the config
 * (engine/ops/transitions.h), one `do` branch of the model each. */
void metis_step_bounded(int t, double stored, double matched, long depth);
/* search = random instead of SPIN's search: random walks from the initial state until the
 * run's budget ends it (never returns). */
void metis_walk(void) __attribute__((noreturn));

#endif
