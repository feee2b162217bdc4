/* What emit-c's writers share: the trace, its config, the fs under test and what the reference did when replayed. */
#ifndef METIS_EMIT_H
#define METIS_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine/config/config.h"
#include "tree/reprotree.h"
#include "trace/trace.h"

/* An outcome the reference gives for a concurrent step's calls in some serial order. */
struct emit_order {
    char name[64];              /* "2,1", "r1,2,1": the first order that gives it */
    struct op_result res[TOGETHER_MAX];     /* by call number */
    int tree;                   /* its end state: emit.trees[tree] */
};

struct session;

struct emit {
    const struct trace *t;
    const struct metis_config *cfg;
    int map[METIS_MAX_FS];      /* config fs -> trace fs */
    int fut;                    /* the fs under test: config index */
    struct op_result *ref;      /* the reference's outcome of every step, replayed */
    struct op_result (*calls)[TOGETHER_MAX];  /* ... of every call of a concurrent step made
                                                 in the order the run kept */
    struct rt_tree tree;        /* the reference's final tree, replayed */
    char bindir[1024];          /* where this metis-replay (and its RefFS) lives */
    int at_once;                /* the last step is a concurrent one no serial order explained:
                                   the program issues it at once, try after try */
    struct together_set set;    /* ... its calls */
    struct emit_order *orders;  /* ... what the reference gives in its serial orders, each
                                   outcome once */
    int norders;
    struct rt_tree *trees;      /* ... and their end states, each once */
    int ntrees;
    uint64_t fill_inodes, fill_bytes, fill_slack;   /* what Metis's equalization filled the fs
                                                       under test with (equalize.h) */
    int fill_made;              /* ... whether it could make its filler at all */
    /* The reference's root after set-up: 0755 0:0, or a target's own when it ignores a chmod
     * of its root (set-up then gives the reference that one). */
    unsigned root_mode, root_uid, root_gid;
};

/* Replays the trace on fresh file systems of the config and keeps the reference's outcome of
 * every step and its final tree (with at_once: what every serial order of the last step gives,
 * emit_orders). 0, or -1 with the message in err. */
int emit_replay_reference(struct emit *e, char *err, size_t errlen);
/* The directory Metis's equalization fillers live in, left out of every tree. */
const char *emit_filler_dir(void);
/* fs 0's tree as the program lists the fs under test (mounted for the purpose). */
int emit_list_reference(struct session *s, struct rt_tree *tree, char *err, size_t errlen);
/* Every serial order of the last step's calls on the reference from saved state sid (the
 * state before it): their distinct outcomes into e->orders, e->trees. */
int emit_orders(struct session *s, struct emit *e, uint64_t sid, char *err, size_t errlen);
void emit_orders_free(struct emit *e);
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
/* run.sh's pieces (emitsh.c): s single-quoted for sh; the mkfs of c's image of size bytes; the
 * size its image gets; a tmpfs's mount options; where its RefFS is; c's {dir} directories, made
 * fresh, with the sed expressions that put them into its mount command. */
void emitsh_quote(FILE *f, const char *s);
void emitsh_mkfs(FILE *f, const struct fs_config *c, uint64_t size);
uint64_t emitsh_image_size(const struct fs_config *c);
void emitsh_tmpfs_opts(FILE *f, const struct fs_config *c);
void emitsh_find_reffs(FILE *f, const struct emit *e, const char *prog);
void emitsh_dirs(FILE *f, const struct fs_config *c, char *sed, size_t len);
/* With a concurrent step at the end (at_once, emitsh_together.c): the try loop, then each
 * fs's case, which makes the fs afresh for every try. */
void emitsh_together_head(FILE *f, const struct emit *e);
void emitsh_together_case(FILE *f, const struct emit *e, const struct fs_config *c);

#endif
