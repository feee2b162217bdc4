/* Metis run configuration: the INI loader (libinih) with file:line errors and the whole-file checks; the key table is config_keys.c, host checks config_validate.c. */
#include <assert.h>
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
#include "tree/digest.h"
#include "engine/config/config.h"
#include "engine/config/config_lines.h"
#include "engine/vocab/features.h"
#include "engine/vocab/crash_modes.h"
#include "engine/config/crash_config.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/config/fault_config.h"
#include "lib/text/errnos.h"
#include "lib/text/numbers.h"
#include "lib/text/placeholders.h"
#include "engine/vocab/opnames.h"
#include "lib/system/spawner.h"
#include "engine/config/config_keys.h"

/* ----------------------------------------------------------- parse state */

struct parse_state {
    struct metis_config *cfg;
    const char *path;
    int line;                   /* line the reader handed to inih last */
    enum section sec;
    int fs;                     /* index of the current [fs NAME] */
    int fs_key_line[METIS_MAX_FS][FSK_COUNT];
    int ops_line, pool_line, pool_key_line;
    int lose_line;              /* [run] remount_test_lose's line, 0 if not given */
    int lie_line;               /* [run] crash_test_lie's line, 0 if not given */
    int faults_line;            /* line of [run] faults, for the fault keys' whole-file checks */
    bool part_given[ARG_NKINDS], mode_given[ARG_NKINDS];   /* [sizes] keys seen */
    int err_line;               /* line of the first problem, 0 if none yet */
    bool failed;
    char msg[1024];
    struct config_lines in;
    char *long_value;           /* a continued value too long for inih's line (see read_line) */
    int *line_of;               /* line_of[k]: the file's line of inih's line k (joined lines) */
    size_t nlines, lines_cap;
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

const char *config_fmt_bytes(uint64_t b, char *buf, size_t len)
{
    if (b >= MiB && b % MiB == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(b / MiB));
    else if (b >= KiB && b % KiB == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(b / KiB));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)b);
    return buf;
}

static bool number_in_range(struct parse_state *st, const struct config_key *f, const char *value,
                            double *x)
{
    bool ok = f->kind == CK_DOUBLE ? parse_double(value, x) : false;
    if (f->kind != CK_DOUBLE) {
        uint64_t u;
        ok = parse_decimal_u64(value, &u) == 0;
        *x = (double)u;
    }
    if (!ok) {
        fail(st, st->line, "%s: '%s' is not a non-negative %s", f->name, value,
             f->kind == CK_DOUBLE ? "number" : "integer");
        return false;
    }
    if (*x < f->min || *x > f->max) {
        if (f->kind == CK_DOUBLE)
            fail(st, st->line, "%s: %s is out of range (%g..%g)", f->name, value, f->min, f->max);
        else
            fail(st, st->line, "%s: %s is out of range (%.0f..%.0f)", f->name, value, f->min,
                 f->max);
        return false;
    }
    return true;
}

static void set_string(struct parse_state *st, const struct config_key *f, char *dst,
                       const char *value)
{
    if (strlen(value) >= f->len)
        fail(st, st->line, "%s: value too long (at most %zu characters)", f->name, f->len - 1);
    else
        memcpy(dst, value, strlen(value) + 1);
}

/* Stores value into the field of struct base described by f. */
static void set_field(struct parse_state *st, const struct config_key *f, void *base,
                      const char *value)
{
    char *p = (char *)base + f->off;
    double x;
    uint64_t u;
    int b;
    switch (f->kind) {
    case CK_INT:
        if (number_in_range(st, f, value, &x))
            *(int *)p = (int)x;
        break;
    case CK_LONG:
        if (number_in_range(st, f, value, &x))
            *(long *)p = (long)x;
        break;
    case CK_DOUBLE:
        if (number_in_range(st, f, value, &x))
            *(double *)p = x;
        break;
    case CK_U64:
        if (parse_decimal_u64(value, &u) == 0)
            *(uint64_t *)p = u;
        else
            fail(st, st->line, "%s: '%s' is not a non-negative integer", f->name, value);
        break;
    case CK_SIZE:
        if (parse_size(value, &u))
            *(uint64_t *)p = u;
        else
            fail(st, st->line, "%s: '%s' is not a size (bytes, or a number with K, M, G or T)",
                 f->name, value);
        break;
    case CK_BOOL:
        if (parse_bool(value, &b))
            *(int *)p = b;
        else
            fail(st, st->line, "%s: '%s' is not a boolean (1/0, yes/no, true/false, on/off)",
                 f->name, value);
        break;
    case CK_STR:
        set_string(st, f, p, value);
        break;
    default:
        break;
    }
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

/* What a [run] value must be beyond its kind. */
static void run_checks(struct parse_state *st, const char *name, const char *value)
{
    if (strcmp(name, "hash") == 0 && !EVP_get_digestbyname(value))
        fail(st, st->line, "hash: '%s' is not a digest OpenSSL knows (e.g. md5, sha1, sha256)",
             value);
    if (strcmp(name, "out") == 0)
        st->cfg->run.out_line = st->line;
    if (strcmp(name, "crash") == 0 && crash_mode_parse(value) < 0)
        fail(st, st->line, "crash: '%s' is not off, fsync, syncfs or any", value);
    if (strcmp(name, "crash_states") == 0 && crash_states_parse(value) < 0)
        fail(st, st->line, "crash_states: '%s' is not copy, flushes or stream", value);
    if (strcmp(name, "crash_test_skip") == 0 && value[0] && op_lookup(value) < 0)
        fail(st, st->line, "crash_test_skip: '%s' is not an operation", value);
    if (strcmp(name, "remount_test_lose") == 0)
        st->lose_line = st->line;
    if (strcmp(name, "crash_test_lie") == 0)
        st->lie_line = st->line;
    if (strcmp(name, "faults") == 0)
        st->faults_line = st->line;
    if (strcmp(name, "fault_test_silent") == 0 && value[0] && op_lookup(value) < 0)
        fail(st, st->line, "fault_test_silent: '%s' is not an operation", value);
    if (strcmp(name, "search") == 0 && search_kind_parse(value) < 0)
        fail(st, st->line, "search: '%s' is not dfs, random or bounded", value);
    if (strcmp(name, "search") == 0)
        st->cfg->run.search_line = st->line;
    if (strcmp(name, "together") == 0)
        st->cfg->run.together_line = st->line;
    if (strcmp(name, "symmetry") == 0 && strcmp(value, "off") && strcmp(value, "names"))
        fail(st, st->line, "symmetry: '%s' is not off or names", value);
    if (strcmp(name, "symmetry") == 0)
        st->cfg->run.symmetry_line = st->line;
}

int run_symmetry_names(const struct run_config *r)
{
    return strcmp(r->symmetry, "names") == 0;
}

int search_kind_parse(const char *s)
{
    return !strcmp(s, "dfs") ? SEARCH_DFS : !strcmp(s, "random") ? SEARCH_RANDOM :
           !strcmp(s, "bounded") ? SEARCH_BOUNDED : -1;
}

/* ----------------------------------------------------------------- [pool] */

struct id_list {
    uint32_t *ids;
    int *n;
    const struct config_key *key;
};

static bool add_id(struct parse_state *st, const char *key, const char *tok, void *arg)
{
    struct id_list *l = arg;
    uint64_t v;
    if (parse_decimal_u64(tok, &v) < 0 || (double)v < l->key->min || (double)v > l->key->max) {
        fail(st, st->line, "%s: '%s' is not an id (%.0f..%.0f)", key, tok, l->key->min,
             l->key->max);
        return false;
    }
    if (*l->n >= 8) {
        fail(st, st->line, "%s: more than 8 ids", key);
        return false;
    }
    l->ids[(*l->n)++] = (uint32_t)v;
    return true;
}

/* uids or gids, as key says. */
static void parse_ids(struct parse_state *st, const struct config_key *key, const char *value,
                      struct pool_config *pool)
{
    int count = 0;
    uint32_t tmp[8] = { 0 };
    struct id_list l = { tmp, &count, key };
    bool uids = strcmp(key->name, "uids") == 0;
    if (!for_each_item(st, key->name, value, add_id, &l))
        return;
    if (count == 0) {
        fail(st, st->line, "%s: needs at least one id", key->name);
        return;
    }
    memcpy(uids ? pool->uids : pool->gids, tmp, sizeof tmp);
    *(uids ? &pool->nuids : &pool->ngids) = count;
}


/* ------------------------------------------------------------------ [ops] */

static void weight_key(struct parse_state *st, const struct config_key *k, const char *value)
{
    uint64_t w;
    if (parse_decimal_u64(value, &w) < 0)
        fail(st, st->line, "%s: weight '%s' is not a non-negative integer", k->name, value);
    else if ((double)w < k->min || (double)w > k->max)
        fail(st, st->line, "%s: weight %s is out of range (%.0f..%.0f)", k->name, value, k->min,
             k->max);
    else
        st->cfg->op_weight[k->which] = (int)w;
}

/* ---------------------------------------------------------------- [sizes] */

struct part_parse {
    int max_parts;              /* of the key's kind (max_parts) */
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
    int max = pp->max_parts;
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
    int max = pp->max_parts;
    if (parse_decimal_u64(n, &v) < 0 || v >= (uint64_t)max) {
        fail(st, st->line, "%s: uniform:%s: N must be an integer 0..%d", key, n, max - 1);
        return false;
    }
    for (uint64_t i = 0; i <= v; i++)
        pp->weight[i] = 1.0;
    pp->nparts = (int)v + 1;
    return true;
}

static void parts_key(struct parse_state *st, const struct config_key *key, const char *value)
{
    struct part_parse pp = { .max_parts = max_parts(key) };
    const char *name = key->name;
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
    struct partitions *p = &st->cfg->part[key->which];
    memcpy(p->weight, pp.weight, sizeof p->weight);
    p->nparts = pp.nparts;
}

/* "falloc_align = UNIT:PROBABILITY": how often the new fallocate modes draw a range aligned to
 * UNIT (a power of two, 1 .. 1 MiB; collapse and insert need block-aligned ranges). */
static void falloc_align_key(struct parse_state *st, const struct config_key *k,
                             const char *value)
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
    if (!parse_size(unit, &u) || (double)u < k->min || (u & (u - 1)) || (double)u > k->max)
        fail(st, st->line, "falloc_align: unit '%s' is not a power of two 1 .. 1M", unit);
    else if (!parse_double(colon + 1, &p) || p > 1)
        fail(st, st->line, "falloc_align: probability '%s' is not a number 0..1", colon + 1);
    else {
        st->cfg->falloc_align = u;
        st->cfg->falloc_align_prob = p;
    }
}

static void part_mode_key(struct parse_state *st, const struct config_key *k, const char *value)
{
    int m = name_index(part_mode_names, 3, value);
    if (m < 0)
        fail(st, st->line, "%s: '%s' is not range, boundary or boundary_pm1", k->name, value);
    else
        st->cfg->part[k->which].mode = m;
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

static void bits_key(struct parse_state *st, const struct config_key *key, const char *value)
{
    int k = key->which;
    const char *name = key->name;
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

/* The tree model owns the names; asking it here puts the file and line on a typo. */
static void check_ignore(struct parse_state *st, const char *value)
{
    unsigned bits;
    char msg[256];
    if (tree_parse_ignore(value, &bits, msg, sizeof msg) < 0)
        fail(st, st->line, "ignore: %s", msg);
}

/* Appends tok to the comma-joined list in arg, so the tree model never sees blanks. */
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

/* "fallocate:punch_hole,xattrs": the words of the one vocabulary (features.c). */
static void lacks_key(struct parse_state *st, struct fs_config *fs, const char *value)
{
    char msg[sizeof st->msg];
    if (features_parse(value, &fs->lacks_words, msg, sizeof msg) < 0)
        fail(st, st->line, "lacks: %s", msg);
}

/* Stores value as k says: into base (its section's struct) for set_field's kinds, else into
 * the config's drawing tables. */
static void set_key(struct parse_state *st, const struct config_key *k, void *base,
                    const char *value)
{
    switch (k->kind) {
    case CK_IDS: parse_ids(st, k, value, base); break;
    case CK_FS_TYPE: fs_type_key(st, base, value); break;
    case CK_WEIGHT: weight_key(st, k, value); break;
    case CK_PARTS: parts_key(st, k, value); break;
    case CK_PART_MODE: part_mode_key(st, k, value); break;
    case CK_ALIGN: falloc_align_key(st, k, value); break;
    case CK_BITS: bits_key(st, k, value); break;
    case CK_CHOICE: choice_key(st, k->which, k->name, value); break;
    default: set_field(st, k, base, value); break;
    }
}

/* A key of [fs NAME]: its line, its value, then what the value must be beyond its kind. */
static void fs_key(struct parse_state *st, const struct config_key *k, const char *value)
{
    struct fs_config *fs = &st->cfg->fs[st->fs];
    int i = (int)(k - fs_keys);
    st->fs_key_line[st->fs][i] = st->line;
    set_key(st, k, fs, value);
    if (i == FSK_TYPE)
        return;
    if (i == FSK_IGNORE && !st->failed)
        check_ignore(st, value);
    if (i == FSK_EXCLUDE && !st->failed)
        set_exclude(st, fs, value);
    if (i == FSK_UNSUPPORTED && !st->failed) {
        fs->unsup_ops = fs->unsup_variants = 0;
        for_each_item(st, "unsupported", value, add_unsupported, fs);
    }
    if (i == FSK_LACKS && !st->failed)
        lacks_key(st, fs, value);
    if (i == FSK_ERRNO_EQUIV && !st->failed) {
        fs->nequiv = 0;
        for_each_item(st, "errno_equiv", value, add_errno_pair, fs);
    }
    if (i == FSK_READBACK && !st->failed && strcmp(value, "dump") != 0 &&
        strcmp(value, "vfs") != 0 && strcmp(value, "auto") != 0)
        fail(st, st->line, "readback: '%s' is not auto, dump or vfs", value);
    if (i == FSK_RESTORE && !st->failed && strcmp(value, "auto") != 0 &&
        strcmp(value, "snapshot") != 0 && strcmp(value, "logical") != 0 &&
        strcmp(value, "replay") != 0)
        fail(st, st->line, "restore: '%s' is not auto, snapshot, logical or replay", value);
    if (i == FSK_FSTYPE && !st->failed && !valid_fstype(value))
        fail(st, st->line, "fstype: '%s' is not a file system type name", value);
    if (i == FSK_FSTYPE)
        fs->fstype_line = st->line;
    if (i == FSK_SIZE)
        fs->size_line = st->line;
}

/* Where a section's values live: its struct, or the whole config for [ops], [sizes], [bits]. */
static void *section_base(struct parse_state *st)
{
    switch (st->sec) {
    case SEC_RUN: return &st->cfg->run;
    case SEC_FS: return &st->cfg->fs[st->fs];
    case SEC_POOL: return &st->cfg->pool;
    case SEC_VARY: return &st->cfg->vary;
    default: return st->cfg;
    }
}

static void unknown_key(struct parse_state *st, const char *name)
{
    if (st->sec == SEC_FS)
        fail(st, st->line, "[fs %s]: unknown key '%s'", st->cfg->fs[st->fs].name, name);
    else if (st->sec == SEC_OPS)
        fail(st, st->line, "[ops]: unknown operation '%s'", name);
    else
        fail(st, st->line, "[%s]: unknown key '%s'", section_of(st->sec)->name, name);
}

/* A key of the current section: the lines and kinds given, its value and its further checks. */
static void key_given(struct parse_state *st, const struct config_key *k, const char *value)
{
    if (st->sec == SEC_FS) {
        fs_key(st, k, value);
        return;
    }
    if (st->sec == SEC_POOL)
        st->pool_key_line = st->line;
    if (k->kind == CK_PART_MODE)
        st->mode_given[k->which] = true;
    set_key(st, k, section_base(st), value);
    if (k->kind == CK_PARTS)
        st->part_given[k->which] = true;
    if (st->sec == SEC_RUN && !st->failed)
        run_checks(st, k->name, value);
    if (st->sec == SEC_VARY && (!strcmp(k->name, "fill") || !strcmp(k->name, "fill_inodes")))
        st->cfg->vary.fill_line = st->line;
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

/* A new [fs NAME] before its keys: the defaults of fs_keys that every type shares. */
static void fs_defaults(struct parse_state *st, struct fs_config *fs, const char *name, int line)
{
    memset(fs, 0, sizeof *fs);
    snprintf(fs->name, sizeof fs->name, "%s", name);
    fs->line = line;
    for (int k = 0; k < FSK_COUNT; k++)
        if (fs_keys[k].dflt && !fs_keys[k].default_by_type)
            set_key(st, &fs_keys[k], fs, fs_keys[k].dflt);
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
    fs_defaults(st, &cfg->fs[st->fs], name, st->line);
    st->sec = SEC_FS;
}

static void begin_section(struct parse_state *st, const char *name)
{
    for (int i = 0; i < nsections; i++)
        if (sections[i].sec != SEC_FS && strcmp(name, sections[i].name) == 0) {
            st->sec = sections[i].sec;
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

/* An indented line that reads as a key of the section starts that key instead of continuing
 * the value above (config_lines.h). */
static int names_a_key(void *ctx, const char *text)
{
    const struct parse_state *st = ctx;
    const char *eq = strchr(text, '=');
    size_t n = eq ? (size_t)(eq - text) : 0;
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    char name[64];
    if (!eq || n >= sizeof name || st->sec == SEC_NONE)
        return 0;
    snprintf(name, sizeof name, "%.*s", (int)n, text);
    return find_key(st->sec, name) != NULL;
}

/* A continued "key = value" longer than inih's line: inih gets "key = \x01" and on_key the
 * value kept here, cut as inih cuts values (an inline ";" comment, blanks at either end). */
static void hand_long_value(struct parse_state *st, const char *text, char *str, int num)
{
    const char *eq = strchr(text, '=');
    const char *v = eq + 1, *end;
    while (isspace((unsigned char)*v))
        v++;
    for (end = v; *end && !(*end == ';' && end > v && isspace((unsigned char)end[-1])); end++)
        ;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    free(st->long_value);
    st->long_value = strndup(v, (size_t)(end - v));
    if (!st->long_value)
        fail(st, st->line, "out of memory");
    snprintf(str, num, "%.*s= \x01\n", (int)(eq - text), text);
}

/* A physical line longer than inih's: named by its key, with the way to continue it. */
static void line_too_long(struct parse_state *st, const char *text, int num)
{
    size_t n = strcspn(text, "= \t");
    if (text[strcspn(text, "=")] && n > 0 && n < 64)
        fail(st, st->line, "%.*s: line too long (at most %d characters): continue the value on "
             "indented lines", (int)n, text, num - 2);
    else
        fail(st, st->line, "line too long (at most %d characters)", num - 2);
}

/*
 * Line reader for ini_parse_stream: counts lines (this libinih does not pass line numbers),
 * follows section headers (inih does not report a section without keys), joins a value's
 * indented continuation lines (config_lines.c), and hands inih no leading blanks, since inih
 * would take an indented line as the continuation of the previous value.
 */
static char *read_line(char *str, int num, void *stream)
{
    struct parse_state *st = stream;
    const char *s = config_lines_next(&st->in, names_a_key, st, &st->line);
    if (!s || array_reserve(&st->line_of, &st->lines_cap, st->nlines + 2, sizeof *st->line_of)) {
        if (!feof(st->in.f) && !ferror(st->in.f))
            fail(st, st->line, "out of memory");
        return NULL;
    }
    st->line_of[++st->nlines] = st->line;
    /* Every physical line fits inih's; only a value joined from several may not. */
    if (st->in.longest + 1 > (size_t)num) {
        line_too_long(st, s, num);
        snprintf(str, num, "\n");
    } else if (strlen(s) + 1 > (size_t)num)
        hand_long_value(st, s, str, num);
    else
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
    const struct config_key *k = st->sec == SEC_NONE ? NULL : find_key(st->sec, name);
    if (st->sec == SEC_NONE)
        fail(st, st->line, "'%s' is outside any section", name);
    else if (!k)
        unknown_key(st, name);
    else
        key_given(st, k, strcmp(value, "\x01") == 0 && st->long_value ? st->long_value : value);
    free(st->long_value);
    st->long_value = NULL;
    return !st->failed;
}

/* ------------------------------------------------------ whole-file checks */

static const char *const type_nouns[] = { "a kernel", "a reffs", "a fuse" };

/* mount_cmd's and unmount_cmd's placeholders (lib/text/placeholders.h): known, {dir:NAME} with a
 * good NAME, and not {img} with {dir} (a fs keeps its data in an image or in directories). */
/* populate_dir names one of the directories the mount command is given. */
static void check_populate_dir(struct parse_state *st, const struct fs_config *fs,
                               const struct ph_dirs *dirs, int line)
{
    if (!fs->populate_dir[0])
        return;
    for (int i = 0; i < dirs->n; i++)
        if (strcmp(dirs->name[i], fs->populate_dir) == 0)
            return;
    fail(st, line, "[fs %s]: populate_dir = %s: mount_cmd names no {dir:%s}", fs->name,
         fs->populate_dir, fs->populate_dir);
}

static void check_placeholders(struct parse_state *st, struct fs_config *fs, const int *lines)
{
    static const int keys[] = { FSK_MOUNT_CMD, FSK_UNMOUNT_CMD };
    struct ph_dirs dirs = { 0 };
    char why[200];
    for (int k = 0; k < 2; k++) {
        const struct config_key *key = &fs_keys[keys[k]];
        const char *value = (const char *)fs + key->off;
        int line = lines[keys[k]] ? lines[keys[k]] : fs->line;
        if (ph_scan(value, &dirs, why, sizeof why) < 0)
            fail(st, line, "[fs %s]: %s: %s", fs->name, key->name, why);
        else if (dirs.n && dirs.uses_img)
            fail(st, line, "[fs %s]: %s: {img} and {dir} together: a fs keeps its data in an "
                 "image or in run-owned directories, not both", fs->name, key->name);
    }
    fs->dir_backed = dirs.n > 0;
    check_populate_dir(st, fs, &dirs, lines[FSK_POPULATE_DIR]);
}

/* Kept mounted across steps (remount = 0) with an image its checkpoints keep. */
static int kept_with_image(const struct fs_config *fs)
{
    if (fs->remount)
        return 0;
    if (fs->type == FS_KERNEL)
        return !fs_format_devless(fs->fstype);
    return fs->type == FS_FUSE && fs->size && !fs->dir_backed;
}

/* tmpfs and overlay have no device: no mkfs; tmpfs's data lives in its mount, so it stays
 * mounted (remount 0); inodes and populate_lower mean something only here. */
static void finish_devless(struct parse_state *st, struct fs_config *fs, const int *lines)
{
    int devless = fs->type == FS_KERNEL && fs_format_devless(fs->fstype);
    int tmpfs = devless && strcmp(fs->fstype, "tmpfs") == 0;
    if (lines[FSK_INODES] && !devless && !fs->dir_backed)
        fail(st, lines[FSK_INODES], "[fs %s]: inodes applies only to tmpfs, overlay and a fuse "
             "fs whose mount_cmd names a {dir}", fs->name);
    else if (lines[FSK_POPULATE_LOWER] && !(devless && !tmpfs))
        fail(st, lines[FSK_POPULATE_LOWER], "[fs %s]: populate_lower applies to overlay only",
             fs->name);
    else if (devless && lines[FSK_MKFS_OPTS])
        fail(st, lines[FSK_MKFS_OPTS], "[fs %s]: %s has no device and no mkfs: mkfs_opts does "
             "not apply", fs->name, fs->fstype);
    else if (tmpfs && lines[FSK_REMOUNT] && fs->remount)
        fail(st, lines[FSK_REMOUNT], "[fs %s]: a tmpfs keeps its data only while mounted: "
             "remount must be 0 (its default)", fs->name);
    else if (devless && st->cfg->run.compare_mtime)
        fail(st, fs->line, "[fs %s]: %s is restored logically and recorded trees hold no "
             "mtimes: compare_mtime cannot be used with it", fs->name, fs->fstype);
    else if (fs->type == FS_KERNEL && !devless && !fs->remount && st->cfg->run.compare_mtime)
        fail(st, lines[FSK_REMOUNT] ? lines[FSK_REMOUNT] : fs->line, "[fs %s]: kept mounted "
             "(remount = 0), it is restored logically and recorded trees hold no mtimes: "
             "compare_mtime needs remount = 1", fs->name);
    if (tmpfs)
        fs->remount = 0;
}

static void finish_fs(struct parse_state *st, int i)
{
    struct fs_config *fs = &st->cfg->fs[i];
    int *lines = st->fs_key_line[i];
    if (!lines[FSK_TYPE]) {
        fail(st, fs->line, "[fs %s]: no type (kernel, reffs or fuse)", fs->name);
        return;
    }
    for (int k = 0; k < FSK_COUNT; k++)
        if (lines[k] && !(fs_keys[k].types & T(fs->type))) {
            fail(st, lines[k], "[fs %s]: %s does not apply to %s file system", fs->name,
                 fs_keys[k].name, type_nouns[fs->type]);
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
    if (fs->type == FS_FUSE)
        check_placeholders(st, fs, lines);
    finish_devless(st, fs, lines);
    if (fs->type == FS_FUSE && fs->size && !fs->dir_backed && lines[FSK_RESTORE] &&
        strcmp(fs->restore, "auto"))
        fail(st, lines[FSK_RESTORE], "[fs %s]: restore applies to a fuse file system without "
             "size (with a size its states are images)", fs->name);
    if (lines[FSK_REMOUNT_EVERY] && !kept_with_image(fs) && !fs->dir_backed)
        fail(st, lines[FSK_REMOUNT_EVERY], "[fs %s]: remount_every applies to a file system "
             "with an image kept mounted (remount = 0): a kernel fs with a device, or a fuse "
             "fs with a size; or to a fuse fs whose mount_cmd names a {dir}", fs->name);
    /* A {dir}-backed fs's checkpoints cost it an unmount and a mount each: asked for only. */
    if (fs->dir_backed && !lines[FSK_REMOUNT_EVERY])
        fs->remount_every = 0;
    for (int k = 0; k < FSK_COUNT; k++)
        if (fs_keys[k].default_by_type && !lines[k] && (fs_keys[k].types & T(fs->type)))
            set_key(st, &fs_keys[k], fs, fs_keys[k].dflt);
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

uint64_t config_pool_data(const struct metis_config *cfg)
{
    uint64_t files = (pool_dir_count(&cfg->pool) + 1) * (uint64_t)cfg->pool.files;
    uint64_t bound = file_data_bound(cfg);
    return bound > UINT64_MAX / files ? UINT64_MAX : files * bound;
}

uint64_t config_pool_names(const struct metis_config *cfg)
{
    uint64_t dirs = pool_dir_count(&cfg->pool);
    return dirs + (dirs + 1) * (uint64_t)cfg->pool.files;
}

/* ENOSPC at different points on two file systems is a false discrepancy, so the pool's data
 * must fit in half of every device (the rest is metadata, journal and slack). */
static void finish_sizing(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    uint64_t data = config_pool_data(cfg);
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
             config_fmt_bytes(data, a, sizeof a), config_fmt_bytes(size, b, sizeof b));
    }
}

/* A filled device meets ENOSPC where its own accounting says: only file systems of one kind
 * (all RefFS, or one fstype) meet it at the same operation. */
/* A FUSE fs without an image whose daemon does not answer the snapshot ioctls, and a kernel fs
 * without a device (tmpfs, overlay) or kept mounted, are brought back to a saved state by
 * ordinary calls. */
static int may_restore_logically(const struct fs_config *fs)
{
    if (fs->type == FS_KERNEL)
        return fs_format_devless(fs->fstype) || !fs->remount;
    return fs->type == FS_FUSE && (!fs->size || fs->dir_backed) &&
           strcmp(fs->restore, "snapshot") != 0;
}

/* Two kinds of fs run out of space at different points: a fill variant is for one kind only,
 * so a config that adds a file system of another kind (general.ini's promise) skips them. */
static void finish_vary(struct parse_state *st)
{
    struct metis_config *cfg = st->cfg;
    const struct fs_config *a = &cfg->fs[0];
    for (int i = 1; i < cfg->nfs && !cfg->vary.other_kind; i++)
        if (cfg->fs[i].type != a->type || strcmp(cfg->fs[i].fstype, a->fstype) != 0)
            cfg->vary.other_kind = i;
    for (int i = 0; i < cfg->nfs && !cfg->vary.no_times; i++)
        if (may_restore_logically(&cfg->fs[i]))
            cfg->vary.no_times = i + 1;
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
    /* A dump (RefFS's, or a FUSE daemon's that answers RefFS's ioctls) holds no times. */
    int dumps = fs->type == FS_REFFS || fs->type == FS_FUSE;
    if (!dumps || (!devices && !cfg->run.compare_mtime && cfg->vary.mtime <= 0))
        return;
    if (strcmp(fs->readback, "dump") == 0)
        fail(st, st->fs_key_line[i][FSK_READBACK], "[fs %s]: readback = dump cannot show %s: "
             "use auto or vfs", fs->name, devices ? "device numbers" : "mtimes");
    else if (!devices && !cfg->run.compare_mtime)
        return;                 /* only the searches that compare mtimes walk (vary.c) */
    else
        snprintf(fs->readback, sizeof fs->readback, "vfs");
}

/* A choice with every weighted item lacked draws nothing: its operation is never drawn. */
static void lack_choice(struct metis_config *cfg, enum choice_kind k)
{
    struct choice *c = &cfg->choice[k];
    double sum = 0;
    for (int i = 0; i < c->n; i++) {
        if ((cfg->lacked_variants >> c->variant[i]) & 1)
            c->weight[i] = 0;
        sum += c->weight[i];
    }
    if (sum <= 0)
        cfg->lacked_ops |= 1ULL << choice_op[k];
}

/* What the lacks of every fs take out, for the whole run (features.c): the ignores on every
 * fs, the operations and variants out of the draw, and the set-id bits out of the modes. */
static void finish_lacks(struct parse_state *st)
{
    struct metis_config *cfg = st->cfg;
    uint64_t all = 0;
    struct lack_effect fx;
    for (int i = 0; i < cfg->nfs; i++)
        all |= cfg->fs[i].lacks_words;
    features_effect(all, &fx);
    cfg->lacked_ignore = fx.ignore;
    cfg->lacked_ops = fx.ops;
    cfg->lacked_variants = fx.variants;
    for (int k = 0; k < CH_NKINDS; k++)
        lack_choice(cfg, k);
    for (int op = 0; op < OP_COUNT; op++)
        if ((cfg->lacked_ops >> op) & 1)
            cfg->op_weight[op] = 0;
    struct bitmap *mode = &cfg->bits[BM_MODE];
    for (int b = 0; b < mode->nbits && fx.no_setid_draws; b++)
        if (mode->value[b] & (S_ISUID | S_ISGID))
            mode->prob[b] = 0;
    for (int i = 0; i < cfg->nfs; i++)
        cfg->fs[i].lacks_ignore = fx.ignore;
}

/* Concurrent steps are held to serial orders of the reference: there must be a reference and
 * a file system under test; a crash check syncs what one call touched, which calls made at
 * once do not tell apart. */
static void finish_together(struct parse_state *st)
{
    const struct run_config *r = &st->cfg->run;
    if (r->together <= 0)
        return;
    if (st->cfg->nfs < 2)
        fail(st, r->together_line, "together: concurrent steps need a reference and a file "
             "system under test (two [fs] sections at least)");
    else if (crash_mode_parse(r->crash) != CRASH_OFF)
        fail(st, r->together_line, "together: concurrent steps and crash = %s do not go "
             "together (a crash check syncs what one operation touched)", r->crash);
}

/* The lying recording device is a test hook of the stream's states: without them it would
 * change nothing, and a test relying on it would pass for the wrong reason. */
static void finish_lie(struct parse_state *st)
{
    const struct run_config *r = &st->cfg->run;
    if (r->crash_test_lie && (crash_mode_parse(r->crash) <= CRASH_OFF ||
                              crash_states_parse(r->crash_states) == CRASH_STATES_COPY))
        fail(st, st->lie_line, "crash_test_lie: the recording device lies only under a crash "
             "check with crash_states = flushes or stream");
}

/* What a bounded search cannot have: anything drawn at random within a step or a search
 * (dives, revisits, concurrent steps, fault steps, per-search variants), since its verdict
 * holds only if every state is the same function of the transitions that led to it. */
static const char *bounded_conflict(const struct metis_config *cfg)
{
    const struct run_config *r = &cfg->run;
    const struct vary_config *v = &cfg->vary;
    if (r->dive)
        return "dive must be 0";
    if (r->revisits)
        return "revisits must be 0";
    if (r->search_ops)
        return "search_ops must be 0 (each depth is one whole search)";
    if (r->together > 0)
        return "together must be 0 (concurrent steps are drawn at random)";
    if (r->faults > 0)
        return "faults must be 0 (fault steps are drawn at random)";
    if (v->long_names > 0 || v->fill > 0 || v->fill_inodes > 0 || v->mtime > 0)
        return "[vary] must be off (each search would explore another state space)";
    return NULL;
}

/* What symmetry = names cannot rename: a symlink's target names pool paths, and a crash
 * check reads the trees back into its own listings, not the ones the canonical key is made of. */
static const char *symmetry_conflict(const struct metis_config *cfg)
{
    if (search_kind_parse(cfg->run.search) != SEARCH_BOUNDED)
        return "needs search = bounded";
    if (cfg->op_weight[OP_symlink] > 0)
        return "refused with [ops] symlink > 0 (a symlink's target names pool paths, which "
               "the reduction does not rename)";
    if (crash_mode_parse(cfg->run.crash) > CRASH_OFF)
        return "refused with a crash check";
    return NULL;
}

static void finish_symmetry(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    const char *why = run_symmetry_names(&cfg->run) ? symmetry_conflict(cfg) : NULL;
    if (why)
        fail(st, cfg->run.symmetry_line, "symmetry = names: %s", why);
}

static void finish_bounded(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    finish_symmetry(st);
    if (search_kind_parse(cfg->run.search) != SEARCH_BOUNDED)
        return;
    const char *why = bounded_conflict(cfg);
    if (why)
        fail(st, cfg->run.search_line, "search = bounded: %s", why);
}

/* The lost-write hook acts at a kept kernel fs's checkpoints: without one it would test
 * nothing, silently. */
static void finish_lose_hook(struct parse_state *st)
{
    const struct metis_config *cfg = st->cfg;
    if (!cfg->run.remount_test_lose)
        return;
    for (int i = 0; i < cfg->nfs; i++)
        if (cfg->fs[i].type == FS_KERNEL && kept_with_image(&cfg->fs[i]))
            return;
    fail(st, st->lose_line, "remount_test_lose: no kernel file system with a device is kept "
         "mounted (remount = 0), so no checkpoint could show a lost write");
}

static void finish(struct parse_state *st)
{
    struct metis_config *cfg = st->cfg;
    finish_inherited(st);
    if (cfg->nfs == 0)
        fail(st, 0, "no [fs NAME] section: at least one file system is needed");
    for (int i = 0; i < cfg->nfs && !st->failed; i++)
        finish_fs(st, i);
    if (!st->failed)
        finish_lacks(st);
    for (int i = 0; i < cfg->nfs && !st->failed; i++)
        finish_readback(st, i);
    int sum = 0;
    for (int i = 0; i < OP_COUNT; i++)
        sum += cfg->op_weight[i];
    if (!st->failed && sum == 0)
        fail(st, st->ops_line, "[ops]: every weight is 0%s; at least one operation needs one",
             cfg->lacked_ops ? " (lacks leaves out the rest)" : "");
    if (!st->failed)
        finish_pool(st);
    if (!st->failed)
        finish_sizing(st);
    if (!st->failed)
        finish_vary(st);
    if (!st->failed)
        finish_together(st);
    if (!st->failed)
        finish_lie(st);
    int bad_fs = 0;
    char msg[400];
    if (!st->failed && crash_config_problem(cfg, &bad_fs, msg, sizeof msg) < 0)
        fail(st, cfg->fs[bad_fs].line, "[fs %s]: %s", cfg->fs[bad_fs].name, msg);
    if (!st->failed)
        finish_lose_hook(st);
    if (!st->failed)
        finish_bounded(st);
    if (st->failed || fault_config_problem(cfg, &bad_fs, msg, sizeof msg) == 0)
        return;
    if (bad_fs < 0)
        fail(st, st->faults_line, "[run]: %s", msg);
    else
        fail(st, cfg->fs[bad_fs].line, "[fs %s]: %s", cfg->fs[bad_fs].name, msg);
}

/* ---------------------------------------------------------------- defaults */

/* The key table's defaults go through the parser, as if a file gave them, so a default is a
 * value the file could give. */
void config_defaults(struct metis_config *cfg)
{
    struct parse_state st = { .cfg = cfg };
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < nsections; i++) {
        st.sec = sections[i].sec;
        for (int k = 0; k < sections[i].n && st.sec != SEC_FS; k++)
            if (sections[i].keys[k].dflt)
                set_key(&st, &sections[i].keys[k], section_base(&st), sections[i].keys[k].dflt);
    }
    finish_inherited(&st);
    for (int k = 0; k < BM_NKINDS; k++)
        set_default_bits(&cfg->bits[k], k);
    for (int k = 0; k < CH_NKINDS; k++)
        set_default_choice(&cfg->choice[k], k);
    assert(!st.failed && "a default in config_keys.c's key table does not parse");
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
    st.in.f = fopen(path, "r");
    if (!st.in.f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int syntax = ini_parse_stream(read_line, &st, on_key, &st);
    bool read_error = ferror(st.in.f);
    fclose(st.in.f);
    config_lines_free(&st.in);
    free(st.long_value);
    if (syntax > 0 && (size_t)syntax <= st.nlines)
        syntax = st.line_of[syntax];        /* inih counts the lines it was handed */
    free(st.line_of);
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
