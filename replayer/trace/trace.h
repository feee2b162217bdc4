/* Metis traces: one search path's operations with their recorded outcomes, as line-oriented text (TRACE.md). */
#ifndef METIS_TRACE_H
#define METIS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tree/digest.h"
#include "engine/config/config.h"
#include "engine/ops/ops.h"
#include "engine/vocab/differs.h"
#include "backend/logical/calls/rcalls.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/ops/together.h"

#define TRACE_VERSION 1
/* Longest line the parser accepts: an op line of METIS_OP_LINE_MAX plus its "op SEQ " prefix. */
#define TRACE_LINE_MAX (METIS_OP_LINE_MAX + 64)
/* ... and a call record's: two names of up to 4095 bytes, each byte escaped (%XX), and a value
 * of up to 64 KiB in hex. */
#define TRACE_CALL_LINE_MAX (6 * 4096 + 2 * METIS_XATTR_VALUE_MAX + 512)
/* Largest trace file read, so a hostile file cannot exhaust memory. */
#define TRACE_FILE_MAX (512u << 20)


/* What one file system did: the recorded (or replayed) result and abstract state. */
struct trace_outcome {
    int have;
    long ret;
    int err;
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
    int ncalls;                 /* a concurrent step: every call's outcome (ret, err: call 1's) */
    long call_ret[TOGETHER_MAX];
    int call_err[TOGETHER_MAX];
};

/* A recorded "discrepancy" line: which of ret/errno/state differ from the reference. */
struct trace_disc {
    int have;
    unsigned differs;           /* DIFF_* (step.h) */
};

struct trace_fs {
    char name[64];
    char type[16];              /* kernel, reffs, fuse */
    char fstype[32];            /* "-" when none */
    uint64_t size;
};

/* One step of the trace: an operation on every fs, or (is_call) a call a logical restore of
 * fs call_fs made before operation seq ("call" record): a history's (TRACE.md) own steps. */
struct trace_op {
    uint64_t seq;               /* the operation's number in the run that recorded it */
    int line;                   /* line of its "op" record (0 when made in memory) */
    struct op_args args;        /* the operation; a concurrent step's first call */
    int tries;                  /* a concurrent step ([run] together): its tries; 0: none */
    int ncalls;                 /* ... its calls, in calls[] (owned by the op) */
    struct op_args *calls;
    char order[64];             /* ... the serial order the reference kept ("2,1", "r1,2,1") */
    struct fault_spec fault;    /* a fault step's fault ("fault" record); on 0: none */
    struct trace_outcome res[METIS_MAX_FS];   /* by trace fs index */
    struct trace_disc disc[METIS_MAX_FS];
    int is_call;
    int call_fs;                /* trace fs index of the fs that made the call */
    struct rcall call;          /* its names point into call_text, its data is call_data */
    struct op_result call_res;  /* what it returned there */
    char *call_text;
    unsigned char *call_data;
};

struct trace {
    char file[1024];            /* where it was read from, for messages */
    uint64_t seed;
    char hash[32];
    char config_path[1024];     /* "" when not given */
    int config_line;
    char **cfg;                 /* the embedded config, line by line */
    int ncfg, cfg_cap, cfg_first_line;
    int nfs;
    struct trace_fs fs[METIS_MAX_FS];
    int fs_line;                /* line of the first fs record */
    struct trace_outcome init[METIS_MAX_FS];
    struct trace_disc init_disc[METIS_MAX_FS];
    struct trace_op *ops;       /* the steps: operations and calls */
    size_t nops, ops_cap;
    size_t ncalls;              /* of the nops steps, how many are calls */
    /* ops[0..start) are the search path that made the saved state the shrunk trace starts
     * from (its "start" record); they recreate that state. 0: it starts from the initial state. */
    size_t start;
    /* With start: the file each fs exported for that state (by trace fs index; "" if none), for
     * replays that can load it instead of replaying ops[0..start) ("state" records). */
    char start_state[METIS_MAX_FS][1024];
};

void trace_init(struct trace *t);
void trace_free(struct trace *t);
/* Appends an operation (zeroed outcomes); returns it, or NULL when out of memory. */
struct trace_op *trace_add_op(struct trace *t, uint64_t seq, const struct op_args *a);
/* Appends a copy of src's step: an operation (its fault too), a concurrent step (its calls
 * too) or a call (with its outcome); an operation's outcomes zeroed. */
struct trace_op *trace_add_copy(struct trace *t, const struct trace_op *src);
/* A concurrent step's calls (one: an operation's own args; none: a restore call), and how
 * many. */
const struct op_args *trace_op_calls(const struct trace_op *op, int *n);
/* The calls of a concurrent step as a set (together.h); 0, or -1 when op is none. */
int trace_op_set(const struct trace_op *op, struct together_set *set);
/* Appends a copy of call c that trace fs fs made before operation seq, with its outcome. */
struct trace_op *trace_add_call(struct trace *t, uint64_t seq, int fs, const struct rcall *c,
                                struct op_result res);
/* The index of the last operation (not a call), or -1 if there is none. */
long trace_last_op(const struct trace *t);
int trace_add_cfg_line(struct trace *t, const char *line);
/* Index of the fs called name, -1 if none. */
int trace_fs_index(const struct trace *t, const char *name);

/* Parses text (len bytes) named file. Returns 0, or -1 with "file:line: message" in err. */
int trace_parse(const char *text, size_t len, const char *file, struct trace *t, char *err,
                size_t errlen);
int trace_read_file(const char *path, struct trace *t, char *err, size_t errlen);
/* Writes the canonical text form; returns 0 or -1 on a write error. */
int trace_write(const struct trace *t, FILE *f);
int trace_write_file(const struct trace *t, const char *path, char *err, size_t errlen);

/* errno by name ("ENOENT", "0" for none); -1 if unknown. */
int trace_errno_parse(const char *name);
const char *trace_errno_name(int err);
/* Hex digest text to bytes; returns the length, or -1 if not even-length lowercase hex. */
int trace_hex_decode(const char *hex, unsigned char *out, size_t cap);
void trace_hex_encode(const unsigned char *in, size_t n, char *out);

/* The discrepancy lines of the last operation (or the initial state if there is none):
 * per fs, the differs bits, and 1 if any fs differs. */
int trace_final_discrepancy(const struct trace *t, unsigned differs[METIS_MAX_FS]);

#endif
