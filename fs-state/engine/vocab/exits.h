/* The exit statuses of bin/metis (run, check, swarm, report) and of pan, the engine it runs: the one list, as metis(1) documents it. */
#ifndef METIS_EXITS_H
#define METIS_EXITS_H

enum metis_exit {
    METIS_EXIT_OK = 0,              /* no discrepancy (check: the config is valid) */
    METIS_EXIT_DISCREPANCY = 1,     /* the file systems disagreed */
    METIS_EXIT_BAD_INPUT = 2,       /* bad usage, config or run directory */
    METIS_EXIT_INFRA = 3,           /* infrastructure failure: a mount, a daemon, pan's build */
    METIS_EXIT_STOPPED = 4,         /* pan only: stopped by a signal (bin/metis then exits 130) */
    METIS_EXIT_RESTART = 5,         /* pan only: SPIN's search completed with budget left, so
                                       bin/metis starts the next search (searches.h) */
    METIS_EXIT_INCOMPLETE = 6,      /* bin/metis run --require-complete: the bounded search did
                                       not check every state within its depth */
    METIS_EXIT_INTERRUPTED = 130,   /* interrupted (SIGINT, SIGTERM, SIGHUP), as a shell's 128 + 2 */
};

#endif
