/* Input driver: the seeded generator, the name pool, weighted partitions and bitmaps, and their coverage. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine/input/input.h"
#include "engine/vocab/opnames.h"
#include "lib/system/helpers.h"

/* ---------- xoshiro256** seeded through splitmix64 ---------- */

static uint64_t splitmix_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix_next(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Rejection sampling keeps every value equally likely (no modulo bias). */
uint64_t rng_below(struct rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t threshold = (0 - n) % n;
    uint64_t x;
    do
        x = rng_next(r);
    while (x < threshold);
    return x % n;
}

double rng_unit(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---------- the name pool ---------- */

struct strvec { char **v; int n, cap; };

static int vec_push(struct strvec *sv, const char *s)
{
    return strv_push(&sv->v, &sv->n, &sv->cap, s);
}

/* "parent/<prefix><i>" padded with 'x' to name_len characters, so long names are exercised. */
static int make_name(char *out, size_t cap, const char *parent, char prefix, int i, int name_len)
{
    char base[32];
    int n = snprintf(base, sizeof base, "%c%d", prefix, i);
    int pad = name_len > n ? name_len - n : 0;
    int len = snprintf(out, cap, "%s/%s%*s", parent, base, pad, "");
    if (len < 0 || (size_t)len >= cap)
        return -1;
    memset(out + len - pad, 'x', (size_t)pad);
    return 0;
}

/* Adds the files of directory dir, then (below max depth) its subdirectories and theirs. */
static int add_dir(struct strvec *dirs, struct strvec *files, const struct pool_config *pc,
                   const char *dir, int level)
{
    char p[METIS_PATH_MAX];
    for (int i = 0; i < pc->files; i++)
        if (make_name(p, sizeof p, dir, 'f', i, pc->name_len) || vec_push(files, p))
            return -1;
    if (level >= pc->depth)
        return 0;
    for (int i = 0; i < pc->dirs; i++) {
        if (make_name(p, sizeof p, dir, 'd', i, pc->name_len) || vec_push(dirs, p))
            return -1;
        if (add_dir(dirs, files, pc, p, level + 1))
            return -1;
    }
    return 0;
}

int input_init(struct input *in, const struct metis_config *cfg, uint64_t seed)
{
    memset(in, 0, sizeof *in);
    in->cfg = cfg;
    in->file_bound = config_file_bound(cfg);
    rng_seed(&in->rng, seed);
    const struct pool_config *pc = &cfg->pool;
    if (pc->files < 1 || pc->dirs < 0 || pc->depth < 0 || pc->nuids < 0 || pc->nuids > 8 ||
        pc->ngids < 0 || pc->ngids > 8) {
        errno = EINVAL;
        return -1;
    }
    struct strvec dirs = { 0 }, files = { 0 }, xattrs = { 0 };
    int rc = add_dir(&dirs, &files, pc, "", 0);
    int nx = pc->xattr_names > 0 ? pc->xattr_names : 1;
    for (int i = 0; rc == 0 && i < nx; i++) {
        char x[32];
        snprintf(x, sizeof x, "user.x%d", i);
        rc = vec_push(&xattrs, x);
    }
    in->pool = (struct name_pool){ dirs.n, files.n, dirs.v, files.v, xattrs.n, xattrs.v };
    if (rc) {
        input_free(in);
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void input_free(struct input *in)
{
    free_names(in->pool.dirs, in->pool.ndirs);
    free_names(in->pool.files, in->pool.nfiles);
    free_names(in->pool.xattrs, in->pool.nxattrs);
    free(in->pool_sorted);
    in->pool_sorted = NULL;
    memset(&in->pool, 0, sizeof in->pool);
}

const char *input_dir(struct input *in)
{
    uint64_t k = rng_below(&in->rng, (uint64_t)in->pool.ndirs + 1);
    return k == (uint64_t)in->pool.ndirs ? "/" : in->pool.dirs[k];
}

const char *input_file(struct input *in)
{
    return in->pool.files[rng_below(&in->rng, (uint64_t)in->pool.nfiles)];
}

const char *input_any_path(struct input *in)
{
    uint64_t k = rng_below(&in->rng, (uint64_t)in->pool.ndirs + (uint64_t)in->pool.nfiles);
    return k < (uint64_t)in->pool.ndirs ? in->pool.dirs[k] : in->pool.files[k - in->pool.ndirs];
}

const char *input_xattr(struct input *in)
{
    return in->pool.xattrs[rng_below(&in->rng, (uint64_t)in->pool.nxattrs)];
}

/* One of the pool's ids, or -1 (keep) as one more equally likely choice. */
static uint32_t pick_id(struct input *in, const uint32_t *ids, int n)
{
    uint64_t k = rng_below(&in->rng, (uint64_t)n + 1);
    return k == (uint64_t)n ? (uint32_t)-1 : ids[k];
}

uint32_t input_uid(struct input *in)
{
    return pick_id(in, in->cfg->pool.uids, in->cfg->pool.nuids);
}

uint32_t input_gid(struct input *in)
{
    return pick_id(in, in->cfg->pool.gids, in->cfg->pool.ngids);
}

/* ---------- partitions and bitmaps ---------- */

static int nparts_of(const struct partitions *p)
{
    return p->nparts < 0 ? 0 : p->nparts > METIS_MAX_PARTS ? METIS_MAX_PARTS : p->nparts;
}

static double total_weight(const struct partitions *p)
{
    double t = 0;
    for (int i = 0; i < nparts_of(p); i++)
        t += p->weight[i] > 0 ? p->weight[i] : 0;
    return t;
}

static int pick_partition(struct input *in, const struct partitions *p)
{
    double total = total_weight(p);
    int n = nparts_of(p);
    if (total <= 0)
        return 0;
    double u = rng_unit(&in->rng) * total;
    int last = 0;
    for (int i = 0; i < n; i++) {
        if (p->weight[i] <= 0)
            continue;
        last = i;
        if (u < p->weight[i])
            return i;
        u -= p->weight[i];
    }
    return last;    /* rounding left u just above the last weight */
}

uint64_t input_value(struct input *in, enum arg_kind k)
{
    const struct partitions *p = &in->cfg->part[k];
    int part = pick_partition(in, p);
    in->cov.part[k][part]++;
    if (part == 0)
        return 0;
    uint64_t lo = (uint64_t)1 << (part - 1);
    switch (p->mode) {
    case PART_RANGE:
        return lo + rng_below(&in->rng, lo);
    case PART_BOUNDARY:
        in->cov.part_boundary[k][part][1]++;
        return lo;
    case PART_BOUNDARY_PM1:
    default: {
        uint64_t j = rng_below(&in->rng, 3);
        in->cov.part_boundary[k][part][j]++;
        return lo - 1 + j;
    }
    }
}

unsigned input_bitmap(struct input *in, enum bitmap_kind k)
{
    const struct bitmap *b = &in->cfg->bits[k];
    unsigned v = 0;
    int n = b->nbits > METIS_MAX_BITS ? METIS_MAX_BITS : b->nbits;
    for (int i = 0; i < n; i++) {
        /* One draw per bit whatever its probability keeps sequences aligned across configs. */
        if (rng_unit(&in->rng) < b->prob[i]) {
            v |= b->value[i];
            in->cov.bit_set[k][i]++;
        }
    }
    in->cov.bit_draws[k]++;
    return v;
}

/* Weights are checked at load (not all 0); a rounding overshoot takes the last item above 0. */
int input_choice(struct input *in, enum choice_kind k)
{
    const struct choice *c = &in->cfg->choice[k];
    double total = 0;
    for (int i = 0; i < c->n; i++)
        total += c->weight[i] > 0 ? c->weight[i] : 0;
    double u = rng_unit(&in->rng) * total;
    int pick = -1;
    for (int i = 0; i < c->n && (pick < 0 || u >= 0); i++) {
        if (c->weight[i] <= 0)
            continue;
        pick = i;
        u -= c->weight[i];
    }
    if (pick < 0)
        return -1;
    in->cov.chosen[k][pick]++;
    return c->variant[pick];
}

/* ---------- coverage reports ---------- */

static const char *mode_name(enum part_mode m)
{
    return m == PART_RANGE ? "range" : m == PART_BOUNDARY ? "boundary" : "boundary_pm1";
}

static uint64_t kind_draws(const struct input *in, int k)
{
    uint64_t t = 0;
    for (int i = 0; i < METIS_MAX_PARTS; i++)
        t += in->cov.part[k][i];
    return t;
}

static double share(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* The values partition i covers, as text: "0" or "[lo, hi)" (i < 64, so hi fits). */
static void part_range(int i, char *buf, size_t len)
{
    if (i == 0)
        snprintf(buf, len, "0");
    else
        snprintf(buf, len, "[%" PRIu64 ", %" PRIu64 ")", (uint64_t)1 << (i - 1), (uint64_t)1 << i);
}

static void text_args(const struct input *in, FILE *f)
{
    for (int k = 0; k < ARG_NKINDS; k++) {
        const struct partitions *p = &in->cfg->part[k];
        double tw = total_weight(p);
        uint64_t n = kind_draws(in, k);
        fprintf(f, "argument %s (%s), %" PRIu64 " draws\n", arg_kind_name(k), mode_name(p->mode), n);
        fprintf(f, "  %-4s %-26s %10s %9s %12s %9s\n", "part", "values", "weight", "expected",
                "drawn", "share");
        for (int i = 0; i < nparts_of(p); i++) {
            char r[64];
            part_range(i, r, sizeof r);
            double w = p->weight[i] > 0 ? p->weight[i] : 0;
            fprintf(f, "  %-4d %-26s %10.4g %9.4f %12" PRIu64 " %9.4f", i, r, p->weight[i],
                    tw > 0 ? w / tw : 0, in->cov.part[k][i], share(in->cov.part[k][i], n));
            if (p->mode != PART_RANGE && i > 0) {
                const uint64_t *b = in->cov.part_boundary[k][i];
                fprintf(f, "   -1:%" PRIu64 " 0:%" PRIu64 " +1:%" PRIu64, b[0], b[1], b[2]);
            }
            fputc('\n', f);
        }
    }
}

static void text_bits(const struct input *in, FILE *f)
{
    for (int k = 0; k < BM_NKINDS; k++) {
        const struct bitmap *b = &in->cfg->bits[k];
        uint64_t n = in->cov.bit_draws[k];
        fprintf(f, "bitmap %s, %" PRIu64 " draws\n", bitmap_kind_name(k), n);
        fprintf(f, "  %-14s %10s %9s %12s %9s\n", "bit", "value", "prob", "set", "observed");
        for (int i = 0; i < b->nbits && i < METIS_MAX_BITS; i++) {
            char v[16];
            /* Modes read best in octal, open flags in hex. */
            snprintf(v, sizeof v, k == BM_MODE ? "%#o" : "%#x", b->value[i]);
            fprintf(f, "  %-14s %10s %9.4f %12" PRIu64 " %9.4f\n", b->name[i] ? b->name[i] : "?", v,
                    b->prob[i], in->cov.bit_set[k][i], share(in->cov.bit_set[k][i], n));
        }
    }
}

void input_count_result(struct input *in, int err)
{
    if (in->last_existing && err == 0)
        in->cov.paths.existing_ok[in->last_op]++;
}

/* Per operation: how many draws took their path from the reference's tree, and how many of
 * those succeeded; then the appends and the block-boundary ends. */
void coverage_write_paths(const struct input *in, FILE *f)
{
    const struct draw_stats *d = &in->cov.paths;
    fprintf(f, "paths from the reference's tree ([pool] existing = %g)\n", in->cfg->pool.existing);
    fprintf(f, "  %-16s %10s %10s %9s %10s %9s\n", "operation", "drawn", "existing", "share",
            "succeeded", "rate");
    for (int op = 0; op < OP_COUNT; op++) {
        if (!in->cfg->op_weight[op] && !d->draws[op])
            continue;
        fprintf(f, "  %-16s %10" PRIu64 " %10" PRIu64 " %9.4f %10" PRIu64 " %9.4f\n", op_name(op),
                d->draws[op], d->existing[op], share(d->existing[op], d->draws[op]),
                d->existing_ok[op], share(d->existing_ok[op], d->existing[op]));
    }
    fprintf(f, "appends: %" PRIu64 " write_file with O_APPEND, %" PRIu64 " drawn with it but "
            "written in place (past the per-file bound of %" PRIu64 " bytes, or no regular file)\n",
            d->appends, d->appends_in_place, in->file_bound);
    for (int k = 0; k < ARG_NKINDS; k++) {
        if (k != ARG_WRITE_OFFSET && k != ARG_FALLOC_OFFSET)
            continue;
        const uint64_t *e = d->ends[k];
        fprintf(f, "block-boundary ends (%s, weight %g): %" PRIu64 " (-1:%" PRIu64 " 0:%" PRIu64
                " +1:%" PRIu64 "), %" PRIu64 " refused by the bound\n", k == ARG_WRITE_OFFSET ?
                "write_file" : "fallocate_file", in->cfg->end_boundary[k], e[0] + e[1] + e[2],
                e[0], e[1], e[2], d->ends_refused[k]);
    }
}

static double choice_total(const struct choice *c)
{
    double t = 0;
    for (int i = 0; i < c->n; i++)
        t += c->weight[i] > 0 ? c->weight[i] : 0;
    return t;
}

static uint64_t choice_draws(const struct input *in, int k)
{
    uint64_t n = 0;
    for (int i = 0; i < METIS_MAX_CHOICES; i++)
        n += in->cov.chosen[k][i];
    return n;
}

static void text_choices(const struct input *in, FILE *f)
{
    for (int k = 0; k < CH_NKINDS; k++) {
        const struct choice *c = &in->cfg->choice[k];
        double tw = choice_total(c);
        uint64_t n = choice_draws(in, k);
        fprintf(f, "choice %s, %" PRIu64 " draws\n", choice_kind_name(k), n);
        fprintf(f, "  %-16s %10s %10s %9s %12s %9s\n", "item", "value", "weight", "expected",
                "drawn", "share");
        for (int i = 0; i < c->n; i++) {
            double w = c->weight[i] > 0 ? c->weight[i] : 0;
            fprintf(f, "  %-16s %#10x %10.4g %9.4f %12" PRIu64 " %9.4f\n",
                    op_variant_name(c->variant[i]), op_variant_value(c->variant[i]), c->weight[i],
                    tw > 0 ? w / tw : 0, in->cov.chosen[k][i], share(in->cov.chosen[k][i], n));
        }
    }
}

void coverage_write_text(const struct input *in, FILE *f)
{
    text_args(in, f);
    text_bits(in, f);
    coverage_write_paths(in, f);
    text_choices(in, f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

/* JSON has no NaN or infinity; a bad weight is written as 0. */
static void json_number(FILE *f, double d)
{
    fprintf(f, "%.6g", d == d && d - d == 0 ? d : 0.0);
}

static void json_partition(FILE *f, const struct input *in, int k, int i, double tw)
{
    const struct partitions *p = &in->cfg->part[k];
    double w = p->weight[i] > 0 ? p->weight[i] : 0;
    uint64_t lo = i == 0 ? 0 : (uint64_t)1 << (i - 1);
    uint64_t hi = i == 0 ? 1 : lo * 2;     /* exclusive */
    fprintf(f, "{\"part\": %d, \"lo\": %" PRIu64 ", \"hi\": %" PRIu64 ", \"weight\": ", i, lo, hi);
    json_number(f, p->weight[i]);
    fprintf(f, ", \"expected\": ");
    json_number(f, tw > 0 ? w / tw : 0);
    fprintf(f, ", \"drawn\": %" PRIu64 ", \"share\": ", in->cov.part[k][i]);
    json_number(f, share(in->cov.part[k][i], kind_draws(in, k)));
    const uint64_t *b = in->cov.part_boundary[k][i];
    fprintf(f, ", \"boundary\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]}", b[0], b[1], b[2]);
}

static void json_args(const struct input *in, FILE *f)
{
    fprintf(f, "\"args\": {");
    for (int k = 0; k < ARG_NKINDS; k++) {
        const struct partitions *p = &in->cfg->part[k];
        fprintf(f, "%s", k ? ", " : "");
        json_string(f, arg_kind_name(k));
        fprintf(f, ": {\"mode\": \"%s\", \"draws\": %" PRIu64 ", \"partitions\": [",
                mode_name(p->mode), kind_draws(in, k));
        for (int i = 0; i < nparts_of(p); i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_partition(f, in, k, i, total_weight(p));
        }
        fprintf(f, "]}");
    }
    fprintf(f, "}");
}

static void json_bits(const struct input *in, FILE *f)
{
    fprintf(f, "\"bitmaps\": {");
    for (int k = 0; k < BM_NKINDS; k++) {
        const struct bitmap *b = &in->cfg->bits[k];
        uint64_t n = in->cov.bit_draws[k];
        fprintf(f, "%s", k ? ", " : "");
        json_string(f, bitmap_kind_name(k));
        fprintf(f, ": {\"draws\": %" PRIu64 ", \"bits\": [", n);
        for (int i = 0; i < b->nbits && i < METIS_MAX_BITS; i++) {
            fprintf(f, "%s{\"name\": ", i ? ", " : "");
            json_string(f, b->name[i] ? b->name[i] : "?");
            fprintf(f, ", \"value\": %u, \"prob\": ", b->value[i]);
            json_number(f, b->prob[i]);
            fprintf(f, ", \"set\": %" PRIu64 ", \"observed\": ", in->cov.bit_set[k][i]);
            json_number(f, share(in->cov.bit_set[k][i], n));
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "}");
}

static void json_paths(const struct input *in, FILE *f)
{
    const struct draw_stats *d = &in->cov.paths;
    fprintf(f, "\"paths\": {\"existing\": ");
    json_number(f, in->cfg->pool.existing);
    fprintf(f, ", \"ops\": {");
    for (int op = 0; op < OP_COUNT; op++)
        fprintf(f, "%s\"%s\": {\"drawn\": %" PRIu64 ", \"existing\": %" PRIu64
                ", \"existing_ok\": %" PRIu64 "}", op ? ", " : "", op_name(op), d->draws[op],
                d->existing[op], d->existing_ok[op]);
    fprintf(f, "}, \"appends\": %" PRIu64 ", \"appends_in_place\": %" PRIu64, d->appends,
            d->appends_in_place);
    const uint64_t *w = d->ends[ARG_WRITE_OFFSET], *a = d->ends[ARG_FALLOC_OFFSET];
    fprintf(f, ", \"boundary_ends\": {\"write_file\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
            "], \"fallocate_file\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]}}", w[0], w[1], w[2],
            a[0], a[1], a[2]);
}

static void json_choices(const struct input *in, FILE *f)
{
    fprintf(f, "\"choices\": {");
    for (int k = 0; k < CH_NKINDS; k++) {
        const struct choice *c = &in->cfg->choice[k];
        double tw = choice_total(c);
        fprintf(f, "%s", k ? ", " : "");
        json_string(f, choice_kind_name(k));
        fprintf(f, ": {\"draws\": %" PRIu64 ", \"items\": [", choice_draws(in, k));
        for (int i = 0; i < c->n; i++) {
            fprintf(f, "%s{\"name\": ", i ? ", " : "");
            json_string(f, op_variant_name(c->variant[i]));
            fprintf(f, ", \"value\": %u, \"weight\": ", op_variant_value(c->variant[i]));
            json_number(f, c->weight[i]);
            fprintf(f, ", \"expected\": ");
            json_number(f, tw > 0 ? (c->weight[i] > 0 ? c->weight[i] : 0) / tw : 0);
            fprintf(f, ", \"drawn\": %" PRIu64 "}", in->cov.chosen[k][i]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "}");
}

void coverage_write_json(const struct input *in, FILE *f)
{
    fprintf(f, "{");
    json_args(in, f);
    fprintf(f, ", ");
    json_bits(in, f);
    fprintf(f, ", ");
    json_paths(in, f);
    fprintf(f, ", ");
    json_choices(in, f);
    fprintf(f, "}\n");
}
