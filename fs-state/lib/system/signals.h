/* Signal handling every Metis program installs the same way: stop signals, alarms and crash signals. */
#ifndef METIS_SIGNALS_H
#define METIS_SIGNALS_H

/* SIGINT, SIGTERM and SIGHUP call on_stop (which should only note the signal, or forward it). */
void signals_catch_stops(void (*on_stop)(int));
/* SIGPIPE ignored, so a closed pipe is an error return rather than a death. */
void signals_ignore_pipe(void);
/* signals_catch_stops and signals_ignore_pipe. */
void signals_on_stop(void (*on_stop)(int));
/* Unblocks SIGINT, SIGTERM and SIGHUP, which a parent may have held for us (spawner.h's
 * SPAWN_HOLD_STOPS) until our handlers were in place. */
void signals_release_stops(void);
/* SIGALRM calls on_alarm: the end of a grace period given to a child. */
void signals_on_alarm(void (*on_alarm)(int));
/* SIGSEGV, SIGBUS, SIGABRT and SIGFPE call on_crash, which cleans up and then signals_die. */
void signals_on_crash(void (*on_crash)(int));
/* From a crash handler: dies of sig as the program would have without the handler. */
void signals_die(int sig);

#endif
