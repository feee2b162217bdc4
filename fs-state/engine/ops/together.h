/* Concurrent steps ([run] together): which operations a step issues at once, and issuing them on one file system, a thread each, released together. */
#ifndef METIS_TOGETHER_H
#define METIS_TOGETHER_H

#include <stdint.h>
#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"

/* The most operations one concurrent step issues: 4! = 24 serial orders to hold it against. */
#define TOGETHER_MAX 4

/* The calls of one concurrent step, numbered 0 .. k-1 in the order they were drawn. */
struct together_set {
    int k;
    struct op_args op[TOGETHER_MAX];
};

/* Whether the step whose operation the search drew (a) issues several at once, decided by the
 * config's share with in's generator (nothing drawn when [run] together is 0); then set gets a
 * and k - 1 more calls of the config's operations, drawn by their weights from in's pool and
 * partitions, each the closest to the others' names and directories of a few draws. Returns
 * 1 for a concurrent step (set filled), 0 for an ordinary one. */
int together_draw(struct input *in, const struct op_args *a, struct together_set *set);
/* 1 when a may be a call of a concurrent step: one system call that changes the file system
 * (not open_unlink, copy_range or an INSERT_RANGE that Metis caps first), on a variant no fs of
 * the run lists `unsupported` (a refusal there is decided call by call, step.c). */
int together_fits(const struct metis_config *cfg, const struct op_args *a);
/* A write that opens with O_TRUNC or O_APPEND makes two changes (the open's, the write's): in a
 * concurrent step it writes in place at the offset drawn. */
void together_adapt(struct op_args *a);
/* The pool paths call a names (path, and path2 but a symlink's target): how many into p. */
int together_call_paths(const struct op_args *a, const char **p);
/* "create_file+rename/plain": the calls' operations (with their variants), sorted, so that one
 * set drawn in two orders is one class. */
void together_label(const struct together_set *set, char *buf, size_t len);

/* Stats every name the set's calls walk through, so that a FUSE kernel holds fresh attributes
 * of each (after a restore it may hold stale ones it acts on unasked: the link count vfs_link
 * checks, the owner a sticky directory's check reads) before the calls meet; the same on
 * every fs, before an order of them too. Changes nothing. */
void together_refresh(int rootfd, const struct together_set *set);
/* Issues every call of set at once on the fs below rootfd: a thread each (the caller makes
 * call 0), released together by a barrier; res[j] gets call j's outcome. -1 (nothing issued)
 * when the threads cannot be made. */
int together_issue(int rootfd, const struct together_set *set, struct op_result *res);
/* An order of the calls' atoms: each call resolves its names (op_resolve), then acts
 * (op_act); atom c | ATOM_RESOLVE is call c's resolution, atom c its act. In an order of whole
 * calls each resolution comes right before its act. */
#define TOGETHER_MAX_ATOMS (2 * TOGETHER_MAX)
#define ATOM_RESOLVE 8

/* Makes the set's calls in the order of atoms (2k of them) on the fs below rootfd; res[c] gets
 * call c's outcome. */
void together_run_atoms(int rootfd, const struct together_set *set, const unsigned char *atoms,
                        struct op_result *res);
/* The atoms of the whole calls acts[0], acts[1], ... one after another. */
void together_whole_atoms(const unsigned char *acts, int k, unsigned char *atoms);
/* An order as text: call numbers from 1 in the order they act, each preceded by "rN" where
 * call N resolved earlier than right before its act: "2,1", "r1,2,1". */
void together_atoms_text(const unsigned char *atoms, int k, char *buf, size_t len);
/* Its inverse for k calls: 0, or -1 when text is no such order. */
int together_atoms_parse(const char *text, int k, unsigned char *atoms);
/* The text a replaying backend keeps of a concurrent step (step.c's history): the order, then
 * the calls, one a line; -1 when it does not fit in len. */
int together_history(const struct together_set *set, const unsigned char *atoms, char *buf,
                     size_t len);
/* 1 when a history entry is one of those; together_replay then makes it on the fs below
 * rootfd (0, or -1 with a message in err). */
int together_is_history(const char *text);
int together_replay(int rootfd, const char *text, char *err, size_t errlen);


#endif
