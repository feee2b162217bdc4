/* The config key table: the table config.c's loader and config_validate.c read, and the listing `metis config-keys` prints. */
#ifndef METIS_CONFIG_KEYS_H
#define METIS_CONFIG_KEYS_H

#include <stdio.h>
#include "engine/config/config_types.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define REFFS_DEFAULT_SIZE (256 * KiB)
#define T(t) (1u << (t))   /* a key's [fs] types bit */
#define NKEYS(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum section { SEC_NONE, SEC_RUN, SEC_FS, SEC_POOL, SEC_OPS, SEC_SIZES, SEC_BITS, SEC_VARY };

/* [fs NAME]'s keys, in the order of their FSK_ index (finish_fs looks them up by it). */
enum { FSK_TYPE, FSK_FSTYPE, FSK_SIZE, FSK_MKFS_OPTS, FSK_MOUNT_OPTS, FSK_MOUNT_CMD,
       FSK_UNSUPPORTED,
       FSK_UNMOUNT_CMD, FSK_REFFS_OPTS, FSK_EXCLUDE, FSK_IGNORE, FSK_REMOUNT, FSK_OP_TIMEOUT,
       FSK_ERRNO_EQUIV, FSK_READBACK, FSK_READBACK_CHECK, FSK_CRASH, FSK_RESTORE,
       FSK_LACKS, FSK_INODES, FSK_POPULATE_LOWER, FSK_POPULATE_DIR, FSK_REMOUNT_EVERY,
       FSK_FAULTS, FSK_COUNT };

struct bit_def {
    const char *name;
    unsigned value;
    double prob;
};

struct bit_table {
    const struct bit_def *defs;
    int n;
};

struct section_keys {
    const char *name;
    enum section sec;
    const struct config_key *keys;
    int n;
};

extern const struct section_keys sections[];
extern const struct config_key fs_keys[FSK_COUNT];
extern const int nsections;
extern const struct bit_table bit_tables[BM_NKINDS];
extern const char *const arg_names[ARG_NKINDS];
extern const int arg_inherits[ARG_NKINDS];
extern const char *const part_mode_names[3];
extern const char *const bitmap_names[BM_NKINDS];
extern const char *const choice_names[CH_NKINDS];
/* The operation whose variants a choice draws among. */
extern const enum op_id choice_op[CH_NKINDS];

const struct section_keys *section_of(enum section sec);
const struct config_key *find_key(enum section sec, const char *name);
/* The largest number of partitions a CK_PARTS key may use: its largest lower bound's, plus one. */
int max_parts(const struct config_key *k);
int name_index(const char *const *names, int n, const char *name);
void set_default_bits(struct bitmap *bm, enum bitmap_kind k);
/* A choice's items are its operation's variants, in their order. */
void set_default_choice(struct choice *c, enum choice_kind k);
/* "16 MiB", "4 KiB", "1000 bytes": a size as messages write it. */
const char *config_fmt_bytes(uint64_t b, char *buf, size_t len);

int config_key_count(void);
const struct config_key *config_key_at(int i);      /* NULL when out of range */
/* The key table, tab-separated: "key SECTION NAME KIND MIN MAX DEFAULT" per key ("-" for no
 * range or no default), then "item bits KEY NAME DEFAULT" per bit or choice item. */
void config_keys_print(FILE *f);

#endif
