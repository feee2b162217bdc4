/* metis clean, and the sweep every run starts with: what dead runs left on this host removed (backend/sweep.h), and said in one line. */
#include "clean.h"
#include "backend/sweep.h"
#include "engine/vocab/exits.h"
#include <stdio.h>
#include <string.h>

static void clean_usage(FILE *f)
{
    fprintf(f,
            "usage: metis clean\n"
            "Removes what runs killed outright left on this host: the FUSE daemons, mounts and\n"
            "loop devices of their run ids and their files in /dev/shm/metis-ID. A run that\n"
            "lives is never touched (metis(1), LEFTOVERS). metis run does the same first.\n"
            "exit status: 0 done (or nothing to do), 2 bad usage, 3 something could not be removed\n");
}

void clean_dead_runs(const char *who)
{
    struct sweep_report r;
    sweep_dead_runs(&r);
    if (r.removed[0])
        fprintf(stderr, "%s: swept the leftovers of dead runs: %s\n", who, r.removed);
    if (r.failed[0])
        fprintf(stderr, "%s: warning: leftovers of a dead run stay: %s\n", who, r.failed);
}

int clean_main(int argc, char **argv)
{
    struct sweep_report r;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        clean_usage(stdout);
        return METIS_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "metis clean: unexpected argument '%s' (see metis clean --help)\n", argv[1]);
        return METIS_EXIT_BAD_INPUT;
    }
    int rc = sweep_dead_runs(&r);
    if (r.removed[0])
        printf("metis clean: swept the leftovers of dead runs: %s\n", r.removed);
    else if (rc == 0)
        printf("metis clean: nothing to do\n");
    if (r.kept[0])
        printf("metis clean: left alone (no lock file, and a run id that names no process): %s\n",
               r.kept);
    if (rc < 0) {
        fprintf(stderr, "metis clean: %s\n", r.failed);
        return METIS_EXIT_INFRA;
    }
    return METIS_EXIT_OK;
}
