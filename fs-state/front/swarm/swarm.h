/* Swarm verification (`metis swarm`): shared declarations of the primary and worker sides. */
#ifndef METIS_SWARM_H
#define METIS_SWARM_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include "engine/config.h"
#include "engine/known_file.h"
#include "lib/helpers.h"

#define SWARM_MAX_HOSTS 256
#define SWARM_MAX_VTS 4096
#define SWARM_TOOLS 24
/* Files of one VT on a worker live in SWARM_TMP/metis-swarm-<id>/<host tag>/vt-<i>. */
#define SWARM_TMP "/tmp"
/* Signals to a killed VT: one TERM (metis run escalates itself after 30 s), KILL much later. */
#define SWARM_TERMSEQ "TERM,45000,KILL,25"
#define SWARM_PROBE_TIMEOUT 30
#define SWARM_FINISH_TIMEOUT 150
#define SWARM_VT_TIMEOUT_MARGIN 120

/* One line of the sshloginfile and what the probe found on it. */
struct swarm_host {
    char line[512];             /* as written ("2/user@host"), given to parallel */
    char login[512];            /* without the "N/" prefix: parallel's $PARALLEL_SSHLOGIN */
    int slots;                  /* N of "N/", 0 = as many as the host has cores */
    int answered;               /* the probe ran to its end */
    int ready;                  /* answered and nothing missing */
    int cores;
    long mem_kib, shm_kib;
    char hostname[256];
    char metis[PATH_MAX];
    char missing[512];          /* tools/devices not found, space-separated */
    char room[256];             /* warnings about cores, memory, /dev/shm; empty = room */
    char error[512];            /* the probe's stderr (e.g. ssh's message) */
    int vts_ran, collected;
};

struct swarm_opts {
    const char *config, *hosts, *out, *metis;
    const char *known, *junit;  /* --known FILE, --junit FILE */
    int strict_known;
    int vts, stop_on_discrepancy, check, keep_going;
    double seconds, vt_timeout;
    uint64_t ops, swarm_seed;
    int have_seed, have_seconds, have_ops, have_timeout;
};

struct swarm {
    struct swarm_opts o;
    struct metis_config *cfg;
    char id[64];
    char out[PATH_MAX];
    char stage_dir[128];        /* SWARM_TMP/metis-swarm-<id> on this machine */
    char stage_cfg[PATH_MAX];   /* the config as the workers read it */
    char stage_known[PATH_MAX]; /* the known file as the workers read it; "" without one */
    struct known_list known;    /* --known's classes */
    char metis[PATH_MAX];       /* metis on the workers: this binary's path, else PATH */
    int nhosts;
    struct swarm_host host[SWARM_MAX_HOSTS];
    int nvts;
    double t_start, t_end;
    int interrupted, halted;
    char tools[SWARM_TOOLS][64];
    int ntools, need_loop, need_fuse;
};

/* swarm_util.c */
pid_t swarm_spawn(char *const argv[], const char *in, const char *out, const char *err,
                  int own_group);
int swarm_rm_rf(const char *path);
void swarm_shell_quote(const char *s, char *out, size_t len);
void swarm_host_tag(const char *login, char *out, size_t len);
double swarm_now(void);
void swarm_self_exe(char *out, size_t len);

/* hosts.c */
int swarm_hosts_load(struct swarm *s, const char *path);
void swarm_tools_for(struct swarm *s);
int swarm_probe(struct swarm *s, const char *dir);
void swarm_check_print(const struct swarm *s, FILE *f);
int swarm_write_hosts(const struct swarm *s, const char *path);

/* run.c */
int swarm_run_vts(struct swarm *s);
void swarm_collect(struct swarm *s);
void swarm_install_signals(void);
extern volatile sig_atomic_t swarm_signal;

/* job.c (worker side) */
int swarm_vt_job(int argc, char **argv);
int swarm_finish_job(int argc, char **argv);

/* swarm_report.c */
int swarm_report(struct swarm *s);
/* Called with the output directory once the summary is written; bin/metis sets it (report.html). */
extern void (*swarm_report_written)(const char *out);

/* classes.c: the VTs' discrepancy classes merged by signature. */
struct run_class;
void swarm_classes_reset(void);
/* Adds the classes of one VT's summary.json (each also to each(ctx, vt, class)); their count,
 * -1 when the summary lists none at all (written by a Metis without classes). */
int swarm_classes_add_vt(const char *summary_json, int vt,
                         void (*each)(void *ctx, int vt, const struct run_class *c), void *ctx);
int swarm_classes_count(void);
void swarm_classes_json(const struct swarm *s, FILE *f);
void swarm_classes_text(const struct swarm *s, FILE *f);
/* Merged classes not in the known file (all of them without one). */
int swarm_classes_new(const struct swarm *s);
/* With --known: the split and the known classes no VT found (known_json_split). */
void swarm_classes_known_json(const struct swarm *s, FILE *f);

/* `metis swarm ...`: argv[0] is "swarm". Returns the exit status. */
int swarm_main(int argc, char **argv);

#endif
