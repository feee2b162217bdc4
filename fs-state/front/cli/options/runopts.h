/* Options of `metis run`/`metis check`: the loaded config, command-line overrides, search options. */
#ifndef METIS_RUNOPTS_H
#define METIS_RUNOPTS_H

#include <stdint.h>
#include "engine/config/config.h"
#include "front/cli/runs/model.h"

struct run_opts {
    struct metis_config cfg;
    struct search_opts search;
    int vt;                     /* swarm verification task index, -1 outside a swarm */
    uint64_t swarm_seed;
    int vts;                    /* --vts: the swarm's VT count (0: none); a bounded config's VT
                                   then searches only its share of the first two transitions */
    char claims[300];           /* --claims NAME: the claim table /dev/shm/metis-claims-NAME a
                                   bounded config's VTs on this host share ("": none) */
    const char *known;          /* --known FILE: classes in it do not fail the run */
    int strict_known;           /* --strict-known: exit 1 on any class, known or not */
    const char *junit;          /* --junit FILE: the run as a JUnit XML test suite */
    int require_complete;       /* --require-complete: a bounded search that did not get
                                   through its depth fails the run (METIS_EXIT_INCOMPLETE) */
};

/* argv[0] is the command ("run"/"check"). Loads and validates the config; prints errors and
 * returns -1. Returns 1, loading nothing, if --help or -h was given. */
int run_opts_parse(int argc, char **argv, struct run_opts *ro);
/* The search options (SPIN's and the search shape) and input seed of swarm VT vt, derived
 * from the swarm seed alone. */
void swarm_diversify(uint64_t swarm_seed, int vt, struct search_opts *so, uint64_t *input_seed);
/* One-line description of the search options ("order=t_rand hash=3 ... shape=dive30") as a
 * VT searches with them (bounded: a bounded config's VT); returns the shape's name. */
const char *search_opts_describe(const struct search_opts *so, int bounded, char *buf,
                                 size_t len);
/* The options search (from 1) of a run hands SPIN: the run's, with a SPIN seed of its own
 * derived from the run's (the first search keeps it). */
struct search_opts search_opts_of(const struct search_opts *run, int search);

#endif
