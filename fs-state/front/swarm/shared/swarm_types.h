/* The swarm's shared limits and state (hosts, options, the swarm itself), apart from its functions so each of its files includes only the types. */
#ifndef METIS_SWARM_TYPES_H
#define METIS_SWARM_TYPES_H

#include <limits.h>
#include <stdint.h>
#include "engine/classify/known_file.h"

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

struct metis_config;

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

#endif
