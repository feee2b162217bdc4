/* The one way Metis runs another program: posix_spawn, a time limit, captured output, exit status. */
#ifndef METIS_SPAWNER_H
#define METIS_SPAWNER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* argv[0] is looked up in PATH (else it is a path). */
#define SPAWN_SEARCH_PATH 1u
/* The child leads its own process group: the terminal's signals reach only us, and a timeout
 * kills the child and everything it started. */
#define SPAWN_OWN_GROUP 2u
/* The child starts with SIGINT, SIGTERM and SIGHUP blocked, so that a signal that comes before
 * it installs its handlers still means an orderly stop rather than a sudden death. */
#define SPAWN_HOLD_STOPS 4u
/* stdout and stderr go to /dev/null (in place of out, err and out_fd). */
#define SPAWN_QUIET 8u
/* stdout goes to our stderr (in place of out), keeping a child's chatter off our stdout. */
#define SPAWN_OUT_TO_ERR 16u

/* A child's status, as a shell gives it, when the program was not found or could not be
 * executed, and when spawn_capture's time limit ran out. */
#define SPAWN_CANNOT_RUN 127
#define SPAWN_NOT_EXECUTABLE 126
#define SPAWN_TIMED_OUT 124

/* How a child starts. Streams name files opened for it; NULL (or out_fd 0) keeps ours. Every
 * child starts with default signal dispositions and nothing blocked (but SPAWN_HOLD_STOPS). */
struct spawn_how {
    const char *in;     /* read */
    const char *out;    /* written from its start (truncated) */
    const char *err;    /* appended to */
    int out_fd;         /* > 0: stdout and stderr both go to this descriptor, in place of out and err */
    unsigned flags;     /* SPAWN_* */
};

/* Starts argv; its pid, or -1 with errno (a program that cannot be run fails here). */
pid_t spawn_start(char *const argv[], const struct spawn_how *how);

/* A waitpid status as a shell gives it: the exit code, or 128 + the signal. */
int spawn_status(int wstatus);
/* Waits for pid, through signals: its status as spawn_status gives it, or -1. */
int spawn_wait(pid_t pid);
/* Waits up to timeout seconds: the status, -1 on timeout (pid still running), 0 if pid is
 * not our child. */
int spawn_wait_for(pid_t pid, double timeout);
/* SIGTERM, a wait of up to grace seconds, then SIGKILL to its group; always reaps. */
void spawn_stop(pid_t pid, double grace);

/* When a wait gives up: at the deadline (on the monotonic clock of now_seconds, 0 for none)
 * or once *stop is set, the child and its group get one SIGTERM, and grace seconds later its
 * group a SIGKILL. */
struct spawn_limits {
    double deadline, grace;
    const volatile sig_atomic_t *stop;
};
/* Waits for pid within limits; its status as spawn_status gives it, or -1. */
int spawn_wait_limited(pid_t pid, const struct spawn_limits *l);

/* Runs argv (a shell's way: stdin /dev/null, own group) with stdout and stderr captured into
 * out (at most outlen - 1 bytes, NUL-terminated; out may be NULL), up to timeout seconds:
 * its status, SPAWN_TIMED_OUT on timeout (its group killed), -1 if it could not start. The capture ends
 * when the program exits, not at EOF: a daemon it started may keep the pipe open. */
int spawn_capture(char *const argv[], double timeout, char *out, size_t outlen);

/* Shell command with a timeout, through spawn_capture, trailing newlines and spaces of the
 * output removed; SPAWN_CANNOT_RUN when the shell finds no such command. */
int run_cmd(double timeout, char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
