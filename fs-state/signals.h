/* Signal handling every Metis program installs the same way: stop signals and crash signals. */
#ifndef METIS_SIGNALS_H
#define METIS_SIGNALS_H

/* SIGINT, SIGTERM and SIGHUP call on_stop (which should only note the signal); SIGPIPE is
 * ignored, so a closed pipe is an error return rather than a death. */
void signals_on_stop(void (*on_stop)(int));
/* SIGSEGV, SIGBUS, SIGABRT and SIGFPE call on_crash, which cleans up and re-raises. */
void signals_on_crash(void (*on_crash)(int));

#endif
