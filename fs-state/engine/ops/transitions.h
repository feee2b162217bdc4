/* The bounded search's transition table: every operation with every argument tuple its draws can make (a representative per partition), each tried once from every state. */
#ifndef METIS_TRANSITIONS_H
#define METIS_TRANSITIONS_H

#include <stddef.h>
#include <stdio.h>
#include "engine/ops/ops.h"
#include "engine/input/input.h"

/* More transitions than this leave each state: a search no budget finishes, and the config is
 * refused, naming the count. */
#define TRANSITIONS_MAX 65536
/* A model with a branch per transition costs SPIN and the compiler time that grows faster than
 * the table (1,024 branches: 25 s of cc -O2 here, 4,096: 4 minutes; spin -a on 16,384: 2
 * minutes). A larger table is chosen in two steps of the model, a group of TRANSITIONS_GROUP
 * and a member of it, so the model has a branch per group and per member. */
#define TRANSITIONS_FLAT_MAX 256
#define TRANSITIONS_GROUP 64

/* One transition: an operation and its fixed arguments. Its names point into the pool of the
 * input the table was built from, which must outlive it. */
struct transition {
    enum op_id op;
    const char *path, *path2, *xname;
    int flags;
    mode_t mode;
    uint64_t offset, size, offset2, rdev, data_seed;
    uint32_t uid, gid;
    unsigned mtime_choice;
};

struct transitions {
    struct transition *t;       /* the first TRANSITIONS_MAX of them */
    size_t n, cap;              /* held in t */
    size_t total;               /* enumerated: above TRANSITIONS_MAX the table is refused */
    size_t per_op[OP_COUNT];
};

/* Enumerates the transitions of in's config and pool: every operation of weight above 0 (the
 * weight itself does not count), every pool name it may act on, each numeric argument's
 * representatives (kind_values), every value a bitmap's draw can give (the bits of
 * probability 1 always, those between 0 and 1 both ways), each choice of weight above 0,
 * what [fs] lacks leaves out left out as the draws leave it out. A write's data is a function
 * of its arguments. Returns 0, or -1 out of memory. */
int transitions_build(const struct input *in, struct transitions *tt);
void transitions_free(struct transitions *tt);

/* 1 when the model chooses tt's transitions in two steps (group, member): SPIN then takes
 * three steps per operation (transitions_groups groups of TRANSITIONS_GROUP). */
int transitions_grouped(const struct transitions *tt);
size_t transitions_groups(const struct transitions *tt);

/* The data a write with a's arguments puts down in a bounded search (a hash of its text). */
uint64_t transitions_data_seed(const struct op_args *a);

/* Transition i's arguments as they are enumerated. */
void transition_expand(const struct transitions *tt, size_t i, struct op_args *a);

/* Transition i's arguments; an O_APPEND write is placed as a drawn one is (op_place_append),
 * by the reference's tree at the state it leaves. Counted as a draw of its operation. */
void transition_args(const struct transitions *tt, size_t i, struct input *in, struct op_args *a);

/* The representatives of kind k ascending, each once: 0 for partition 0; for partition j > 0
 * of weight above 0 its lower bound, or with `boundary_pm1` the bound and one either side.
 * v holds 3 * METIS_MAX_PARTS. Returns how many. */
int kind_values(const struct metis_config *cfg, enum arg_kind k, uint64_t *v);

/* "pool 1 dir 2 files 1 xattr, partitions write_size=0,4 write_offset=0,4": the bounds of
 * the enumeration (the partitions of the kinds its operations use). */
void transitions_bounds(const struct input *in, char *buf, size_t len);
/* One line per operation with its count, for `metis check`. */
void transitions_describe(const struct transitions *tt, FILE *f);

#endif
