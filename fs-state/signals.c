/* Installs the stop and crash handlers of the engine, the replayer and the swarm launcher. */
#include "signals.h"
#include <signal.h>
#include <string.h>

void signals_on_stop(void (*on_stop)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void signals_on_crash(void (*on_crash)(int))
{
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
}
