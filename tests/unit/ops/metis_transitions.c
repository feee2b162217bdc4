/* Unit tests of the bounded search's transition table (fs-state/engine/ops/transitions.c): counts per operation, representatives per partition, bitmaps, lacks, no transition twice, data fixed by the arguments, and search = bounded's config checks. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"
#include "engine/ops/transitions.h"

static char tr_dir[64], tr_path[128];

static void tr_setup(void)
{
    snprintf(tr_dir, sizeof tr_dir, "/tmp/metis-transitions-XXXXXX");
    cr_assert_not_null(mkdtemp(tr_dir));
}

static void tr_teardown(void)
{
    unlink(tr_path);
    rmdir(tr_dir);
}

TestSuite(metis_transitions, .init = tr_setup, .fini = tr_teardown);

/* A one-fs config (its [fs] with fs_keys) with every operation off but those the body names,
 * then the body. */
static int tr_load_fs(const char *fs_keys, const char *body, struct metis_config *cfg, char *err,
                      size_t len)
{
    snprintf(tr_path, sizeof tr_path, "%s/t.ini", tr_dir);
    FILE *f = fopen(tr_path, "w");
    cr_assert_not_null(f);
    fprintf(f, "[run]\nsearch = bounded\nmax_depth = 2\n[fs ref]\ntype = reffs\n%s"
            "[pool]\ndirs = 1\nfiles = 1\ndepth = 1\nxattr_names = 1\n"
            "[bits]\nopen_flags =\nmode = ur:1 uw:1\n[ops]\n", fs_keys);
    for (int op = 0; op < OP_COUNT; op++)
        fprintf(f, "%s = 0\n", op_name(op));
    fputs(body, f);
    fclose(f);
    err[0] = '\0';
    return config_load(tr_path, cfg, err, len);
}

static int tr_load(const char *body, struct metis_config *cfg, char *err, size_t len)
{
    return tr_load_fs("", body, cfg, err, len);
}

static void tr_build_fs(const char *fs_keys, const char *body, struct input *in,
                        struct transitions *tt)
{
    static struct metis_config cfg;
    char err[512];
    cr_assert_eq(tr_load_fs(fs_keys, body, &cfg, err, sizeof err), 0, "%s", err);
    cr_assert_eq(input_init(in, &cfg, 1), 0);
    cr_assert_eq(transitions_build(in, tt), 0);
}

static void tr_build(const char *body, struct input *in, struct transitions *tt)
{
    tr_build_fs("", body, in, tt);
}

static void tr_done(struct input *in, struct transitions *tt)
{
    transitions_free(tt);
    input_free(in);
}

Test(metis_transitions, paths_and_partitions_give_the_counts)
{
    struct input in;
    struct transitions tt;
    /* Pool: /d0, /f0, /d0/f0. Writes: 2 files x 2 offsets x 2 sizes; truncate: 2 x 2. */
    tr_build("create_file = 1\nwrite_file = 5\ntruncate = 1\nunlink = 1\nmkdir = 1\nrmdir = 1\n"
             "[sizes]\nwrite_size = 0:1 4:1\nwrite_offset = 0:1 4:1\ntrunc_size = 0:1 4:1\n"
             "write_end_boundary = 0\n", &in, &tt);
    cr_expect_eq(tt.per_op[OP_create_file], 2);
    cr_expect_eq(tt.per_op[OP_write_file], 8, "the weight 5 does not count");
    cr_expect_eq(tt.per_op[OP_truncate], 4);
    cr_expect_eq(tt.per_op[OP_unlink], 3);
    cr_expect_eq(tt.per_op[OP_mkdir], 1);
    cr_expect_eq(tt.per_op[OP_rmdir], 3);
    cr_expect_eq(tt.total, 21);
    cr_expect_eq(tt.n, 21);
    tr_done(&in, &tt);
}

Test(metis_transitions, boundary_pm1_gives_three_values_per_partition)
{
    static struct metis_config cfg;
    char err[512];
    uint64_t v[3 * METIS_MAX_PARTS];
    cr_assert_eq(tr_load("truncate = 1\n[sizes]\ntrunc_size = 0:1 8:1\n"
                         "trunc_size_mode = boundary_pm1\n", &cfg, err, sizeof err), 0, "%s", err);
    int n = kind_values(&cfg, ARG_TRUNC_SIZE, v);
    cr_assert_eq(n, 4);
    cr_expect(v[0] == 0 && v[1] == 7 && v[2] == 8 && v[3] == 9);
}

Test(metis_transitions, loose_bits_are_enumerated_both_ways)
{
    struct input in;
    struct transitions tt;
    tr_build("chmod = 1\n[bits]\nmode = ur:1 uw:0.5 ux:0.3 gr:0\n", &in, &tt);
    cr_expect_eq(tt.per_op[OP_chmod], 3 * 4, "3 paths x 2 loose bits");
    for (size_t i = 0; i < tt.n; i++)
        cr_expect((tt.t[i].mode & 0400) && !(tt.t[i].mode & 040), "mode %o", tt.t[i].mode);
    tr_done(&in, &tt);
}

Test(metis_transitions, lacked_variants_are_left_out)
{
    struct input in;
    struct transitions tt;
    tr_build_fs("lacks = rename:exchange,fallocate:insert\n", "rename = 1\nfallocate_file = 1\n"
             "[sizes]\nfalloc_offset = 0:1\nfalloc_len = 0:1\nfalloc_end_boundary = 0\n",
             &in, &tt);
    cr_expect_eq(tt.per_op[OP_rename], 2 * 3 * 3, "plain and noreplace over 3 x 3 paths");
    for (size_t i = 0; i < tt.n; i++) {
        cr_expect(tt.t[i].op != OP_rename || tt.t[i].flags != RENAME_EXCHANGE);
        cr_expect(tt.t[i].op != OP_fallocate_file || tt.t[i].flags != FALLOC_FL_INSERT_RANGE);
    }
    tr_done(&in, &tt);
}

Test(metis_transitions, no_transition_twice_and_data_fixed_by_arguments)
{
    struct input in;
    struct transitions tt;
    char a[2 * METIS_PATH_MAX + 512], b[2 * METIS_PATH_MAX + 512];
    tr_build("write_file = 1\nsetxattr = 1\nsymlink = 1\nutimes = 1\n[sizes]\n"
             "write_size = 0:1 4:1\nwrite_offset = 0:1 4096:1\nxattr_size = 0:1 2:1\n",
             &in, &tt);
    static struct op_args x, y;    /* two paths of PATH_MAX each: not on the stack */
    for (size_t i = 0; i < tt.n; i++) {
        transition_expand(&tt, i, &x);
        op_format(&x, a, sizeof a);
        for (size_t j = i + 1; j < tt.n; j++) {
            transition_expand(&tt, j, &y);
            op_format(&y, b, sizeof b);
            cr_expect_str_neq(a, b, "transition %zu is %zu", i, j);
        }
    }
    struct transitions again;
    cr_assert_eq(transitions_build(&in, &again), 0);
    cr_assert_eq(again.n, tt.n);
    for (size_t i = 0; i < tt.n; i++)
        cr_expect_eq(again.t[i].data_seed, tt.t[i].data_seed);
    transitions_free(&again);
    tr_done(&in, &tt);
}

Test(metis_transitions, bounded_refuses_what_is_drawn_at_random)
{
    static struct metis_config cfg;
    char err[512];
    cr_expect_eq(tr_load("unlink = 1\n[run]\ndive = 5\n", &cfg, err, sizeof err), -1);
    cr_expect(strstr(err, ":2: search = bounded: dive must be 0") != NULL, "%s", err);
    cr_expect_eq(tr_load("unlink = 1\n[vary]\nlong_names = 0.5\n", &cfg, err, sizeof err), -1);
    cr_expect(strstr(err, "[vary] must be off") != NULL, "%s", err);
    cr_expect_eq(tr_load("unlink = 1\n[run]\nsearch = bfs\n", &cfg, err, sizeof err), -1);
    cr_expect(strstr(err, "not dfs, random or bounded") != NULL, "%s", err);
}

Test(metis_transitions, a_table_above_256_is_grouped_and_held_whole)
{
    struct input in;
    struct transitions tt;
    /* chmod: 3 paths x 2^8 modes = 768; mkdir: 1 x 256; create_file: 2 files x 256 x 2 flags. */
    tr_build("chmod = 1\nmkdir = 1\ncreate_file = 1\n[bits]\nopen_flags = trunc:0.5\n"
             "mode = ur:1 uw:0.5 ux:0.5 gr:0.5 gw:0.5 gx:0.5 or:0.5 ow:0.5 ox:0.5\n", &in, &tt);
    cr_assert_eq(tt.total, 768 + 256 + 1024);
    cr_expect_eq(tt.n, tt.total, "every transition held");
    cr_expect(transitions_grouped(&tt));
    cr_expect_eq(transitions_groups(&tt), (tt.n + TRANSITIONS_GROUP - 1) / TRANSITIONS_GROUP);
    static struct op_args a;
    transition_expand(&tt, tt.n - 1, &a);
    cr_expect_eq(a.op, tt.t[tt.n - 1].op);
    cr_expect_str_eq(a.path, tt.t[tt.n - 1].path);
    tr_done(&in, &tt);
}
