/* The one signal set-up of every Metis program: stop, alarm and crash handlers, SIGPIPE ignored. */
#include "signals.h"
#include <signal.h>
#include <string.h>

/* No SA_RESTART: a blocking wait returns EINTR, so that its caller sees the signal at once. */
static void catch_signal(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigaction(sig, &sa, NULL);
}

void signals_catch_stops(void (*on_stop)(int))
{
    catch_signal(SIGINT, on_stop);
    catch_signal(SIGTERM, on_stop);
    catch_signal(SIGHUP, on_stop);
}

void signals_ignore_pipe(void)
{
    signal(SIGPIPE, SIG_IGN);
}

void signals_on_stop(void (*on_stop)(int))
{
    signals_catch_stops(on_stop);
    signals_ignore_pipe();
}

void signals_release_stops(void)
{
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &stops, NULL);
}

void signals_on_alarm(void (*on_alarm)(int))
{
    catch_signal(SIGALRM, on_alarm);
}

void signals_on_crash(void (*on_crash)(int))
{
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
}

void signals_die(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}
