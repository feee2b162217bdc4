/* Unit tests of the input driver (fs-state/engine/input.c): determinism, the name pool, partition and bitmap statistics. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"

static struct metis_config inpt_cfg;

static void inpt_setup(void)
{
    config_defaults(&inpt_cfg);
}

TestSuite(metis_input, .init = inpt_setup);

static int inpt_bits_of(uint64_t v)
{
    return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

/* |observed - n p| within 4.5 standard deviations of a binomial (false alarm ~1e-5 per check). */
static void inpt_binomial(uint64_t observed, uint64_t n, double p, const char *what)
{
    double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));
    double tol = 4.5 * sd + 1e-9;
    cr_assert(fabs((double)observed - mean) <= tol, "%s: %llu of %llu, expected %.1f +- %.1f", what,
              (unsigned long long)observed, (unsigned long long)n, mean, tol);
}

Test(metis_input, same_seed_same_sequence)
{
    struct input a, b, c;
    cr_assert_eq(input_init(&a, &inpt_cfg, 5), 0);
    cr_assert_eq(input_init(&b, &inpt_cfg, 5), 0);
    cr_assert_eq(input_init(&c, &inpt_cfg, 6), 0);
    int differ = 0;
    for (int i = 0; i < 5000; i++) {
        struct op_args x, y, z;
        char tx[METIS_OP_LINE_MAX], ty[METIS_OP_LINE_MAX], tz[METIS_OP_LINE_MAX];
        op_draw((enum op_id)(i % OP_COUNT), &a, &x);
        op_draw((enum op_id)(i % OP_COUNT), &b, &y);
        op_draw((enum op_id)(i % OP_COUNT), &c, &z);
        op_format(&x, tx, sizeof tx);
        op_format(&y, ty, sizeof ty);
        op_format(&z, tz, sizeof tz);
        cr_assert_str_eq(tx, ty);
        differ += strcmp(tx, tz) != 0;
    }
    cr_assert_eq(memcmp(&a.cov, &b.cov, sizeof a.cov), 0);
    cr_assert_gt(differ, 2500, "seed 6 repeated seed 5's draws");
    input_free(&a);
    input_free(&b);
    input_free(&c);
}

Test(metis_input, rng_below_uniform)
{
    struct rng r;
    rng_seed(&r, 1);
    enum { N = 7, DRAWS = 70000 };
    uint64_t count[N] = { 0 };
    for (int i = 0; i < DRAWS; i++)
        count[rng_below(&r, N)]++;
    double chi = 0;
    for (int i = 0; i < N; i++)
        chi += pow((double)count[i] - DRAWS / N, 2) / (DRAWS / N);
    cr_assert_lt(chi, 27.9, "chi-square %.1f with 6 degrees of freedom (p < 1e-4)", chi);
    for (int i = 0; i < 1000; i++) {
        double u = rng_unit(&r);
        cr_assert(u >= 0 && u < 1);
    }
    cr_assert_eq(rng_below(&r, 1), 0);
    cr_assert_eq(rng_below(&r, 0), 0);
}

Test(metis_input, pool_names)
{
    inpt_cfg.pool.dirs = 2;
    inpt_cfg.pool.files = 3;
    inpt_cfg.pool.depth = 2;
    inpt_cfg.pool.name_len = 0;
    inpt_cfg.pool.xattr_names = 3;
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 1), 0);
    cr_assert_eq(in.pool.ndirs, 2 + 4);
    cr_assert_eq(in.pool.nfiles, 3 * (1 + 6));
    cr_assert_eq(in.pool.nxattrs, 3);
    cr_assert_str_eq(in.pool.xattrs[2], "user.x2");
    const char *want_dirs[] = { "/d0", "/d0/d0", "/d0/d1", "/d1", "/d1/d0", "/d1/d1" };
    for (int i = 0; i < 6; i++)
        cr_assert_str_eq(in.pool.dirs[i], want_dirs[i]);
    int root_files = 0, has_d1d0f2 = 0;
    for (int i = 0; i < in.pool.nfiles; i++) {
        root_files += strchr(in.pool.files[i] + 1, '/') == NULL;
        has_d1d0f2 |= strcmp(in.pool.files[i], "/d1/d0/f2") == 0;
    }
    cr_assert_eq(root_files, 3);
    cr_assert(has_d1d0f2);
    input_free(&in);

    inpt_cfg.pool.name_len = 12;
    cr_assert_eq(input_init(&in, &inpt_cfg, 1), 0);
    cr_assert_str_eq(in.pool.dirs[0], "/d0xxxxxxxxxx");
    cr_assert_str_eq(in.pool.dirs[1], "/d0xxxxxxxxxx/d0xxxxxxxxxx");
    for (int i = 0; i < in.pool.nfiles; i++) {
        const char *last = strrchr(in.pool.files[i], '/') + 1;
        cr_assert_eq(strlen(last), 12, "%s", in.pool.files[i]);
    }
    input_free(&in);
}

Test(metis_input, pool_draws)
{
    inpt_cfg.pool.nuids = 2;
    inpt_cfg.pool.uids[0] = 0;
    inpt_cfg.pool.uids[1] = 1000;
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 3), 0);
    int keep = 0, root_dir = 0;
    for (int i = 0; i < 3000; i++) {
        uint32_t u = input_uid(&in);
        cr_assert(u == 0 || u == 1000 || u == (uint32_t)-1);
        keep += u == (uint32_t)-1;
        root_dir += strcmp(input_dir(&in), "/") == 0;
        cr_assert_eq(input_file(&in)[0], '/');
    }
    inpt_binomial((uint64_t)keep, 3000, 1.0 / 3, "uid -1");
    inpt_binomial((uint64_t)root_dir, 3000, 1.0 / (in.pool.ndirs + 1), "dir /");
    input_free(&in);
}

/* Draws n values of kind k and checks partition shares and that every value lies in its partition. */
static void inpt_check_parts(struct input *in, enum arg_kind k, int n)
{
    const struct partitions *p = &inpt_cfg.part[k];
    double total = 0;
    for (int i = 0; i < p->nparts; i++)
        total += p->weight[i];
    uint64_t seen[METIS_MAX_PARTS] = { 0 };
    for (int i = 0; i < n; i++) {
        uint64_t v = input_value(in, k);
        int part = inpt_bits_of(v);
        if (p->mode == PART_RANGE) {
            seen[part]++;
            continue;
        }
        /* Boundary values: find the partition whose lower bound is within 1 of v. */
        int found = -1;
        for (int q = 0; q < p->nparts; q++) {
            uint64_t lo = q ? (uint64_t)1 << (q - 1) : 0;
            int64_t d = (int64_t)(v - lo);
            if (q == 0 ? v == 0 && p->weight[0] > 0 : (p->mode == PART_BOUNDARY ? d == 0 : d >= -1 && d <= 1))
                found = q;
        }
        cr_assert_geq(found, 0, "value %llu is no boundary", (unsigned long long)v);
    }
    for (int i = 0; i < p->nparts; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s partition %d", arg_kind_name(k), i);
        inpt_binomial(in->cov.part[k][i], (uint64_t)n, p->weight[i] / total, what);
        if (p->mode == PART_RANGE)
            cr_assert_eq(seen[i], in->cov.part[k][i], "%s: values outside their range", what);
        if (p->weight[i] == 0)
            cr_assert_eq(in->cov.part[k][i], 0, "%s has weight 0 but was drawn", what);
    }
}

Test(metis_input, partitions_uniform)
{
    struct partitions *p = &inpt_cfg.part[ARG_WRITE_SIZE];
    p->nparts = 20;
    p->mode = PART_RANGE;
    for (int i = 0; i < 20; i++)
        p->weight[i] = 1;
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 11), 0);
    inpt_check_parts(&in, ARG_WRITE_SIZE, 100000);
    input_free(&in);
}

Test(metis_input, partitions_skewed)
{
    struct partitions *p = &inpt_cfg.part[ARG_TRUNC_SIZE];
    static const double w[] = { 5, 0, 1, 0.1, 20, 0, 3, 0.5, 64 };
    p->nparts = 9;
    p->mode = PART_RANGE;
    memcpy(p->weight, w, sizeof w);
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 12), 0);
    inpt_check_parts(&in, ARG_TRUNC_SIZE, 100000);
    input_free(&in);
}

Test(metis_input, partitions_boundaries)
{
    struct partitions *p = &inpt_cfg.part[ARG_FALLOC_LEN];
    p->nparts = 64;
    for (int i = 0; i < 64; i++)
        p->weight[i] = 1;
    p->mode = PART_BOUNDARY_PM1;
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 13), 0);
    inpt_check_parts(&in, ARG_FALLOC_LEN, 64000);
    uint64_t side[3] = { 0 }, n = 0;
    for (int i = 1; i < 64; i++)
        for (int j = 0; j < 3; j++) {
            side[j] += in.cov.part_boundary[ARG_FALLOC_LEN][i][j];
            n += in.cov.part_boundary[ARG_FALLOC_LEN][i][j];
        }
    for (int j = 0; j < 3; j++)
        inpt_binomial(side[j], n, 1.0 / 3, "boundary side");
    p->mode = PART_BOUNDARY;
    memset(&in.cov, 0, sizeof in.cov);
    inpt_check_parts(&in, ARG_FALLOC_LEN, 64000);
    input_free(&in);
}

Test(metis_input, bitmap_probabilities)
{
    struct bitmap *b = &inpt_cfg.bits[BM_MODE];
    static const double prob[] = { 0.1, 0.5, 0.9, 0, 1, 0.01 };
    b->nbits = 6;
    for (int i = 0; i < 6; i++) {
        b->value[i] = 1u << i;
        b->prob[i] = prob[i];
    }
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 21), 0);
    enum { N = 50000 };
    uint64_t set[6] = { 0 };
    for (int n = 0; n < N; n++) {
        unsigned v = input_bitmap(&in, BM_MODE);
        cr_assert_eq(v & ~0x3fu, 0);
        for (int i = 0; i < 6; i++)
            set[i] += (v >> i) & 1;
    }
    cr_assert_eq(in.cov.bit_draws[BM_MODE], N);
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(set[i], in.cov.bit_set[BM_MODE][i]);
        inpt_binomial(set[i], N, prob[i], b->name[i] ? b->name[i] : "bit");
    }
    cr_assert_eq(set[3], 0);
    cr_assert_eq(set[4], N);
    input_free(&in);
}

/* Draws from every kind so the reports have something in every table. */
static void inpt_fill(struct input *in)
{
    for (int i = 0; i < 2000; i++) {
        struct op_args a;
        op_draw((enum op_id)(i % OP_COUNT), in, &a);
    }
}

Test(metis_input, coverage_text)
{
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 31), 0);
    inpt_fill(&in);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    coverage_write_text(&in, f);
    fclose(f);
    for (int k = 0; k < ARG_NKINDS; k++)
        cr_assert_not_null(strstr(text, arg_kind_name(k)), "no table for %s", arg_kind_name(k));
    for (int k = 0; k < BM_NKINDS; k++)
        cr_assert_not_null(strstr(text, bitmap_kind_name(k)));
    cr_assert_not_null(strstr(text, "expected"));
    free(text);
    input_free(&in);
}

Test(metis_input, coverage_json_parses)
{
    struct input in;
    cr_assert_eq(input_init(&in, &inpt_cfg, 32), 0);
    inpt_fill(&in);
    char path[] = "/tmp/metis-input-json-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    coverage_write_json(&in, f);
    fclose(f);
    input_free(&in);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
             "assert d[\"args\"][\"%s\"][\"draws\"] > 0; assert d[\"bitmaps\"]' %s 2>&1",
             arg_kind_name(ARG_WRITE_SIZE), path);
    int rc = system(cmd);
    unlink(path);
    if (rc == 127 << 8)
        cr_skip_test("python3 is not installed");
    cr_assert_eq(rc, 0, "coverage JSON does not parse");
}
