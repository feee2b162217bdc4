/* Metis run configuration: defaults, the INI loader (libinih) with file:line errors, and host checks. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <ini.h>
#include <openssl/evp.h>
#include "abstract.h"
#include "config.h"
#include "crashinfo.h"
#include "errnos.h"
#include "numbers.h"
#include "opnames.h"
#include "spawner.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)

/* ------------------------------------------------------------------ tables */

static const char *const arg_names[ARG_NKINDS] = {
    "write_size", "write_offset", "trunc_size", "falloc_offset", "falloc_len", "xattr_size",
    "copy_offset", "copy_len",
};
/* Partitions in use by default (write/falloc below 8 KiB, truncate below 16 KiB, xattr values
 * below 256 bytes since ext4 with 1 KiB blocks holds little xattr data) and the most a kind
 * may use: one write stays below 2 GiB, an xattr value at or below 64 KiB. */
static const int arg_default_parts[ARG_NKINDS] = { 14, 14, 15, 14, 14, 9, 14, 14 };
static const int arg_max_parts[ARG_NKINDS] = { 32, 63, 63, 63, 63, 17, 63, 32 };
/* Kinds a config that does not give them takes from another (partitions and mode), so that
 * configs written before copy_range keep their sizing: copy_range reaches no further than a
 * write. */
static const int arg_inherits[ARG_NKINDS] = {
    -1, -1, -1, -1, -1, -1, ARG_WRITE_OFFSET, ARG_WRITE_SIZE,
};

static const char *const part_mode_names[] = { "range", "boundary", "boundary_pm1" };
static const char *const bitmap_names[BM_NKINDS] = { "open_flags", "mode" };
static const char *const choice_names[CH_NKINDS] = { "falloc_mode", "mknod_type" };
/* The operation whose variants a choice draws among. */
static const enum op_id choice_op[CH_NKINDS] = { OP_fallocate_file, OP_mknod };

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
#define FALLOC_ALIGN_DEFAULT 4096
#define FALLOC_ALIGN_PROB_DEFAULT 0.5
struct bit_def {
    const char *name;
    unsigned value;
    double prob;
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
static const struct {
    const struct bit_def *defs;
    int n;
} bit_tables[BM_NKINDS] = {
    { open_flag_bits, sizeof open_flag_bits / sizeof open_flag_bits[0] },
    { mode_bits, sizeof mode_bits / sizeof mode_bits[0] },
};

#define REFFS_DEFAULT_SIZE (256 * KiB)

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

static int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------------- defaults */

static void set_default_bits(struct bitmap *bm, enum bitmap_kind k)
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
static void set_default_choice(struct choice *c, enum choice_kind k)
{
    c->n = 0;
    for (int v = 0; v < op_variant_count() && c->n < METIS_MAX_CHOICES; v++)
        if (op_variant_op(v) == choice_op[k]) {
            c->variant[c->n] = v;
            c->weight[c->n++] = choice_default_weight(op_variant_name(v));
        }
}

static void set_uniform_parts(struct partitions *p, int nparts)
{
    for (int i = 0; i < METIS_MAX_PARTS; i++)
        p->weight[i] = i < nparts ? 1.0 : 0.0;
    p->nparts = nparts;
}

void config_defaults(struct metis_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->run.seed = 1;
    cfg->run.max_depth = 10000;
    snprintf(cfg->run.hash, sizeof cfg->run.hash, "md5");
    cfg->run.ring = 10;
    cfg->run.hashtable_log2 = 22;
    cfg->run.shrink_seconds = 60;
    snprintf(cfg->run.crash, sizeof cfg->run.crash, "off");
    cfg->run.equalize_limit = 1024 * MiB;
    cfg->pool = (struct pool_config){
        .dirs = 2, .files = 2, .depth = 1, .xattr_names = 2,
        .nuids = 2, .ngids = 2, .uids = { 0, 1000 }, .gids = { 0, 1000 }, .existing = 0.6,
    };
    cfg->vary.bytes_left = 2 * 4096 + 8;
    cfg->vary.inodes_left = 8;
    cfg->end_boundary[ARG_WRITE_OFFSET] = cfg->end_boundary[ARG_FALLOC_OFFSET] = 0.1;
    for (int i = 0; i < OP_COUNT; i++)
        cfg->op_weight[i] = 1;
    /* mtimes are out of the state unless compare_mtime asks (abstract.c says why): without it
     * utimes changes nothing a run compares. */
    cfg->op_weight[OP_utimes] = 0;
    for (int k = 0; k < ARG_NKINDS; k++) {
        set_uniform_parts(&cfg->part[k], arg_default_parts[k]);
        cfg->part[k].mode = PART_RANGE;
    }
    for (int k = 0; k < BM_NKINDS; k++)
        set_default_bits(&cfg->bits[k], k);
    for (int k = 0; k < CH_NKINDS; k++)
        set_default_choice(&cfg->choice[k], k);
    cfg->falloc_align = FALLOC_ALIGN_DEFAULT;
    cfg->falloc_align_prob = FALLOC_ALIGN_PROB_DEFAULT;
}

static void fs_defaults(struct fs_config *fs, const char *name, int line)
{
    memset(fs, 0, sizeof *fs);
    snprintf(fs->name, sizeof fs->name, "%s", name);
    fs->line = line;
    fs->remount = 1;
    fs->op_timeout = 10.0;
    snprintf(fs->readback, sizeof fs->readback, "auto");
    fs->readback_check = 64;
    fs->crash = 1;
    snprintf(fs->restore, sizeof fs->restore, "auto");
}

/* ----------------------------------------------------------- parse state */

enum section { SEC_NONE, SEC_RUN, SEC_FS, SEC_POOL, SEC_OPS, SEC_SIZES, SEC_BITS, SEC_VARY };

enum field_kind { FK_INT, FK_LONG, FK_U64, FK_DOUBLE, FK_BOOL, FK_STR, FK_SIZE, FK_SPECIAL };

/* One key of [run], [pool] or [fs NAME]: where it lives and which values it takes. */
struct field {
    const char *name;
    enum field_kind kind;
    size_t off;
    size_t len;                 /* FK_STR: buffer size */
    double min, max;            /* inclusive range of numbers */
    unsigned types;             /* [fs]: bit (1 << fs_type) for each type the key applies to */
};

#define ALL_TYPES 7u
#define T(t) (1u << (t))
#define RUNF(n, k, lo, hi) { #n, k, offsetof(struct run_config, n), sizeof(((struct run_config *)0)->n), lo, hi, 0 }
#define POOLF(n, k, lo, hi) { #n, k, offsetof(struct pool_config, n), 0, lo, hi, 0 }
#define FSF(n, k, lo, hi, ty) { #n, k, offsetof(struct fs_config, n), sizeof(((struct fs_config *)0)->n), lo, hi, ty }

static const struct field run_fields[] = {
    RUNF(seed, FK_U64, 0, 0),          RUNF(max_depth, FK_LONG, 1, 1e8),
    RUNF(ops, FK_U64, 0, 0),           RUNF(seconds, FK_DOUBLE, 0, 1e9),
    RUNF(hash, FK_STR, 0, 0),          RUNF(keep_going, FK_BOOL, 0, 1),
    RUNF(compare_mtime, FK_BOOL, 0, 1),
    RUNF(out, FK_STR, 0, 0),           RUNF(ring, FK_INT, 1, 1e6),
    RUNF(hashtable_log2, FK_INT, 10, 32), RUNF(shrink_seconds, FK_DOUBLE, 0, 1e6),
    RUNF(max_searches, FK_LONG, 0, 1e9), RUNF(crash, FK_STR, 0, 0),
    RUNF(crash_test_skip, FK_STR, 0, 0),
    RUNF(equalize_limit, FK_SIZE, 0, 0),
};
static const struct field pool_fields[] = {
    POOLF(dirs, FK_INT, 0, 64),        POOLF(files, FK_INT, 1, 64),
    POOLF(depth, FK_INT, 0, 16),       POOLF(name_len, FK_INT, 0, 255),
    POOLF(xattr_names, FK_INT, 0, 64), POOLF(uids, FK_SPECIAL, 0, 0),
    POOLF(gids, FK_SPECIAL, 0, 0),     POOLF(prepopulate, FK_DOUBLE, 0, 1),
    POOLF(existing, FK_DOUBLE, 0, 1),
};
#define VARYF(n, k, lo, hi) { #n, k, offsetof(struct vary_config, n), 0, lo, hi, 0 }
static const struct field vary_fields[] = {
    VARYF(long_names, FK_DOUBLE, 0, 1), VARYF(fill, FK_DOUBLE, 0, 1),
    VARYF(bytes_left, FK_SIZE, 0, 0),   VARYF(fill_inodes, FK_DOUBLE, 0, 1),
    VARYF(inodes_left, FK_U64, 0, 0),
};
enum { FSK_TYPE, FSK_FSTYPE, FSK_SIZE, FSK_MKFS_OPTS, FSK_MOUNT_OPTS, FSK_MOUNT_CMD,
       FSK_UNSUPPORTED,
       FSK_UNMOUNT_CMD, FSK_REFFS_OPTS, FSK_EXCLUDE, FSK_IGNORE, FSK_REMOUNT, FSK_OP_TIMEOUT,
       FSK_ERRNO_EQUIV, FSK_READBACK, FSK_READBACK_CHECK, FSK_CRASH, FSK_RESTORE, FSK_COUNT };
static const struct field fs_fields[FSK_COUNT] = {
    FSF(type, FK_SPECIAL, 0, 0, ALL_TYPES),
    FSF(fstype, FK_STR, 0, 0, T(FS_KERNEL) | T(FS_FUSE)),
    FSF(size, FK_SIZE, 0, 0, ALL_TYPES),
    FSF(mkfs_opts, FK_STR, 0, 0, T(FS_KERNEL) | T(FS_FUSE)),
    FSF(mount_opts, FK_STR, 0, 0, T(FS_KERNEL)),
    FSF(mount_cmd, FK_STR, 0, 0, T(FS_FUSE)),
    FSF(unsupported, FK_STR, 0, 0, ALL_TYPES),
    FSF(unmount_cmd, FK_STR, 0, 0, T(FS_FUSE)),
    FSF(reffs_opts, FK_STR, 0, 0, T(FS_REFFS)),
    FSF(exclude, FK_STR, 0, 0, ALL_TYPES),
    FSF(ignore, FK_STR, 0, 0, ALL_TYPES),
    FSF(remount, FK_BOOL, 0, 1, ALL_TYPES),
    FSF(op_timeout, FK_DOUBLE, 0.001, 86400, ALL_TYPES),
    FSF(errno_equiv, FK_STR, 0, 0, ALL_TYPES),
    FSF(readback, FK_STR, 0, 0, T(FS_REFFS) | T(FS_FUSE)),
    FSF(readback_check, FK_INT, 0, 1e9, T(FS_REFFS) | T(FS_FUSE)),
    FSF(crash, FK_BOOL, 0, 1, T(FS_KERNEL) | T(FS_FUSE)),
    FSF(restore, FK_STR, 0, 0, T(FS_FUSE)),
};
#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

struct parse_state {
    struct metis_config *cfg;
    const char *path;
    int line;                   /* line the reader handed to inih last */
    enum section sec;
    int fs;                     /* index of the current [fs NAME] */
    int fs_key_line[METIS_MAX_FS][FSK_COUNT];
    int ops_line, pool_line, pool_key_line;
    bool part_given[ARG_NKINDS], mode_given[ARG_NKINDS];   /* [sizes] keys seen */
    int err_line;               /* line of the first problem, 0 if none yet */
    bool failed;
    char msg[512];
    FILE *f;
    char *buf;
    size_t cap;
};

static void fail(struct parse_state *st, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keeps only the first problem: later ones are often its consequences. */
static void fail(struct parse_state *st, int line, const char *fmt, ...)
{
    if (st->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->failed = true;
    st->err_line = line;
}

/* ------------------------------------------------------------ value parsing */

static bool parse_double(const char *s, double *v)
{
    if (!isdigit((unsigned char)s[0]) && s[0] != '.')
        return false;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || *end || !isfinite(x))
        return false;
    *v = x;
    return true;
}

static bool parse_bool(const char *s, int *v)
{
    static const char *const yes[] = { "1", "yes", "true", "on" };
    static const char *const no[] = { "0", "no", "false", "off" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *v = 1, true;
        if (strcasecmp(s, no[i]) == 0)
            return *v = 0, true;
    }
    return false;
}

/* Bytes with an optional binary suffix: 256K, 16M, 1G, 16MiB. */
static bool parse_size(const char *s, uint64_t *v)
{
    if (!isdigit((unsigned char)s[0]))
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return false;
    int shift = 0;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        shift = 10 * (int)(u - units + 1);
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    }
    if (*end || (shift && x > (UINT64_MAX >> shift)))
        return false;
    *v = (uint64_t)x << shift;
    return true;
}

static const char *fmt_bytes(uint64_t b, char *buf, size_t len)
{
    if (b >= MiB && b % MiB == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(b / MiB));
    else if (b >= KiB && b % KiB == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(b / KiB));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)b);
    return buf;
}

static bool number_in_range(struct parse_state *st, const struct field *f, const char *value,
                            double *x)
{
    bool ok = f->kind == FK_DOUBLE ? parse_double(value, x) : false;
    if (f->kind != FK_DOUBLE) {
        uint64_t u;
        ok = parse_decimal_u64(value, &u) == 0;
        *x = (double)u;
    }
    if (!ok) {
        fail(st, st->line, "%s: '%s' is not a non-negative %s", f->name, value,
             f->kind == FK_DOUBLE ? "number" : "integer");
        return false;
    }
    if (*x < f->min || *x > f->max) {
        if (f->kind == FK_DOUBLE)
            fail(st, st->line, "%s: %s is out of range (%g..%g)", f->name, value, f->min, f->max);
        else
            fail(st, st->line, "%s: %s is out of range (%.0f..%.0f)", f->name, value, f->min,
                 f->max);
        return false;
    }
    return true;
}

static void set_string(struct parse_state *st, const struct field *f, char *dst,
                       const char *value)
{
    if (strlen(value) >= f->len)
        fail(st, st->line, "%s: value too long (at most %zu characters)", f->name, f->len - 1);
    else
        memcpy(dst, value, strlen(value) + 1);
}

/* Stores value into the field of struct base described by f. */
static void set_field(struct parse_state *st, const struct field *f, void *base,
                      const char *value)
{
    char *p = (char *)base + f->off;
    double x;
    uint64_t u;
    int b;
    switch (f->kind) {
    case FK_INT:
        if (number_in_range(st, f, value, &x))
            *(int *)p = (int)x;
        break;
    case FK_LONG:
        if (number_in_range(st, f, value, &x))
            *(long *)p = (long)x;
        break;
    case FK_DOUBLE:
        if (number_in_range(st, f, value, &x))
            *(double *)p = x;
        break;
    case FK_U64:
        if (parse_decimal_u64(value, &u) == 0)
            *(uint64_t *)p = u;
        else
            fail(st, st->line, "%s: '%s' is not a non-negative integer", f->name, value);
        break;
    case FK_SIZE:
        if (parse_size(value, &u))
            *(uint64_t *)p = u;
        else
            fail(st, st->line, "%s: '%s' is not a size (bytes, or a number with K, M, G or T)",
                 f->name, value);
        break;
    case FK_BOOL:
        if (parse_bool(value, &b))
            *(int *)p = b;
        else
            fail(st, st->line, "%s: '%s' is not a boolean (1/0, yes/no, true/false, on/off)",
                 f->name, value);
        break;
    case FK_STR:
        set_string(st, f, p, value);
        break;
    case FK_SPECIAL:
        break;
    }
}

static const struct field *find_field(const struct field *fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

/* Splits a list at blanks and commas; calls fn on each item until it returns false. */
static bool for_each_item(struct parse_state *st, const char *key, const char *value,
                          bool (*fn)(struct parse_state *, const char *, const char *, void *),
                          void *arg)
{
    char copy[1024];
    if (strlen(value) >= sizeof copy) {
        fail(st, st->line, "%s: value too long", key);
        return false;
    }
    snprintf(copy, sizeof copy, "%s", value);
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save))
        if (!fn(st, key, tok, arg))
            return false;
    return true;
}

/* ------------------------------------------------------------------ [run] */

static void run_key(struct parse_state *st, const char *name, const char *value)
{
    struct run_config *run = &st->cfg->run;
    const struct field *f = find_field(run_fields, NFIELDS(run_fields), name);
    if (!f) {
        fail(st, st->line, "[run]: unknown key '%s'", name);
        return;
    }
    set_field(st, f, run, value);
    if (st->failed)
        return;
    if (strcmp(name, "hash") == 0 && !EVP_get_digestbyname(value))
        fail(st, st->line, "hash: '%s' is not a digest OpenSSL knows (e.g. md5, sha1, sha256)",
             value);
    if (strcmp(name, "out") == 0)
        run->out_line = st->line;
    if (strcmp(name, "crash") == 0 && crash_mode_parse(value) < 0)
        fail(st, st->line, "crash: '%s' is not off, fsync, syncfs or any", value);
    if (strcmp(name, "crash_test_skip") == 0 && value[0] && op_lookup(value) < 0)
        fail(st, st->line, "crash_test_skip: '%s' is not an operation", value);
}

/* ----------------------------------------------------------------- [pool] */

struct id_list {
    uint32_t *ids;
    int *n;
};

static bool add_id(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct id_list *l = arg;
    uint64_t v;
    if (parse_decimal_u64(tok, &v) < 0 || v >= UINT32_MAX) {
        fail(st, st->line, "%s: '%s' is not an id (0..%u)", key, tok, UINT32_MAX - 1);
        return false;
    }
    if (*l->n >= 8) {
        fail(st, st->line, "%s: more than 8 ids", key);
        return false;
    }
    l->ids[(*l->n)++] = (uint32_t)v;
    return true;
}

static void parse_ids(struct parse_state *st, const char *key, const char *value,
                      uint32_t *ids, int *n)
{
    int count = 0;
    uint32_t tmp[8];
    struct id_list l = { tmp, &count };
    if (!for_each_item(st, key, value, add_id, &l))
        return;
    if (count == 0) {
        fail(st, st->line, "%s: needs at least one id", key);
        return;
    }
    memcpy(ids, tmp, sizeof tmp);
    *n = count;
}

static void pool_key(struct parse_state *st, const char *name, const char *value)
{
    struct pool_config *pool = &st->cfg->pool;
    const struct field *f = find_field(pool_fields, NFIELDS(pool_fields), name);
    if (!f) {
        fail(st, st->line, "[pool]: unknown key '%s'", name);
        return;
    }
    st->pool_key_line = st->line;
    if (strcmp(name, "uids") == 0)
        parse_ids(st, name, value, pool->uids, &pool->nuids);
    else if (strcmp(name, "gids") == 0)
        parse_ids(st, name, value, pool->gids, &pool->ngids);
    else
        set_field(st, f, pool, value);
}

/* ----------------------------------------------------------------- [vary] */

static void vary_key(struct parse_state *st, const char *name, const char *value)
{
    struct vary_config *v = &st->cfg->vary;
    const struct field *f = find_field(vary_fields, NFIELDS(vary_fields), name);
    if (!f) {
        fail(st, st->line, "[vary]: unknown key '%s'", name);
        return;
    }
    set_field(st, f, v, value);
    if (strcmp(name, "fill") == 0 || strcmp(name, "fill_inodes") == 0)
        v->fill_line = st->line;
}

/* ------------------------------------------------------------------ [ops] */

static void ops_key(struct parse_state *st, const char *name, const char *value)
{
    int op = op_lookup(name);
    if (op < 0) {
        fail(st, st->line, "[ops]: unknown operation '%s'", name);
        return;
    }
    uint64_t w;
    if (parse_decimal_u64(value, &w) < 0)
        fail(st, st->line, "%s: weight '%s' is not a non-negative integer", name, value);
    else if (w > 1000)
        fail(st, st->line, "%s: weight %s is out of range (0..1000)", name, value);
    else
        st->cfg->op_weight[op] = (int)w;
}

/* ---------------------------------------------------------------- [sizes] */

struct part_parse {
    enum arg_kind kind;
    double weight[METIS_MAX_PARTS];
    bool seen[METIS_MAX_PARTS];
    int nparts;
};

/* Partition of lower bound lb: 0 for the value 0, k+1 for [2^k, 2^(k+1)); -1 if lb is neither. */
static int part_of_bound(uint64_t lb)
{
    if (lb == 0)
        return 0;
    if (lb & (lb - 1))
        return -1;
    return __builtin_ctzll(lb) + 1;
}

static bool add_part(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct part_parse *pp = arg;
    char bound[64];
    const char *colon = strchr(tok, ':');
    double w;
    uint64_t lb;
    if (!colon || (size_t)(colon - tok) >= sizeof bound) {
        fail(st, st->line, "%s: '%s' is not BOUND:WEIGHT", key, tok);
        return false;
    }
    snprintf(bound, sizeof bound, "%.*s", (int)(colon - tok), tok);
    int part = parse_decimal_u64(bound, &lb) == 0 ? part_of_bound(lb) : -1;
    if (part < 0) {
        fail(st, st->line, "%s: lower bound '%s' is neither 0 nor a power of two", key, bound);
        return false;
    }
    int max = arg_max_parts[pp->kind];
    if (part >= max) {
        fail(st, st->line, "%s: lower bound %s is beyond the largest allowed (%llu)", key, bound,
             1ULL << (max - 2));
        return false;
    }
    if (pp->seen[part]) {
        fail(st, st->line, "%s: lower bound %s given twice", key, bound);
        return false;
    }
    if (!parse_double(colon + 1, &w)) {
        fail(st, st->line, "%s: weight '%s' is not a non-negative number", key, colon + 1);
        return false;
    }
    pp->seen[part] = true;
    pp->weight[part] = w;
    if (part >= pp->nparts)
        pp->nparts = part + 1;
    return true;
}

/* "uniform:N": partitions 0..N (the value 0 up to [2^(N-1), 2^N)), all weight 1. */
static bool parse_uniform(struct parse_state *st, const char *key, const char *n,
                          struct part_parse *pp)
{
    uint64_t v;
    int max = arg_max_parts[pp->kind];
    if (parse_decimal_u64(n, &v) < 0 || v >= (uint64_t)max) {
        fail(st, st->line, "%s: uniform:%s: N must be an integer 0..%d", key, n, max - 1);
        return false;
    }
    for (uint64_t i = 0; i <= v; i++)
        pp->weight[i] = 1.0;
    pp->nparts = (int)v + 1;
    return true;
}

static void parts_key(struct parse_state *st, enum arg_kind k, const char *name,
                      const char *value)
{
    struct part_parse pp = { .kind = k };
    bool ok;
    if (strncmp(value, "uniform:", 8) == 0)
        ok = parse_uniform(st, name, value + 8, &pp);
    else
        ok = for_each_item(st, name, value, add_part, &pp);
    if (!ok)
        return;
    double sum = 0;
    for (int i = 0; i < pp.nparts; i++)
        sum += pp.weight[i];
    if (sum <= 0) {
        fail(st, st->line, "%s: %s", name,
             pp.nparts ? "every weight is 0" : "no partitions (expected BOUND:WEIGHT ...)");
        return;
    }
    struct partitions *p = &st->cfg->part[k];
    memcpy(p->weight, pp.weight, sizeof p->weight);
    p->nparts = pp.nparts;
}

/* write_end_boundary / falloc_end_boundary: the share of draws whose end goes on a block
 * boundary, kept with the offset kind it moves. */
static bool end_boundary_key(struct parse_state *st, const char *name, const char *value)
{
    static const struct field f = { "end_boundary", FK_DOUBLE, 0, 0, 0, 1, 0 };
    int k = !strcmp(name, "write_end_boundary") ? ARG_WRITE_OFFSET
          : !strcmp(name, "falloc_end_boundary") ? ARG_FALLOC_OFFSET : -1;
    double x;
    if (k < 0)
        return false;
    struct field named = f;
    named.name = name;
    if (number_in_range(st, &named, value, &x))
        st->cfg->end_boundary[k] = x;
    return true;
}

/* "falloc_align = UNIT:PROBABILITY": how often the new fallocate modes draw a range aligned to
 * UNIT (a power of two, 1 .. 1 MiB; collapse and insert need block-aligned ranges). */
static void falloc_align_key(struct parse_state *st, const char *value)
{
    char unit[32];
    const char *colon = strchr(value, ':');
    uint64_t u;
    double p;
    if (!colon || (size_t)(colon - value) >= sizeof unit) {
        fail(st, st->line, "falloc_align: '%s' is not UNIT:PROBABILITY (e.g. 4096:0.5)", value);
        return;
    }
    snprintf(unit, sizeof unit, "%.*s", (int)(colon - value), value);
    if (!parse_size(unit, &u) || u == 0 || (u & (u - 1)) || u > MiB)
        fail(st, st->line, "falloc_align: unit '%s' is not a power of two 1 .. 1M", unit);
    else if (!parse_double(colon + 1, &p) || p > 1)
        fail(st, st->line, "falloc_align: probability '%s' is not a number 0..1", colon + 1);
    else {
        st->cfg->falloc_align = u;
        st->cfg->falloc_align_prob = p;
    }
}

static void sizes_key(struct parse_state *st, const char *name, const char *value)
{
    char kind[64];
    if (end_boundary_key(st, name, value))
        return;
    size_t len = strlen(name);
    bool is_mode = len > 5 && strcmp(name + len - 5, "_mode") == 0;
    snprintf(kind, sizeof kind, "%.*s", (int)(is_mode ? len - 5 : len), name);
    if (strcmp(name, "falloc_align") == 0) {
        falloc_align_key(st, value);
        return;
    }
    int k = name_index(arg_names, ARG_NKINDS, kind);
    if (k < 0) {
        fail(st, st->line, "[sizes]: unknown key '%s'", name);
        return;
    }
    if (!is_mode) {
        parts_key(st, k, name, value);
        st->part_given[k] = true;
        return;
    }
    st->mode_given[k] = true;
    int m = name_index(part_mode_names, 3, value);
    if (m < 0)
        fail(st, st->line, "%s: '%s' is not range, boundary or boundary_pm1", name, value);
    else
        st->cfg->part[k].mode = m;
}

/* ----------------------------------------------------------------- [bits] */

struct bits_parse {
    enum bitmap_kind kind;
    double prob[METIS_MAX_BITS];
    bool seen[METIS_MAX_BITS];
};

static int bit_index(enum bitmap_kind k, const char *name)
{
    for (int i = 0; i < bit_tables[k].n; i++)
        if (strcmp(bit_tables[k].defs[i].name, name) == 0)
            return i;
    return -1;
}

static bool add_bit(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct bits_parse *bp = arg;
    char name[32];
    const char *colon = strchr(tok, ':');
    double p;
    if (!colon || (size_t)(colon - tok) >= sizeof name) {
        fail(st, st->line, "%s: '%s' is not NAME:PROBABILITY", key, tok);
        return false;
    }
    snprintf(name, sizeof name, "%.*s", (int)(colon - tok), tok);
    int i = bit_index(bp->kind, name);
    if (i < 0) {
        fail(st, st->line, "%s: unknown bit '%s'", key, name);
        return false;
    }
    if (bp->seen[i]) {
        fail(st, st->line, "%s: bit '%s' given twice", key, name);
        return false;
    }
    if (!parse_double(colon + 1, &p) || p > 1) {
        fail(st, st->line, "%s: probability '%s' of %s is not a number 0..1", key, colon + 1,
             name);
        return false;
    }
    bp->seen[i] = true;
    bp->prob[i] = p;
    return true;
}

/* ---------------------------------------------------------------- choices */

struct choice_parse {
    enum choice_kind kind;
    struct choice c;            /* weights of the items given; the rest 0 */
    bool seen[METIS_MAX_CHOICES];
};

static int choice_item(const struct choice *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(op_variant_name(c->variant[i]), name) == 0)
            return i;
    return -1;
}

static bool add_choice_item(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct choice_parse *cp = arg;
    char name[32];
    const char *colon = strchr(tok, ':');
    double w;
    if (!colon || (size_t)(colon - tok) >= sizeof name) {
        fail(st, st->line, "%s: '%s' is not NAME:WEIGHT", key, tok);
        return false;
    }
    snprintf(name, sizeof name, "%.*s", (int)(colon - tok), tok);
    int i = choice_item(&cp->c, name);
    if (i < 0) {
        fail(st, st->line, "%s: unknown item '%s'", key, name);
        return false;
    }
    if (cp->seen[i]) {
        fail(st, st->line, "%s: item '%s' given twice", key, name);
        return false;
    }
    if (!parse_double(colon + 1, &w)) {
        fail(st, st->line, "%s: weight '%s' of %s is not a non-negative number", key, colon + 1,
             name);
        return false;
    }
    cp->seen[i] = true;
    cp->c.weight[i] = w;
    return true;
}

/* Like a bitmap key: the items it does not list get weight 0; at least one must be above 0. */
static void choice_key(struct parse_state *st, enum choice_kind k, const char *name,
                       const char *value)
{
    struct choice_parse cp = { .kind = k };
    set_default_choice(&cp.c, k);
    for (int i = 0; i < cp.c.n; i++)
        cp.c.weight[i] = 0;
    if (!for_each_item(st, name, value, add_choice_item, &cp))
        return;
    double sum = 0;
    for (int i = 0; i < cp.c.n; i++)
        sum += cp.c.weight[i];
    if (sum <= 0)
        fail(st, st->line, "%s: every weight is 0 (give %s weight 0 in [ops] instead)", name,
             op_name(choice_op[k]));
    else
        st->cfg->choice[k] = cp.c;
}

static void bits_key(struct parse_state *st, const char *name, const char *value)
{
    int k = name_index(bitmap_names, BM_NKINDS, name);
    int ck = name_index(choice_names, CH_NKINDS, name);
    if (ck >= 0) {
        choice_key(st, ck, name, value);
        return;
    }
    if (k < 0) {
        fail(st, st->line, "[bits]: unknown key '%s'", name);
        return;
    }
    struct bits_parse bp = { .kind = k };
    if (!for_each_item(st, name, value, add_bit, &bp))
        return;
    if (k == BM_OPEN_FLAGS && bp.prob[bit_index(k, "rdwr")] > 0 &&
        bp.prob[bit_index(k, "wronly")] > 0) {
        fail(st, st->line, "%s: rdwr and wronly cannot both be drawn "
             "(O_WRONLY|O_RDWR is no access mode)", name);
        return;
    }
    struct bitmap *bm = &st->cfg->bits[k];
    for (int i = 0; i < bm->nbits; i++)
        bm->prob[i] = bp.prob[i];
}

/* ------------------------------------------------------------ [fs NAME] */

static void fs_type_key(struct parse_state *st, struct fs_config *fs, const char *value)
{
    int t = fs_type_by_name(value);
    if (t < 0)
        fail(st, st->line, "type: '%s' is not %s", value, fs_type_list());
    else
        fs->type = t;
}

static bool valid_fstype(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
            return false;
    return true;
}

/* The abstraction owns the names; asking it here puts the file and line on a typo. */
static void check_ignore(struct parse_state *st, const char *value)
{
    unsigned bits;
    char msg[256];
    if (abstract_parse_ignore(value, &bits, msg, sizeof msg) < 0)
        fail(st, st->line, "ignore: %s", msg);
}

/* Appends tok to the comma-joined list in arg, so the abstraction never sees blanks. */
static bool add_exclude_entry(struct parse_state *st, const char *key, const char *tok,
                              void *arg)
{
    char *list = arg;
    if (strchr(tok, '/') || strcmp(tok, ".") == 0 || strcmp(tok, "..") == 0) {
        fail(st, st->line, "%s: '%s' is not a name in the root directory", key, tok);
        return false;
    }
    size_t len = strlen(list);
    snprintf(list + len, sizeof ((struct fs_config *)0)->exclude - len, "%s%s",
             len ? "," : "", tok);
    return true;
}

static void set_exclude(struct parse_state *st, struct fs_config *fs, const char *value)
{
    char list[sizeof fs->exclude] = "";
    if (for_each_item(st, "exclude", value, add_exclude_entry, list))
        memcpy(fs->exclude, list, sizeof list);
}

/* "A:B" items: this fs failing with A where the reference fails with B is no discrepancy
 * (POSIX allows both, e.g. EEXIST for ENOTEMPTY on xfs). */
static bool add_errno_pair(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct fs_config *fs = arg;
    char a[64], b[64];
    const char *colon = strchr(tok, ':');
    if (!colon || colon - tok >= (long)sizeof a || strlen(colon + 1) >= sizeof b) {
        fail(st, st->line, "%s: '%s' is not ERRNO:ERRNO", key, tok);
        return false;
    }
    snprintf(a, sizeof a, "%.*s", (int)(colon - tok), tok);
    snprintf(b, sizeof b, "%s", colon + 1);
    int ea = errno_by_name(a), eb = errno_by_name(b);
    if (ea <= 0 || eb <= 0) {
        fail(st, st->line, "%s: '%s' is not an errno name", key, ea <= 0 ? a : b);
        return false;
    }
    if (fs->nequiv == (int)(sizeof fs->equiv / sizeof fs->equiv[0])) {
        fail(st, st->line, "%s: at most %d pairs", key, fs->nequiv);
        return false;
    }
    fs->equiv[fs->nequiv][0] = ea;
    fs->equiv[fs->nequiv++][1] = eb;
    return true;
}

/* "collapse,insert,mknod": operations and variants this fs refuses with EOPNOTSUPP. */
static bool add_unsupported(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct fs_config *fs = arg;
    int op = op_lookup(tok), v = op < 0 ? op_variant_lookup(tok) : -1;
    if (op < 0 && v < 0) {
        fail(st, st->line, "%s: '%s' is neither an operation nor a variant "
             "(e.g. collapse, punch_hole, fifo; see configs/README.md)", key, tok);
        return false;
    }
    if (op >= 0)
        fs->unsup_ops |= 1ULL << op;
    else
        fs->unsup_variants |= 1ULL << v;
    return true;
}

static void fs_key(struct parse_state *st, const char *name, const char *value)
{
    struct fs_config *fs = &st->cfg->fs[st->fs];
    const struct field *f = find_field(fs_fields, FSK_COUNT, name);
    if (!f) {
        fail(st, st->line, "[fs %s]: unknown key '%s'", fs->name, name);
        return;
    }
    st->fs_key_line[st->fs][f - fs_fields] = st->line;
    if (f - fs_fields == FSK_TYPE) {
        fs_type_key(st, fs, value);
        return;
    }
    set_field(st, f, fs, value);
    if (f - fs_fields == FSK_IGNORE && !st->failed)
        check_ignore(st, value);
    if (f - fs_fields == FSK_EXCLUDE && !st->failed)
        set_exclude(st, fs, value);
    if (f - fs_fields == FSK_UNSUPPORTED && !st->failed) {
        fs->unsup_ops = fs->unsup_variants = 0;
        for_each_item(st, "unsupported", value, add_unsupported, fs);
    }
    if (f - fs_fields == FSK_ERRNO_EQUIV && !st->failed) {
        fs->nequiv = 0;
        for_each_item(st, "errno_equiv", value, add_errno_pair, fs);
    }
    if (f - fs_fields == FSK_READBACK && !st->failed && strcmp(value, "dump") != 0 &&
        strcmp(value, "vfs") != 0 && strcmp(value, "auto") != 0)
        fail(st, st->line, "readback: '%s' is not auto, dump or vfs", value);
    if (f - fs_fields == FSK_RESTORE && !st->failed && strcmp(value, "auto") != 0 &&
        strcmp(value, "snapshot") != 0 && strcmp(value, "logical") != 0 &&
        strcmp(value, "replay") != 0)
        fail(st, st->line, "restore: '%s' is not auto, snapshot, logical or replay", value);
    if (f - fs_fields == FSK_FSTYPE && !st->failed && !valid_fstype(value))
        fail(st, st->line, "fstype: '%s' is not a file system type name", value);
    if (f - fs_fields == FSK_FSTYPE)
        fs->fstype_line = st->line;
    if (f - fs_fields == FSK_SIZE)
        fs->size_line = st->line;
}

/* -------------------------------------------------------------- sections */

static bool valid_fs_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return false;
    return true;
}

static void begin_fs(struct parse_state *st, const char *name)
{
    struct metis_config *cfg = st->cfg;
    if (!valid_fs_name(name) || strlen(name) >= sizeof cfg->fs[0].name) {
        fail(st, st->line, "[fs %s]: a name is 1..%zu of A-Z a-z 0-9 _ -", name,
             sizeof cfg->fs[0].name - 1);
        return;
    }
    for (int i = 0; i < cfg->nfs; i++)
        if (strcmp(cfg->fs[i].name, name) == 0) {
            fail(st, st->line, "[fs %s]: name already used on line %d", name, cfg->fs[i].line);
            return;
        }
    if (cfg->nfs >= METIS_MAX_FS) {
        fail(st, st->line, "[fs %s]: more than %d file systems", name, METIS_MAX_FS);
        return;
    }
    st->fs = cfg->nfs++;
    fs_defaults(&cfg->fs[st->fs], name, st->line);
    st->sec = SEC_FS;
}

static void begin_section(struct parse_state *st, const char *name)
{
    static const struct {
        const char *name;
        enum section sec;
    } plain[] = { { "run", SEC_RUN },   { "pool", SEC_POOL }, { "ops", SEC_OPS },
                  { "sizes", SEC_SIZES }, { "bits", SEC_BITS }, { "vary", SEC_VARY } };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(name, plain[i].name) == 0) {
            st->sec = plain[i].sec;
            if (st->sec == SEC_OPS && !st->ops_line)
                st->ops_line = st->line;
            if (st->sec == SEC_POOL && !st->pool_line)
                st->pool_line = st->line;
            return;
        }
    if (strncmp(name, "fs", 2) == 0 && (name[2] == ' ' || name[2] == '\t')) {
        const char *n = name + 2;
        while (*n == ' ' || *n == '\t')
            n++;
        begin_fs(st, n);
    } else if (strcmp(name, "fs") == 0) {
        fail(st, st->line, "[fs] needs a name: [fs NAME]");
    } else {
        fail(st, st->line, "unknown section [%s] (expected run, fs NAME, pool, ops, sizes, bits or "
             "vary)", name);
    }
}

/* A header line "[...]": inih takes everything up to the first ']' as the name. */
static void section_line(struct parse_state *st, const char *line)
{
    const char *close = strchr(line, ']');
    if (!close) {
        fail(st, st->line, "section header without ']'");
        return;
    }
    const char *s = line + 1;
    while (s < close && isspace((unsigned char)*s))
        s++;
    const char *e = close;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
    begin_section(st, name);
}

/* --------------------------------------------------------- inih callbacks */

/*
 * Line reader for ini_parse_stream: counts lines (this libinih does not pass line numbers),
 * follows section headers (inih does not report a section without keys), and strips leading
 * blanks, since inih would take an indented line as the continuation of the previous value.
 */
static char *read_line(char *str, int num, void *stream)
{
    struct parse_state *st = stream;
    ssize_t n = getline(&st->buf, &st->cap, st->f);
    if (n < 0)
        return NULL;
    st->line++;
    char *s = st->buf;
    if (st->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strlen(s) + 1 > (size_t)num) {
        fail(st, st->line, "line too long (at most %d characters)", num - 2);
        snprintf(str, num, "\n");
        return str;
    }
    snprintf(str, num, "%s", s);
    if (*s == '[')
        section_line(st, s);
    return str;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct parse_state *st = user;
    (void)section;
    if (st->failed)
        return 1;
    switch (st->sec) {
    case SEC_NONE:
        fail(st, st->line, "'%s' is outside any section", name);
        break;
    case SEC_RUN: run_key(st, name, value); break;
    case SEC_FS: fs_key(st, name, value); break;
    case SEC_POOL: pool_key(st, name, value); break;
    case SEC_OPS: ops_key(st, name, value); break;
    case SEC_SIZES: sizes_key(st, name, value); break;
    case SEC_BITS: bits_key(st, name, value); break;
    case SEC_VARY: vary_key(st, name, value); break;
    }
    return !st->failed;
}

/* ------------------------------------------------------ whole-file checks */

static const char *const type_nouns[] = { "a kernel", "a reffs", "a fuse" };

static void finish_fs(struct parse_state *st, int i)
{
    struct fs_config *fs = &st->cfg->fs[i];
    int *lines = st->fs_key_line[i];
    if (!lines[FSK_TYPE]) {
        fail(st, fs->line, "[fs %s]: no type (kernel, reffs or fuse)", fs->name);
        return;
    }
    for (int k = 0; k < FSK_COUNT; k++)
        if (lines[k] && !(fs_fields[k].types & T(fs->type))) {
            fail(st, lines[k], "[fs %s]: %s does not apply to %s file system", fs->name,
                 fs_fields[k].name, type_nouns[fs->type]);
            return;
        }
    if (fs->type == FS_KERNEL && !fs->fstype[0])
        fail(st, fs->line, "[fs %s]: a kernel file system needs fstype (e.g. ext4)", fs->name);
    if (fs->type == FS_FUSE && !fs->mount_cmd[0])
        fail(st, fs->line, "[fs %s]: a fuse file system needs mount_cmd", fs->name);
    if (fs->type == FS_REFFS && !lines[FSK_SIZE])
        fs->size = REFFS_DEFAULT_SIZE;
    /* The FUSE kernel module answers COLLAPSE_RANGE and INSERT_RANGE with EOPNOTSUPP itself,
     * never asking the daemon: a file system mounted through FUSE cannot do them. */
    if (fs->type != FS_KERNEL && !lines[FSK_UNSUPPORTED]) {
        fs->unsup_variants |= 1ULL << op_variant_lookup("collapse");
        fs->unsup_variants |= 1ULL << op_variant_lookup("insert");
    }
    /* The format makes these entries itself, whichever driver (kernel or FUSE) mounts it. */
    const struct fs_format *fmt = fs->fstype[0] ? fs_format_of(fs->fstype) : NULL;
    if (fs->type != FS_REFFS && !lines[FSK_EXCLUDE] && fmt)
        snprintf(fs->exclude, sizeof fs->exclude, "%s", fmt->exclude);
    if (fs->type == FS_FUSE && fs->size && lines[FSK_RESTORE] && strcmp(fs->restore, "auto"))
        fail(st, lines[FSK_RESTORE], "[fs %s]: restore applies to a fuse file system without "
             "size (with a size its states are images)", fs->name);
    if (fs->type == FS_FUSE && !lines[FSK_UNMOUNT_CMD])
        snprintf(fs->unmount_cmd, sizeof fs->unmount_cmd, "fusermount3 -u {mnt}");
}

/* Directory and file names of the pool; saturates above METIS_MAX_POOL_PATHS. */
static uint64_t pool_dir_count(const struct pool_config *p)
{
    uint64_t level = 1, total = 0;
    for (int d = 0; d < p->depth && total <= METIS_MAX_POOL_PATHS; d++) {
        level *= (uint64_t)p->dirs;
        total += level;
    }
    return total;
}

static void finish_pool(struct parse_state *st)
{
    const struct pool_config *p = &st->cfg->pool;
    int line = st->pool_key_line ? st->pool_key_line : st->pool_line;
    uint64_t dirs = pool_dir_count(p);
    uint64_t paths = dirs + (dirs + 1) * (uint64_t)p->files;
    if (paths > METIS_MAX_POOL_PATHS)
        fail(st, line, "[pool]: %llu directories and %d files per directory exceed %d paths",
             (unsigned long long)dirs, p->files, METIS_MAX_POOL_PATHS);
    else if ((uint64_t)(p->depth + 1) * (p->name_len + 1) >= METIS_PATH_MAX)
        fail(st, line, "[pool]: depth %d with name_len %d makes paths longer than %d",
             p->depth, p->name_len, METIS_PATH_MAX - 1);
}

/* Largest value partition use can draw, boundary_pm1 included (2^k + 1). */
uint64_t config_part_high(const struct partitions *p)
{
    int top = p->nparts - 1;
    while (top > 0 && p->weight[top] <= 0)
        top--;
    return top <= 0 ? 0 : (1ULL << top) + 1;
}

static uint64_t high_sum(const struct partitions *a, const struct partitions *b)
{
    return config_part_high(a) + config_part_high(b);
}

/* 1 when a fallocate mode other than 0 and KEEP_SIZE may be drawn (they are the aligned ones). */
static int new_falloc_modes(const struct metis_config *cfg)
{
    const struct choice *c = &cfg->choice[CH_FALLOC_MODE];
    for (int i = 0; i < c->n; i++)
        if (c->weight[i] > 0 && op_variant_value(c->variant[i]) & ~(unsigned)FALLOC_FL_KEEP_SIZE)
            return 1;
    return 0;
}

/* The longest fallocate range: an aligned length is rounded up to the unit (ops.c). */
static uint64_t falloc_len_high(const struct metis_config *cfg)
{
    uint64_t len = config_part_high(&cfg->part[ARG_FALLOC_LEN]), u = cfg->falloc_align;
    if (cfg->falloc_align_prob > 0 && u && new_falloc_modes(cfg) && len % u)
        len += u - len % u;
    return len;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* A file's extent stays below the largest offset + length of what writes to it (open_unlink
 * writes and truncates like write_file and truncate; INSERT_RANGE is capped at this bound). */
uint64_t config_file_extent(const struct metis_config *cfg)
{
    const struct partitions *pt = cfg->part;
    const int *w = cfg->op_weight;
    uint64_t bound = 0;
    if (w[OP_write_file] || w[OP_open_unlink])
        bound = high_sum(&pt[ARG_WRITE_OFFSET], &pt[ARG_WRITE_SIZE]);
    if (w[OP_truncate] || w[OP_open_unlink])
        bound = max_u64(bound, config_part_high(&pt[ARG_TRUNC_SIZE]));
    if (w[OP_fallocate_file])
        bound = max_u64(bound, config_part_high(&pt[ARG_FALLOC_OFFSET]) + falloc_len_high(cfg));
    if (w[OP_copy_range])
        bound = max_u64(bound, high_sum(&pt[ARG_COPY_OFFSET], &pt[ARG_COPY_LEN]));
    return bound;
}

/* The per-file bound of the sizing rule (appends and block-boundary ends stay below it). */
uint64_t config_file_bound(const struct metis_config *cfg)
{
    return config_file_extent(cfg);
}

/* Bytes one file can come to hold: its extent plus its xattrs. */
static uint64_t file_data_bound(const struct metis_config *cfg)
{
    uint64_t bound = config_file_extent(cfg);
    if (cfg->op_weight[OP_setxattr])
        bound += (uint64_t)cfg->pool.xattr_names * (config_part_high(&cfg->part[ARG_XATTR_SIZE]) + 64);
    return bound;
}

/* ENOSPC at different points on two file systems is a false discrepancy, so the pool's data
 * must fit in half of every device (the rest is metadata, journal and slack). */
static void finish_sizing(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    uint64_t files = (pool_dir_count(&cfg->pool) + 1) * (uint64_t)cfg->pool.files;
    uint64_t bound = file_data_bound(cfg);
    uint64_t data = bound > UINT64_MAX / files ? UINT64_MAX : files * bound;
    for (int i = 0; i < cfg->nfs && !st->failed; i++) {
        const struct fs_config *fs = &cfg->fs[i];
        uint64_t size = fs->size;
        if (!size && fs->type == FS_KERNEL)
            size = fs_format_default_size(fs->fstype);
        if (!size || data <= size / 2)
            continue;
        char a[32], b[32];
        fail(st, fs->size_line ? fs->size_line : fs->line,
             "[fs %s]: the pool can hold %s of data, more than half of its %s: "
             "shrink [sizes] or [pool], or grow size", fs->name,
             fmt_bytes(data, a, sizeof a), fmt_bytes(size, b, sizeof b));
    }
}

/* A filled device meets ENOSPC where its own accounting says: only file systems of one kind
 * (all RefFS, or one fstype) meet it at the same operation. */
static void finish_vary(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    const struct fs_config *a = &cfg->fs[0];
    if (cfg->vary.fill <= 0 && cfg->vary.fill_inodes <= 0)
        return;
    for (int i = 1; i < cfg->nfs; i++) {
        const struct fs_config *b = &cfg->fs[i];
        if (b->type == a->type && strcmp(b->fstype, a->fstype) == 0)
            continue;
        fail(st, cfg->vary.fill_line, "[vary]: [fs %s] and [fs %s] are of different kinds "
             "and would run out of space at different points; fill and fill_inodes need one "
             "kind (set them to 0)", a->name, b->name);
        return;
    }
}

/* Kinds not given take another kind's partitions and mode (arg_inherits). */
static void finish_inherited(struct parse_state *st)
{
    for (int k = 0; k < ARG_NKINDS; k++) {
        int from = arg_inherits[k];
        struct partitions *p = &st->cfg->part[k];
        if (from < 0)
            continue;
        if (!st->part_given[k]) {
            memcpy(p->weight, st->cfg->part[from].weight, sizeof p->weight);
            p->nparts = st->cfg->part[from].nparts;
        }
        if (!st->mode_given[k])
            p->mode = st->cfg->part[from].mode;
    }
}

/* RefFS's dump holds no times and no device numbers: a run that compares them walks its mount.
 * open_unlink needs RefFS to see opens (backend/reffs.c). */
static void finish_readback(struct parse_state *st, int i)
{
    struct metis_config *cfg = st->cfg;
    struct fs_config *fs = &cfg->fs[i];
    const struct choice *c = &cfg->choice[CH_MKNOD_TYPE];
    int devices = 0;
    for (int k = 0; k < c->n; k++)
        devices |= c->weight[k] > 0 && (op_variant_value(c->variant[k]) == S_IFCHR ||
                                        op_variant_value(c->variant[k]) == S_IFBLK);
    devices &= cfg->op_weight[OP_mknod] > 0;
    fs->track_opens = cfg->op_weight[OP_open_unlink] > 0;
    if (fs->type != FS_REFFS || (!devices && !cfg->run.compare_mtime))
        return;
    if (strcmp(fs->readback, "dump") == 0)
        fail(st, st->fs_key_line[i][FSK_READBACK], "[fs %s]: readback = dump cannot show %s: "
             "use auto or vfs", fs->name, devices ? "device numbers" : "mtimes");
    else
        snprintf(fs->readback, sizeof fs->readback, "vfs");
}

static void finish(struct parse_state *st)
{
    struct metis_config *cfg = st->cfg;
    finish_inherited(st);
    if (cfg->nfs == 0)
        fail(st, 0, "no [fs NAME] section: at least one file system is needed");
    for (int i = 0; i < cfg->nfs && !st->failed; i++)
        finish_fs(st, i);
    for (int i = 0; i < cfg->nfs && !st->failed; i++)
        finish_readback(st, i);
    int sum = 0;
    for (int i = 0; i < OP_COUNT; i++)
        sum += cfg->op_weight[i];
    if (!st->failed && sum == 0)
        fail(st, st->ops_line, "[ops]: every weight is 0; at least one operation needs one");
    if (!st->failed)
        finish_pool(st);
    if (!st->failed)
        finish_sizing(st);
    if (!st->failed)
        finish_vary(st);
    int bad_fs = 0;
    char msg[400];
    if (!st->failed && crash_config_problem(cfg, &bad_fs, msg, sizeof msg) < 0)
        fail(st, cfg->fs[bad_fs].line, "[fs %s]: %s", cfg->fs[bad_fs].name, msg);
}

/* ------------------------------------------------------------------ load */

static void set_name(struct metis_config *cfg, const char *path)
{
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".ini") == 0)
        len -= 4;
    snprintf(cfg->name, sizeof cfg->name, "%.*s", (int)len, base);
}

int config_load(const char *path, struct metis_config *cfg, char *err, size_t errlen)
{
    config_defaults(cfg);
    set_name(cfg, path);
    struct parse_state st = { .cfg = cfg, .path = path, .sec = SEC_NONE };
    st.f = fopen(path, "r");
    if (!st.f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int syntax = ini_parse_stream(read_line, &st, on_key, &st);
    bool read_error = ferror(st.f);
    fclose(st.f);
    free(st.buf);
    if (read_error) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(EIO));
        return -1;
    }
    /* inih reports the first line it could not parse; an earlier problem of ours wins. */
    if (syntax > 0 && (!st.failed || syntax < st.err_line)) {
        snprintf(err, errlen, "%s:%d: syntax error: expected [section], key = value or a comment",
                 path, syntax);
        return -1;
    }
    if (syntax < 0) {
        snprintf(err, errlen, "%s: cannot parse (inih error %d)", path, syntax);
        return -1;
    }
    if (!st.failed)
        finish(&st);
    if (st.failed) {
        snprintf(err, errlen, "%s:%d: %s", path, st.err_line, st.msg);
        return -1;
    }
    return 0;
}

/* -------------------------------------------------------------- validate */

/* Looks for an executable in PATH and the sbin directories root's PATH usually has. */
static bool find_program(const char *prog)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/sbin:/usr/sbin:/usr/local/sbin", env ? env : "");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char p[4352];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", *d ? d : ".", prog);
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0)
            return true;
    }
    return false;
}

static bool proc_filesystems_lists(const char *fstype)
{
    FILE *f = fopen("/proc/filesystems", "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *name = strrchr(line, '\t');
        name = name ? name + 1 : line;
        name[strcspn(name, "\n")] = '\0';
        found = strcmp(name, fstype) == 0;
    }
    fclose(f);
    return found;
}

/* modprobe -n (dry run) succeeds when the module exists or is built in. */
static bool modprobe_can_load(const char *module)
{
    char *argv[] = { "modprobe", "-n", "-q", (char *)module, NULL };
    struct spawn_how how = { .flags = SPAWN_SEARCH_PATH | SPAWN_QUIET };
    pid_t pid = spawn_start(argv, &how);
    return pid > 0 && spawn_wait(pid) == 0;
}

static bool kernel_knows(const char *fstype)
{
    char alias[64];
    snprintf(alias, sizeof alias, "fs-%s", fstype);
    return proc_filesystems_lists(fstype) || modprobe_can_load(fstype) ||
           modprobe_can_load(alias);
}

static int validate_kernel_fs(const struct metis_config *cfg, const struct fs_config *fs,
                              char *err, size_t errlen)
{
    char mkfs[64], a[32], b[32];
    int tline = fs->fstype_line ? fs->fstype_line : fs->line;
    int sline = fs->size_line ? fs->size_line : fs->line;
    snprintf(mkfs, sizeof mkfs, "mkfs.%s", fs->fstype);
    if (!find_program(mkfs))
        return snprintf(err, errlen, "%s:%d: [fs %s]: %s is not in PATH, /sbin or /usr/sbin",
                        cfg->path, tline, fs->name, mkfs), -1;
    if (!kernel_knows(fs->fstype))
        return snprintf(err, errlen, "%s:%d: [fs %s]: the kernel does not know %s "
                        "(not in /proc/filesystems, and modprobe cannot load it)",
                        cfg->path, tline, fs->name, fs->fstype), -1;
    const struct fs_format *fmt = fs_format_of(fs->fstype);
    uint64_t min = fmt ? fmt->min_size : 0;
    if (fs->size && fs->size < min)
        return snprintf(err, errlen, "%s:%d: [fs %s]: size %s is below the smallest %s (%s)",
                        cfg->path, sline, fs->name, fmt_bytes(fs->size, a, sizeof a),
                        fs->fstype, fmt_bytes(min, b, sizeof b)), -1;
    bool mixed = fs_mkfs_opts_mixed(fs->mkfs_opts);
    if (strcmp(fs->fstype, "btrfs") == 0 && !mixed && fs->size && fs->size < FS_BTRFS_UNMIXED_MIN)
        return snprintf(err, errlen, "%s:%d: [fs %s]: btrfs below %s needs mkfs_opts = -M",
                        cfg->path, sline, fs->name,
                        fmt_bytes(FS_BTRFS_UNMIXED_MIN, a, sizeof a)), -1;
    return 0;
}

int config_validate(const struct metis_config *cfg, char *err, size_t errlen)
{
    for (int i = 0; i < cfg->nfs; i++) {
        const struct fs_config *fs = &cfg->fs[i];
        if (fs->type == FS_KERNEL && validate_kernel_fs(cfg, fs, err, errlen) < 0)
            return -1;
        if (fs->type != FS_KERNEL && access("/dev/fuse", R_OK | W_OK) != 0)
            return snprintf(err, errlen, "%s:%d: [fs %s]: /dev/fuse: %s", cfg->path, fs->line,
                            fs->name, strerror(errno)), -1;
    }
    struct stat sb;
    if (cfg->run.out[0] && stat(cfg->run.out, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return snprintf(err, errlen, "%s:%d: out: %s exists and is not a directory", cfg->path,
                        cfg->run.out_line, cfg->run.out), -1;
    return 0;
}

int fs_unsupported(const struct fs_config *fs, enum op_id op, int v)
{
    return ((fs->unsup_ops >> op) & 1) || (v >= 0 && ((fs->unsup_variants >> v) & 1));
}

int fs_errno_equivalent(const struct fs_config *fs, int err, int ref_err)
{
    for (int k = 0; k < fs->nequiv; k++)
        if (fs->equiv[k][0] == err && fs->equiv[k][1] == ref_err)
            return 1;
    return 0;
}
