/* metis clean, and the sweep every run starts with: what dead runs left on this host removed, and said in one line. */
#ifndef METIS_FRONT_CLEAN_H
#define METIS_FRONT_CLEAN_H

/* `metis clean [--help]`: argv[0] is "clean". Prints what it removed, or "nothing to do";
 * returns the exit status (3 when something could not be removed). */
int clean_main(int argc, char **argv);
/* Sweeps what dead runs left before who (e.g. "metis") makes anything of its own, and says
 * so on stderr in one line (nothing when there was nothing); what could not be removed is a
 * warning, as the run has an id of its own. */
void clean_dead_runs(const char *who);

#endif
