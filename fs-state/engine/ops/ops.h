/* The operation table: every operation Metis drives, its arguments, how it runs, and its log form. */
#ifndef METIS_OPS_H
#define METIS_OPS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include "engine/vocab/bounds.h"
#include "engine/vocab/opnames.h"
#include "engine/config/config_types.h"

/* Every value an operation depends on; what is logged and replayed. The bytes written are
 * derived from data_seed (op_fill_bytes), so the log stays small yet exact. */
struct op_args {
    enum op_id op;
    char path[METIS_PATH_MAX];     /* relative to the mount point, starts with "/" */
    char path2[METIS_PATH_MAX];    /* rename/link destination, symlink target */
    int flags;                     /* open flags, rename flags, xattr flags, fallocate mode */
    mode_t mode;
    uint64_t offset;
    uint64_t size;
    uint32_t uid, gid;             /* (uint32_t)-1 keeps */
    char xname[METIS_XATTR_NAME_MAX];
    uint64_t data_seed;
    uint64_t offset2;              /* copy_range: the destination offset */
    uint64_t rdev;                 /* mknod of a device: its number (makedev) */
    int64_t mtime_sec;             /* utimes: the mtime set ... */
    long mtime_nsec;               /* ... or UTIME_NOW in mtime_nsec */
};

/* The fields of op_args an operation uses: the only ones drawn, logged, parsed and compared. */
enum {
    OPF_PATH = 1 << 0, OPF_PATH2 = 1 << 1, OPF_FLAGS = 1 << 2, OPF_MODE = 1 << 3,
    OPF_OFF = 1 << 4, OPF_SIZE = 1 << 5, OPF_UID = 1 << 6, OPF_GID = 1 << 7,
    OPF_XNAME = 1 << 8, OPF_SEED = 1 << 9, OPF_OFF2 = 1 << 10, OPF_RDEV = 1 << 11,
    OPF_MTIME = 1 << 12,
};
#define OPF_COUNT 13

/* Outcome of one operation on one file system. */
struct op_result {
    long ret;
    int err;                       /* errno, 0 on success */
};

struct metis_config;
struct input;

/* What a call resolved before it acts: descriptors of its operands (O_PATH, or the file it
 * writes through) and the last names within the directories it acts in. The kernel resolves
 * names without locks and acts under them later, so another call may come in between: the
 * serial-order check of concurrent steps (serial.h) puts the two apart too. */
struct op_hold {
    int root;                      /* the mount's root, for calls that resolve as they act */
    int fd[3];                     /* -1: none */
    const char *last[2];
    char name[2][METIS_PATH_MAX];
    int failed, err;               /* the resolution failed, with this errno: the act says so */
};

/* One row of the operation table (ops.c), built from METIS_OPS (opnames.h). */
typedef void op_draw_fn(struct input *in, struct op_args *a);
typedef void op_resolve_fn(int rootfd, const struct op_args *a, struct op_hold *h);
typedef long op_act_fn(const struct op_args *a, struct op_hold *h);
struct op_desc {
    op_draw_fn *draw;              /* draws its arguments */
    op_resolve_fn *resolve;        /* opens its operands confined below a mount root */
    op_act_fn *act;                /* makes the call on them */
    unsigned fields;               /* the OPF_* it uses: its text form (op_format, op_parse) */
};
/* The row of op, or NULL when op is out of range. */
const struct op_desc *op_desc_of(enum op_id op);

/* Draws the arguments of op from the configured partitions and pool. */
void op_draw(enum op_id op, struct input *in, struct op_args *a);
/* Runs a on the file system whose root directory is rootfd, never reaching outside it:
 * op_resolve, op_act, op_release. */
void op_exec(int rootfd, const struct op_args *a, struct op_result *r);
/* The two halves of a call, for orders that put another call between them (serial.h):
 * resolving changes nothing; a failed resolution is the act's outcome. op_release closes
 * what the resolution opened. */
void op_resolve(int rootfd, const struct op_args *a, struct op_hold *h);
void op_act(const struct op_args *a, struct op_hold *h, struct op_result *r);
void op_release(struct op_hold *h);
/* Frees what op_exec keeps for the calling thread (a thread that ends after its calls). */
void op_thread_done(void);
/* A write_file's O_APPEND (not in a->flags yet): honoured, at the reference's size of the file
 * (in->view), while the write stays within the sizing rule's per-file bound, else the write
 * stays at a->offset. Returns 1 when it appends. The draws and the bounded search's
 * transitions (transitions.h) share it. */
int op_place_append(struct input *in, struct op_args *a);
/* The offset that puts the end of a range of size bytes at offset on a 4096-byte boundary
 * (j = 1), one byte before it (0) or after it (2): the boundary the range came near, or the
 * first its size reaches. -1 when that end would pass the sizing rule's bound for the kinds
 * (offset high + size high). */
int op_boundary_offset(const struct metis_config *cfg, enum arg_kind off, enum arg_kind len,
                       uint64_t offset, uint64_t size, uint64_t j, uint64_t *moved);
/* Offset down, size up (0 stays 0, an error worth drawing) to multiples of unit (0: none). */
void op_align_range(uint64_t *offset, uint64_t *size, uint64_t unit);
/* Is pool path p strictly below directory dir (dlen characters, "" the root)? The rest of p
 * after it, or NULL: a symlink's targets only go down. */
const char *op_path_below(const char *p, const char *dir, size_t dlen);
/* utimes' mtime choice k of OP_UTIMES_CHOICES: a few whole seconds before 2017, or now. */
#define OP_UTIMES_CHOICES 5
void op_utimes_pick(unsigned k, struct op_args *a);
/* Deterministic bytes of a write. */
void op_fill_bytes(uint64_t seed, void *buf, size_t len);
/* One-line text form "NAME key=value ..." (no newline) and its exact inverse.
 * op_parse returns 0, or -1 with a message in err. */
int op_format(const struct op_args *a, char *buf, size_t len);
int op_parse(const char *text, struct op_args *a, char *err, size_t errlen);

/* The variant of a (opnames.h) or -1: no variants, or a parsed value no draw makes. */
int op_variant_of(const struct op_args *a);

/* The largest size INSERT_RANGE may give a file (the config's per-file bound, set once before
 * any operation runs): an insert beyond it fails with EFBIG without reaching the file system,
 * since chains of inserts would otherwise grow files without bound (configs/README.md, sizing). */
void op_set_insert_cap(uint64_t bytes);
uint64_t op_insert_cap(void);

#endif
