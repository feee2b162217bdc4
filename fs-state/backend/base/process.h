/* Processes a backend starts, pins, waits for and finds through /proc: daemons, CPUs, sleeping, other processes' open files. */
#ifndef METIS_BK_PROCESS_H
#define METIS_BK_PROCESS_H

#include <stddef.h>
#include <sys/types.h>

/* Starts a daemon: argv[0] searched in PATH, in its own process group, stdin from /dev/null,
 * stdout+stderr to logfd (or /dev/null if logfd < 0); its pid or -1 (spawner.h's spawn_start). */
pid_t bk_spawn(char *const argv[], int logfd);

/* A FUSE round trip costs ~6 us when the caller and the daemon share a CPU, but 40-120 us when
 * the reply must wake another, idle vCPU (reffs-only: 552 ops/s unpinned, 2,500 pinned). Pins
 * the calling thread (which does all of one fs's work; a daemon it starts inherits the CPU)
 * to its CPU, or to one no other backend of this process has taken. */
void bk_pin_cpu(void);

/* Sleeps through signals (process.c); the clock is util.h's now_seconds. */
void bk_sleep(double seconds);

/* Other processes, found through /proc (process.c); pid is a /proc entry name. */
/* 1 when the /proc entry name is a process, and not us. */
int bk_proc_other(const char *name);
/* 1 when process pid has path open. */
int bk_proc_holds(const char *pid, const char *path);
/* 1 when a process other than us has path open (a daemonized fs may still write its image). */
int bk_file_in_use(const char *path);
/* The same, but for process except (a faulty device's daemon, which holds an image for good). */
int bk_file_in_use_except(const char *path, pid_t except);
/* Reads /proc/<pid>/<what> (cmdline, environ: NUL-separated strings) into buf, NUL-terminated;
 * its length (len - 1 when it was cut there), 0 when there is none. */
size_t bk_proc_read(const char *pid, const char *what, char *buf, size_t len);
/* SIGKILLs every FUSE daemon (another process holding /dev/fuse) given an argument match
 * accepts, again until none is found (1 s at most); how many it killed. Killing a daemon ends
 * its FUSE connection, so calls blocked on its mount return ENOTCONN. */
typedef int (*bk_arg_match_fn)(const char *arg, const void *ctx);
int bk_kill_fuse_daemons(bk_arg_match_fn match, const void *ctx);
/* 1 while another process (a FUSE daemon or not yet one) was given an argument match accepts. */
int bk_process_given(bk_arg_match_fn match, const void *ctx);
/* SIGKILLs every other process given an argument match accepts, FUSE daemon or not, again until
 * none is found (1 s at most); how many it killed. */
int bk_kill_given(bk_arg_match_fn match, const void *ctx);

#endif
