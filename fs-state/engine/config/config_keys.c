/* The config key table: every key's section, kind, range and default, the bits' and choices' items, and `metis config-keys`. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "engine/config/config_keys.h"

/* ------------------------------------------------------------------ tables */

const char *const arg_names[ARG_NKINDS] = {
    "write_size", "write_offset", "trunc_size", "falloc_offset", "falloc_len", "xattr_size",
    "copy_offset", "copy_len",
};
/* Kinds a config that does not give them takes from another (partitions and mode), so that
 * configs written before copy_range keep their sizing: copy_range reaches no further than a
 * write. */
const int arg_inherits[ARG_NKINDS] = {
    -1, -1, -1, -1, -1, -1, ARG_WRITE_OFFSET, ARG_WRITE_SIZE,
};

const char *const part_mode_names[3] = { "range", "boundary", "boundary_pm1" };
const char *const bitmap_names[BM_NKINDS] = { "open_flags", "mode" };
const char *const choice_names[CH_NKINDS] = { "falloc_mode", "mknod_type" };
/* The operation whose variants a choice draws among. */
const enum op_id choice_op[CH_NKINDS] = { OP_fallocate_file, OP_mknod };

/* Default weights of the variants drawn by a choice: fallocate's modes 0 and KEEP_SIZE (all it
 * drew before) keep 8 of 13; device nodes are off, since what opening one gives depends on the
 * mount (RefFS's FUSE mount is nodev, a kernel mount is not unless asked) and some hosts refuse
 * to make them at all. */
static const struct {
    const char *name;
    double weight;
} choice_defaults[] = {
    { "allocate", 4 }, { "keep_size", 4 }, { "punch_hole", 1 }, { "zero_range", 1 },
    { "zero_range_keep", 1 }, { "collapse", 1 }, { "insert", 1 },
    { "fifo", 1 }, { "socket", 1 }, { "chr", 0 }, { "blk", 0 },
};
/* O_WRONLY and O_RDWR are the two access-mode bits; neither set is O_RDONLY. */
static const struct bit_def open_flag_bits[] = {
    { "rdwr", O_RDWR, 0.5 },   { "excl", O_EXCL, 0.2 },     { "trunc", O_TRUNC, 0.2 },
    { "append", O_APPEND, 0.1 }, { "wronly", O_WRONLY, 0.0 }, { "nonblock", O_NONBLOCK, 0.0 },
    { "sync", O_SYNC, 0.0 },   { "noatime", O_NOATIME, 0.0 },
};
static const struct bit_def mode_bits[] = {
    { "suid", S_ISUID, 0.1 }, { "sgid", S_ISGID, 0.1 }, { "sticky", S_ISVTX, 0.1 },
    { "ur", S_IRUSR, 0.5 },   { "uw", S_IWUSR, 0.5 },   { "ux", S_IXUSR, 0.5 },
    { "gr", S_IRGRP, 0.5 },   { "gw", S_IWGRP, 0.5 },   { "gx", S_IXGRP, 0.5 },
    { "or", S_IROTH, 0.5 },   { "ow", S_IWOTH, 0.5 },   { "ox", S_IXOTH, 0.5 },
};
const struct bit_table bit_tables[BM_NKINDS] = {
    { open_flag_bits, sizeof open_flag_bits / sizeof open_flag_bits[0] },
    { mode_bits, sizeof mode_bits / sizeof mode_bits[0] },
};

const char *arg_kind_name(enum arg_kind k)
{
    return (unsigned)k < ARG_NKINDS ? arg_names[k] : "?";
}

const char *bitmap_kind_name(enum bitmap_kind k)
{
    return (unsigned)k < BM_NKINDS ? bitmap_names[k] : "?";
}

const char *choice_kind_name(enum choice_kind k)
{
    return (unsigned)k < CH_NKINDS ? choice_names[k] : "?";
}

int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------------- defaults */

void set_default_bits(struct bitmap *bm, enum bitmap_kind k)
{
    bm->nbits = bit_tables[k].n;
    for (int i = 0; i < bm->nbits; i++) {
        bm->value[i] = bit_tables[k].defs[i].value;
        bm->name[i] = bit_tables[k].defs[i].name;
        bm->prob[i] = bit_tables[k].defs[i].prob;
    }
}

static double choice_default_weight(const char *name)
{
    for (size_t i = 0; i < sizeof choice_defaults / sizeof choice_defaults[0]; i++)
        if (strcmp(choice_defaults[i].name, name) == 0)
            return choice_defaults[i].weight;
    return 0;
}

/* A choice's items are its operation's variants, in their order. */
void set_default_choice(struct choice *c, enum choice_kind k)
{
    c->n = 0;
    for (int v = 0; v < op_variant_count() && c->n < METIS_MAX_CHOICES; v++)
        if (op_variant_op(v) == choice_op[k]) {
            c->variant[c->n] = v;
            c->weight[c->n++] = choice_default_weight(op_variant_name(v));
        }
}

/* ------------------------------------------------------------- key table */

#define ALL_TYPES 7u
#define RANGE(lo, hi) .min = lo, .max = hi
/* Min above max: the key is no number, or any value of its kind goes. */
#define NO_RANGE .min = 1, .max = 0
/* The range last: expanded, it is two designators. */
#define KEY(sec, type, n, k, d, ...)                                                             \
    { .section = sec, .name = #n, .kind = k, .off = offsetof(type, n),                          \
      .len = sizeof(((type *)0)->n), .dflt = d, __VA_ARGS__ }
#define RUNK(n, k, range, d) KEY("run", struct run_config, n, k, d, range)
#define POOLK(n, k, range, d) KEY("pool", struct pool_config, n, k, d, range)
#define VARYK(n, k, range, d) KEY("vary", struct vary_config, n, k, d, range)
#define FSK(n, k, range, ty, d)                                                                  \
    { .section = "fs", .name = #n, .kind = k, .off = offsetof(struct fs_config, n),              \
      .len = sizeof(((struct fs_config *)0)->n), range, .types = ty, .dflt = d }

static const struct config_key run_keys[] = {
    RUNK(seed, CK_U64, NO_RANGE, "1"),
    RUNK(max_depth, CK_LONG, RANGE(1, 1e8), "10000"),
    RUNK(ops, CK_U64, NO_RANGE, "0"),
    RUNK(seconds, CK_DOUBLE, RANGE(0, 1e9), "0"),
    RUNK(hash, CK_STR, NO_RANGE, "md5"),
    RUNK(keep_going, CK_BOOL, NO_RANGE, "0"),
    RUNK(compare_mtime, CK_BOOL, NO_RANGE, "0"),
    RUNK(out, CK_STR, NO_RANGE, ""),
    RUNK(ring, CK_INT, RANGE(1, 1e6), "10"),
    RUNK(hashtable_log2, CK_INT, RANGE(10, 32), "22"),
    RUNK(shrink_seconds, CK_DOUBLE, RANGE(0, 1e6), "60"),
    RUNK(shrink_max_seconds, CK_DOUBLE, RANGE(0, 1e6), "300"),
    RUNK(max_searches, CK_LONG, RANGE(0, 1e9), "0"),
    RUNK(crash, CK_STR, NO_RANGE, "off"),
    RUNK(crash_test_skip, CK_STR, NO_RANGE, ""),
    RUNK(crash_states, CK_STR, NO_RANGE, "copy"),
    RUNK(crash_states_max, CK_LONG, RANGE(1, 1e6), "64"),
    RUNK(crash_test_lie, CK_INT, RANGE(0, 2), "0"),
    RUNK(remount_test_lose, CK_SIZE, NO_RANGE, "0"),
    RUNK(faults, CK_DOUBLE, RANGE(0, 1), "0"),
    RUNK(fault_kinds, CK_STR, NO_RANGE, "eio_write,eio_read,lost_write"),
    RUNK(fault_test_silent, CK_STR, NO_RANGE, ""),
    RUNK(equalize_limit, CK_SIZE, NO_RANGE, "1G"),
    RUNK(max_memory, CK_SIZE, NO_RANGE, "0"),
    RUNK(search, CK_STR, NO_RANGE, "dfs"),
    RUNK(symmetry, CK_STR, NO_RANGE, "off"),
    RUNK(walk_max, CK_LONG, RANGE(1, 1e8), "3000"),
    RUNK(dive, CK_LONG, RANGE(0, 1e8), "0"),
    RUNK(revisits, CK_INT, RANGE(0, 1000), "0"),
    RUNK(search_ops, CK_U64, NO_RANGE, "0"),
    RUNK(together, CK_DOUBLE, RANGE(0, 1), "0"),
    RUNK(together_max, CK_INT, RANGE(2, 4), "2"),
    RUNK(together_tries, CK_INT, RANGE(1, 1000), "1"),
};

/* No default of their own: type and fstype and mount_cmd are required where they apply,
 * exclude follows fstype (fsinfo.c); a reffs size is REFFS_DEFAULT_SIZE (finish_fs). */
const struct config_key fs_keys[FSK_COUNT] = {
    [FSK_TYPE] = FSK(type, CK_FS_TYPE, NO_RANGE, ALL_TYPES, NULL),
    [FSK_FSTYPE] = FSK(fstype, CK_STR, NO_RANGE, T(FS_KERNEL) | T(FS_FUSE), NULL),
    [FSK_SIZE] = FSK(size, CK_SIZE, NO_RANGE, ALL_TYPES, "0"),
    [FSK_MKFS_OPTS] = FSK(mkfs_opts, CK_STR, NO_RANGE, T(FS_KERNEL) | T(FS_FUSE), ""),
    [FSK_MOUNT_OPTS] = FSK(mount_opts, CK_STR, NO_RANGE, T(FS_KERNEL), ""),
    [FSK_MOUNT_CMD] = FSK(mount_cmd, CK_STR, NO_RANGE, T(FS_FUSE), NULL),
    [FSK_UNSUPPORTED] = FSK(unsupported, CK_STR, NO_RANGE, ALL_TYPES, ""),
    [FSK_UNMOUNT_CMD] = { .section = "fs", .name = "unmount_cmd", .kind = CK_STR,
                          .off = offsetof(struct fs_config, unmount_cmd),
                          .len = sizeof(((struct fs_config *)0)->unmount_cmd), NO_RANGE,
                          .types = T(FS_FUSE), .dflt = "fusermount3 -u {mnt}",
                          .default_by_type = true },
    [FSK_REFFS_OPTS] = FSK(reffs_opts, CK_STR, NO_RANGE, T(FS_REFFS), ""),
    [FSK_EXCLUDE] = FSK(exclude, CK_STR, NO_RANGE, ALL_TYPES, NULL),
    [FSK_IGNORE] = FSK(ignore, CK_STR, NO_RANGE, ALL_TYPES, ""),
    [FSK_REMOUNT] = FSK(remount, CK_BOOL, NO_RANGE, ALL_TYPES, "1"),
    [FSK_OP_TIMEOUT] = FSK(op_timeout, CK_DOUBLE, RANGE(0.001, 86400), ALL_TYPES, "10"),
    [FSK_ERRNO_EQUIV] = FSK(errno_equiv, CK_STR, NO_RANGE, ALL_TYPES, ""),
    [FSK_READBACK] = FSK(readback, CK_STR, NO_RANGE, T(FS_REFFS) | T(FS_FUSE), "auto"),
    [FSK_READBACK_CHECK] = FSK(readback_check, CK_INT, RANGE(0, 1e9), T(FS_REFFS) | T(FS_FUSE), "64"),
    [FSK_CRASH] = FSK(crash, CK_BOOL, NO_RANGE, T(FS_KERNEL) | T(FS_FUSE), "1"),
    [FSK_RESTORE] = FSK(restore, CK_STR, NO_RANGE, T(FS_FUSE), "auto"),
    [FSK_LACKS] = FSK(lacks, CK_STR, NO_RANGE, ALL_TYPES, ""),
    /* Kernel file systems without a device only, so far (finish_devless). */
    [FSK_INODES] = FSK(inodes, CK_U64, NO_RANGE, T(FS_KERNEL) | T(FS_FUSE), "0"),
    [FSK_POPULATE_LOWER] = FSK(populate_lower, CK_BOOL, NO_RANGE, T(FS_KERNEL), "0"),
    /* A {dir}-backed fuse fs only (check_placeholders). */
    [FSK_POPULATE_DIR] = FSK(populate_dir, CK_STR, NO_RANGE, T(FS_FUSE), ""),
    /* A fs with an image kept mounted (remount 0) only: a kernel fs with a device, a fuse fs
     * with a size (fs-state/backend/README.md). */
    [FSK_REMOUNT_EVERY] = FSK(remount_every, CK_INT, RANGE(0, 1e9), T(FS_KERNEL) | T(FS_FUSE),
                              "16"),
    /* Kernel file systems on a device only (fault_kinds.c). */
    [FSK_FAULTS] = FSK(faults, CK_BOOL, NO_RANGE, T(FS_KERNEL) | T(FS_FUSE), "1"),
};

static const struct config_key pool_keys[] = {
    POOLK(dirs, CK_INT, RANGE(0, 64), "2"),
    POOLK(files, CK_INT, RANGE(1, 64), "2"),
    POOLK(depth, CK_INT, RANGE(0, 16), "1"),
    POOLK(name_len, CK_INT, RANGE(0, 255), "0"),
    POOLK(xattr_names, CK_INT, RANGE(0, 64), "2"),
    POOLK(uids, CK_IDS, RANGE(0, UINT32_MAX - 1), "0 1000"),
    POOLK(gids, CK_IDS, RANGE(0, UINT32_MAX - 1), "0 1000"),
    POOLK(prepopulate, CK_DOUBLE, RANGE(0, 1), "0"),
    POOLK(existing, CK_DOUBLE, RANGE(0, 1), "0.6"),
};

/* Every operation of METIS_OPS is a key named after it. mtimes are out of the state unless
 * compare_mtime asks (tree/line.c says why): without it utimes changes nothing a run compares. */
static const struct config_key ops_keys[OP_COUNT] = {
#define OP_KEY(n) [OP_##n] = { .section = "ops", .name = #n, .kind = CK_WEIGHT,               \
                               RANGE(0, 1000), .which = OP_##n,                                   \
                               .dflt = OP_##n == OP_utimes ? "0" : "1" },
    METIS_OPS(OP_KEY)
#undef OP_KEY
};

/* Each kind's partitions and the largest lower bound it may use: one write stays below 2 GiB,
 * an xattr value at or below 64 KiB. By default writes and fallocate stay below 8 KiB,
 * truncate below 16 KiB, xattr values below 256 bytes (ext4 with 1 KiB blocks holds little
 * xattr data); the copy kinds have none of their own (arg_inherits). */
#define PARTS(n, k, top, d, mode_d)                                                              \
    { .section = "sizes", .name = #n, .kind = CK_PARTS, RANGE(0, top), .which = k,       \
      .dflt = d },                                                                             \
    { .section = "sizes", .name = #n "_mode", .kind = CK_PART_MODE, NO_RANGE,             \
      .which = k, .dflt = mode_d }
#define END_BOUNDARY(n, k)                                                                       \
    { .section = "sizes", .name = #n, .kind = CK_DOUBLE,                                       \
      .off = offsetof(struct metis_config, end_boundary[k]), .len = sizeof(double),          \
      RANGE(0, 1), .dflt = "0.1" }
static const struct config_key sizes_keys[] = {
    PARTS(write_size, ARG_WRITE_SIZE, 0x1p30, "uniform:13", "range"),
    PARTS(write_offset, ARG_WRITE_OFFSET, 0x1p61, "uniform:13", "range"),
    PARTS(trunc_size, ARG_TRUNC_SIZE, 0x1p61, "uniform:14", "range"),
    PARTS(falloc_offset, ARG_FALLOC_OFFSET, 0x1p61, "uniform:13", "range"),
    PARTS(falloc_len, ARG_FALLOC_LEN, 0x1p61, "uniform:13", "range"),
    PARTS(xattr_size, ARG_XATTR_SIZE, 0x1p15, "uniform:8", "range"),
    PARTS(copy_offset, ARG_COPY_OFFSET, 0x1p61, NULL, NULL),
    PARTS(copy_len, ARG_COPY_LEN, 0x1p30, NULL, NULL),
    { .section = "sizes", .name = "falloc_align", .kind = CK_ALIGN, RANGE(1, MiB),
      .dflt = "4096:0.5" },
    END_BOUNDARY(write_end_boundary, ARG_WRITE_OFFSET),
    END_BOUNDARY(falloc_end_boundary, ARG_FALLOC_OFFSET),
};

/* The bits' and choices' defaults are their items' (bit_tables, choice_defaults). */
static const struct config_key bits_keys[] = {
    { .section = "bits", .name = "open_flags", .kind = CK_BITS, NO_RANGE, .which = BM_OPEN_FLAGS },
    { .section = "bits", .name = "mode", .kind = CK_BITS, NO_RANGE, .which = BM_MODE },
    { .section = "bits", .name = "falloc_mode", .kind = CK_CHOICE, NO_RANGE,
      .which = CH_FALLOC_MODE },
    { .section = "bits", .name = "mknod_type", .kind = CK_CHOICE, NO_RANGE,
      .which = CH_MKNOD_TYPE },
};

static const struct config_key vary_keys[] = {
    VARYK(long_names, CK_DOUBLE, RANGE(0, 1), "0"),
    VARYK(fill, CK_DOUBLE, RANGE(0, 1), "0"),
    VARYK(bytes_left, CK_SIZE, NO_RANGE, "8200"),
    VARYK(fill_inodes, CK_DOUBLE, RANGE(0, 1), "0"),
    VARYK(inodes_left, CK_U64, NO_RANGE, "8"),
    VARYK(mtime, CK_DOUBLE, RANGE(0, 1), "0"),
};

/* The sections, in the order of the docs. */
const struct section_keys sections[] = {
    { "run", SEC_RUN, run_keys, NKEYS(run_keys) },
    { "fs", SEC_FS, fs_keys, NKEYS(fs_keys) },
    { "pool", SEC_POOL, pool_keys, NKEYS(pool_keys) },
    { "ops", SEC_OPS, ops_keys, NKEYS(ops_keys) },
    { "sizes", SEC_SIZES, sizes_keys, NKEYS(sizes_keys) },
    { "bits", SEC_BITS, bits_keys, NKEYS(bits_keys) },
    { "vary", SEC_VARY, vary_keys, NKEYS(vary_keys) },
};

const int nsections = NKEYS(sections);

const struct section_keys *section_of(enum section sec)
{
    for (int i = 0; i < NKEYS(sections); i++)
        if (sections[i].sec == sec)
            return &sections[i];
    return NULL;
}

const struct config_key *find_key(enum section sec, const char *name)
{
    const struct section_keys *s = section_of(sec);
    for (int i = 0; s && i < s->n; i++)
        if (strcmp(s->keys[i].name, name) == 0)
            return &s->keys[i];
    return NULL;
}

int config_key_count(void)
{
    int n = 0;
    for (int i = 0; i < NKEYS(sections); i++)
        n += sections[i].n;
    return n;
}

const struct config_key *config_key_at(int i)
{
    for (int s = 0; s < NKEYS(sections) && i >= 0; i -= sections[s++].n)
        if (i < sections[s].n)
            return &sections[s].keys[i];
    return NULL;
}

/* The largest number of partitions a CK_PARTS key may use: its largest lower bound's, plus one. */
int max_parts(const struct config_key *k)
{
    return __builtin_ctzll((uint64_t)k->max) + 2;
}

static const char *const kind_names[] = {
    [CK_INT] = "integer", [CK_LONG] = "integer", [CK_U64] = "integer", [CK_DOUBLE] = "number",
    [CK_BOOL] = "boolean", [CK_STR] = "string", [CK_SIZE] = "size", [CK_IDS] = "ids",
    [CK_FS_TYPE] = "type", [CK_WEIGHT] = "weight", [CK_PARTS] = "partitions",
    [CK_PART_MODE] = "part_mode", [CK_ALIGN] = "unit:probability", [CK_BITS] = "bits",
    [CK_CHOICE] = "choice",
};

/* A bound as the docs write it: whole numbers in full. */
static void print_bound(FILE *f, double x)
{
    if (x == (double)(uint64_t)x)
        fprintf(f, "\t%llu", (unsigned long long)x);
    else
        fprintf(f, "\t%.15g", x);
}

/* The bits' and choices' items with their defaults. */
static void print_items(FILE *f)
{
    for (int k = 0; k < BM_NKINDS; k++)
        for (int i = 0; i < bit_tables[k].n; i++)
            fprintf(f, "item\tbits\t%s\t%s\t%g\n", bitmap_names[k], bit_tables[k].defs[i].name,
                    bit_tables[k].defs[i].prob);
    for (int k = 0; k < CH_NKINDS; k++)
        for (int v = 0; v < op_variant_count(); v++)
            if (op_variant_op(v) == choice_op[k])
                fprintf(f, "item\tbits\t%s\t%s\t%g\n", choice_names[k], op_variant_name(v),
                        choice_default_weight(op_variant_name(v)));
}

void config_keys_print(FILE *f)
{
    for (int i = 0; i < config_key_count(); i++) {
        const struct config_key *k = config_key_at(i);
        fprintf(f, "key\t%s\t%s\t%s", k->section, k->name, kind_names[k->kind]);
        if (k->min <= k->max) {
            print_bound(f, k->min);
            print_bound(f, k->max);
        } else {
            fputs("\t-\t-", f);
        }
        fprintf(f, "\t%s\n", k->dflt ? k->dflt : "-");
    }
    print_items(f);
}
