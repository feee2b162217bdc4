/* Input driver: Metis's own seeded generator, the name pool and weighted input partitions. */
#ifndef METIS_INPUT_H
#define METIS_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include "engine/config/config.h"

/* xoshiro256** state: independent of libc rand(), which SPIN uses itself. */
struct rng { uint64_t s[4]; };
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
uint64_t rng_below(struct rng *r, uint64_t n);     /* uniform in [0, n) */
double rng_unit(struct rng *r);                    /* uniform in [0, 1) */

/* The bounded pool of names: directory paths (without the root) and file paths. */
struct name_pool {
    int ndirs, nfiles;
    char **dirs;                /* "/d0", "/d0/d1", ... */
    char **files;               /* "/f0", "/d0/f1", ... */
    int nxattrs;
    char **xattrs;              /* "user.x0", ... */
};

/* What the path, append and block-boundary draws did (coverage.txt, reach.txt, summary.json). */
struct draw_stats {
    uint64_t draws[OP_COUNT];         /* operations drawn */
    uint64_t existing[OP_COUNT];      /* ... whose first path came from the reference's tree */
    uint64_t existing_ok[OP_COUNT];   /* ... and succeeded on the reference */
    uint64_t appends;                 /* write_file with O_APPEND */
    uint64_t appends_in_place;        /* append bit drawn, but over the per-file bound or the
                                         size unknown: written in place instead */
    uint64_t ends[ARG_NKINDS][3];     /* offset kinds: ends put on 4096 k - 1, 4096 k, 4096 k + 1 */
    uint64_t ends_refused[ARG_NKINDS];/* a boundary end drawn that the bound did not allow */
};

/* How often each partition / bit was drawn: written to coverage.txt and summary.json. */
struct coverage {
    uint64_t part[ARG_NKINDS][METIS_MAX_PARTS];
    uint64_t part_boundary[ARG_NKINDS][METIS_MAX_PARTS][3];   /* 2^k-1, 2^k, 2^k+1 */
    uint64_t bit_set[BM_NKINDS][METIS_MAX_BITS];
    uint64_t bit_draws[BM_NKINDS];
    struct draw_stats paths;
    uint64_t chosen[CH_NKINDS][METIS_MAX_CHOICES];
};

struct tree_view;

struct input {
    struct rng rng;
    const struct metis_config *cfg;
    struct name_pool pool;
    struct coverage cov;
    const struct tree_view *view;    /* the reference's tree at the state drawn from; NULL: none */
    uint64_t file_bound;             /* the sizing rule's per-file bound (config_file_bound) */
    enum op_id last_op;              /* the last operation drawn, and whether its first path */
    int last_existing;               /* came from view (input_count_result) */
    char **pool_sorted;              /* the pool's names sorted, built by choose.c when needed */
};

int input_init(struct input *in, const struct metis_config *cfg, uint64_t seed);
void input_free(struct input *in);
uint64_t input_value(struct input *in, enum arg_kind k);    /* from the weighted partitions */
unsigned input_bitmap(struct input *in, enum bitmap_kind k); /* each bit by its probability */
int input_choice(struct input *in, enum choice_kind k);       /* a variant id, by its weight */
const char *input_dir(struct input *in);                     /* a pool directory, or "/" */
const char *input_file(struct input *in);
const char *input_any_path(struct input *in);                /* a file or directory path */
const char *input_xattr(struct input *in);
uint32_t input_uid(struct input *in);
uint32_t input_gid(struct input *in);
/* Counts the reference's outcome (its errno) of the operation drawn last. */
void input_count_result(struct input *in, int err);
void coverage_write_text(const struct input *in, FILE *f);
/* The path-draw section of coverage.txt alone (reach.txt repeats it). */
void coverage_write_paths(const struct input *in, FILE *f);
void coverage_write_json(const struct input *in, FILE *f);

#endif
