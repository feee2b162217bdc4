/* Metis run configuration: the parsed INI file (libinih) every engine module reads. */
#ifndef METIS_CONFIG_H
#define METIS_CONFIG_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "engine/config/config_types.h"

/* The kind a [run] search value names, or -1. */
int search_kind_parse(const char *s);
/* 1 with [run] symmetry = names: a bounded search matches states up to renaming pool names. */
int run_symmetry_names(const struct run_config *r);
/* What a bounded verdict says of its states with it. */
#define SYMMETRY_STATES " up to renaming pool names of one kind"

/* Fills cfg with defaults, then the file. On error returns -1 with "file:line: message" in err. */
int config_load(const char *path, struct metis_config *cfg, char *err, size_t errlen);
/* Every key's default from the key table, and the bits' and choices' defaults. */
void config_defaults(struct metis_config *cfg);
/* Checks what the file alone cannot show (mkfs present, sizes, mount points free). */
int config_validate(const struct metis_config *cfg, char *err, size_t errlen);
/* 1 when fs failing with err where the reference failed with ref_err is allowed (errno_equiv). */
int fs_errno_equivalent(const struct fs_config *fs, int err, int ref_err);
const char *arg_kind_name(enum arg_kind k);
/* Largest value a kind's partitions can draw (2^k + 1 for its top weighted partition k). */
uint64_t config_part_high(const struct partitions *p);
/* The sizing rule's per-file bound: the largest extent (offset + size) one file can reach. */
uint64_t config_file_bound(const struct metis_config *cfg);
const char *bitmap_kind_name(enum bitmap_kind k);
const char *choice_kind_name(enum choice_kind k);
/* The furthest one file can reach by the config's enabled operations and sizes (the sizing
 * rule's per_file, configs/README.md); INSERT_RANGE is capped there (op_set_insert_cap). */
uint64_t config_file_extent(const struct metis_config *cfg);
/* The bytes of data the pool's files can hold at most: the sizing rule's left side. */
uint64_t config_pool_data(const struct metis_config *cfg);
/* The pool's names, directories and files: the inodes its entries can take at most. */
uint64_t config_pool_names(const struct metis_config *cfg);
/* 1 when fs lists a's operation or its variant (variant id v, or -1) in unsupported. */
int fs_unsupported(const struct fs_config *fs, enum op_id op, int v);

#endif
