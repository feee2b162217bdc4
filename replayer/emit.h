/* What emit-c's writers share: the trace, its config, the fs under test and what the reference did when replayed. */
#ifndef METIS_EMIT_H
#define METIS_EMIT_H

#include <stddef.h>
#include <stdio.h>
#include "engine/config.h"
#include "tree/reprotree.h"
#include "trace.h"

struct emit {
    const struct trace *t;
    const struct metis_config *cfg;
    int map[METIS_MAX_FS];      /* config fs -> trace fs */
    int fut;                    /* the fs under test: config index */
    struct op_result *ref;      /* the reference's outcome of every step, replayed */
    struct rt_tree tree;        /* the reference's final tree, replayed */
    char bindir[1024];          /* where this metis-replay (and its RefFS) lives */
};

/* Replays the trace on fresh file systems of the config and keeps the reference's outcome of
 * every step and its final tree. 0, or -1 with the message in err. */
int emit_replay_reference(struct emit *e, char *err, size_t errlen);
void emit_free(struct emit *e);
/* emitc_step.c: repro.c's statement of op's call that sets r: the syscall, or the refusal Metis
 * recorded where the fs under test did not run it (a gatekeeper refused it). */
void emit_step_call(FILE *f, const struct emit *e, const struct trace_op *op);
/* The syscall of a, as a statement setting r. */
void emit_op_call(FILE *f, const struct op_args *a);
/* "ENOENT", or "0" for none: an errno as C text. */
const char *emit_errno_symbol(int err);
/* run.sh's "mount -t FSTYPE [-o OPTS] DEV MNT" of kernel fs c (DEV and MNT shell words, quoted). */
void emit_mount_cmd(FILE *f, const struct fs_config *c, const char *dev, const char *mnt);
/* Writes run.sh, which makes a file system of the config and runs the program on it. */
int emit_write_script(const struct emit *e, const char *path, char *err, size_t errlen);

#endif
