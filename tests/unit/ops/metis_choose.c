/* Unit tests of state-aware draws (fs-state/engine/choose.c, ops.c): paths from the reference's tree, block-boundary ends, bounded appends, per-search variants and seeds. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/input/choose.h"
#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"
#include "engine/run/searches.h"
#include "engine/input/vary.h"
#include "engine/input/view.h"

static struct metis_config ch_cfg;

static void ch_setup(void)
{
    config_defaults(&ch_cfg);
}

TestSuite(metis_choose, .init = ch_setup);

struct ch_entry { const char *path; mode_t mode; uint64_t nlink, size; };

static int ch_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ch_entry *)a)->path, ((const struct ch_entry *)b)->path);
}

/* A view of the given entries (the root added), sorted as the abstraction sorts them. */
static struct tree_view *ch_view(struct ch_entry *e, size_t n)
{
    struct tree_index t = { 0 };
    struct ch_entry all[64];
    all[0] = (struct ch_entry){ "/", S_IFDIR | 0755, 3, 0 };
    memcpy(all + 1, e, n * sizeof *e);
    qsort(all, n + 1, sizeof *all, ch_cmp);
    t.e = calloc(n + 1, sizeof *t.e);
    t.names = calloc(1, 4096);
    for (size_t i = 0; i <= n; i++) {
        t.e[i] = (struct tree_index_entry){ t.len, all[i].mode, all[i].nlink, all[i].size };
        strcpy(t.names + t.len, all[i].path);
        t.len += strlen(all[i].path) + 1;
    }
    t.n = n + 1;
    struct tree_view *v = view_make(&t);
    tree_index_free(&t);
    cr_assert_not_null(v);
    return v;
}

/* /d0 holding /d0/f0, /f1 with two links, /f0 a symlink, and /d0/x9, a name outside the pool. */
static struct tree_view *ch_sample(void)
{
    struct ch_entry e[] = {
        { "/d0", S_IFDIR | 0755, 2, 0 },
        { "/d0/f0", S_IFREG | 0644, 1, 100 },
        { "/f1", S_IFREG | 0644, 2, 5000 },
        { "/f0", S_IFLNK | 0777, 1, 2 },
        { "/d0/x9", S_IFREG | 0644, 1, 7 },         /* not a pool name: never drawn */
    };
    return ch_view(e, sizeof e / sizeof e[0]);
}

static void ch_draw(struct input *in, enum op_id op, struct op_args *a)
{
    op_draw(op, in, a);
}

Test(metis_choose, existing_zero_draws_as_without_a_tree)
{
    ch_cfg.pool.existing = 0;
    ch_cfg.end_boundary[ARG_WRITE_OFFSET] = ch_cfg.end_boundary[ARG_FALLOC_OFFSET] = 0;
    ch_cfg.bits[BM_OPEN_FLAGS].prob[3] = 0;        /* append */
    struct tree_view *v = ch_sample();
    struct input a, b;
    cr_assert_eq(input_init(&a, &ch_cfg, 9), 0);
    cr_assert_eq(input_init(&b, &ch_cfg, 9), 0);
    b.view = v;
    for (int i = 0; i < 3000; i++) {
        struct op_args x, y;
        char tx[METIS_OP_LINE_MAX], ty[METIS_OP_LINE_MAX];
        ch_draw(&a, (enum op_id)(i % OP_COUNT), &x);
        ch_draw(&b, (enum op_id)(i % OP_COUNT), &y);
        op_format(&x, tx, sizeof tx);
        op_format(&y, ty, sizeof ty);
        /* The one exception: /d0 (with /d0/f0) renamed to the second level gets another
         * destination, and so takes one more draw; the drawing stops comparing there. */
        if (x.op == OP_rename && !strcmp(x.path, "/d0") && strchr(x.path2 + 1, '/')) {
            cr_assert(strcmp(y.path2, x.path2), "%s", ty);
            break;
        }
        cr_assert_str_eq(tx, ty);
    }
    input_free(&a);
    input_free(&b);
    view_free(v);
}

static int ch_levels(const char *p)
{
    int n = 0;
    for (; *p; p++)
        n += *p == '/';
    return n;
}

Test(metis_choose, renames_never_carry_entries_below_the_pool)
{
    struct tree_view *v = ch_sample();
    for (int existing = 0; existing <= 1; existing++) {
        ch_cfg.pool.existing = existing;
        struct input in;
        cr_assert_eq(input_init(&in, &ch_cfg, 5), 0);
        in.view = v;
        int moved = 0;
        for (int i = 0; i < 3000; i++) {
            struct op_args a;
            ch_draw(&in, OP_rename, &a);
            if (!strcmp(a.path, "/d0")) {        /* /d0/f0 lands one level below path2 */
                cr_assert_leq(ch_levels(a.path2) + 1, ch_cfg.pool.depth + 1, "%s", a.path2);
                moved++;
            }
            if (a.flags == RENAME_EXCHANGE && !strcmp(a.path2, "/d0"))
                cr_assert_leq(ch_levels(a.path) + 1, ch_cfg.pool.depth + 1, "%s", a.path);
        }
        cr_assert_gt(moved, 50, "renames of /d0 drawn: %d", moved);
        input_free(&in);
    }
    view_free(v);
}

Test(metis_choose, existing_one_takes_paths_of_the_right_kind)
{
    ch_cfg.pool.existing = 1;
    struct tree_view *v = ch_sample();
    struct input in;
    cr_assert_eq(input_init(&in, &ch_cfg, 3), 0);
    in.view = v;
    int shared = 0, unlinks = 0;
    for (int i = 0; i < 2000; i++) {
        struct op_args a;
        ch_draw(&in, OP_write_file, &a);
        cr_assert(!strcmp(a.path, "/d0/f0") || !strcmp(a.path, "/f1"), "write %s", a.path);
        ch_draw(&in, OP_rmdir, &a);
        cr_assert_str_eq(a.path, "/d0");
        ch_draw(&in, OP_mkdir, &a);
        cr_assert_str_eq(a.path, "/d1", "the only missing pool directory with a parent");
        ch_draw(&in, OP_create_file, &a);
        cr_assert_str_eq(a.path, "/d0/f1", "the only missing pool file with a parent");
        ch_draw(&in, OP_unlink, &a);
        cr_assert(strcmp(a.path, "/d0") && strcmp(a.path, "/d0/x9"), "unlink %s", a.path);
        shared += !strcmp(a.path, "/f1");
        unlinks++;
        ch_draw(&in, OP_chmod, &a);
        cr_assert(strcmp(a.path, "/d0/x9") != 0);
    }
    /* Half the unlinks go to the shared inode, the other half uniformly over three names. */
    cr_expect(shared > unlinks * 0.6 && shared < unlinks * 0.73, "shared %d of %d", shared, unlinks);
    cr_expect_eq(in.cov.paths.existing[OP_write_file], 2000);
    cr_expect_eq(in.cov.paths.draws[OP_write_file], 2000);
    input_free(&in);
    view_free(v);
}

Test(metis_choose, rmdir_favours_empty_directories)
{
    ch_cfg.pool.existing = 1;
    ch_cfg.pool.depth = 2;                         /* /d0/d1 is a pool name */
    struct ch_entry e[] = {
        { "/d0", S_IFDIR | 0755, 3, 0 },
        { "/d0/d1", S_IFDIR | 0755, 2, 0 },        /* the one empty directory */
        { "/d0/f0", S_IFREG | 0644, 1, 100 },
        { "/d1", S_IFDIR | 0755, 2, 0 },
        { "/d1/f0", S_IFREG | 0644, 1, 100 },
    };
    struct tree_view *v = ch_view(e, sizeof e / sizeof e[0]);
    struct input in;
    cr_assert_eq(input_init(&in, &ch_cfg, 11), 0);
    in.view = v;
    int empty = 0, n = 3000;
    for (int i = 0; i < n; i++) {
        struct op_args a;
        ch_draw(&in, OP_rmdir, &a);
        cr_assert(!strcmp(a.path, "/d0") || !strcmp(a.path, "/d1") || !strcmp(a.path, "/d0/d1"),
                  "rmdir %s", a.path);
        empty += !strcmp(a.path, "/d0/d1");
    }
    /* Half the rmdirs go to the empty directory, the other half uniformly over three. */
    cr_expect(empty > n * 0.6 && empty < n * 0.73, "empty %d of %d", empty, n);
    input_free(&in);
    view_free(v);
}

Test(metis_choose, share_follows_existing_and_results_are_counted)
{
    ch_cfg.pool.existing = 0.3;
    struct tree_view *v = ch_sample();
    struct input in;
    cr_assert_eq(input_init(&in, &ch_cfg, 4), 0);
    in.view = v;
    for (int i = 0; i < 4000; i++) {
        struct op_args a;
        ch_draw(&in, OP_truncate, &a);
        input_count_result(&in, in.last_existing && i % 2 ? 0 : 2);
    }
    uint64_t ex = in.cov.paths.existing[OP_truncate];
    cr_expect(ex > 1080 && ex < 1320, "%llu of 4000 from the tree", (unsigned long long)ex);
    cr_expect_leq(in.cov.paths.existing_ok[OP_truncate], ex);
    cr_expect_gt(in.cov.paths.existing_ok[OP_truncate], 0);
    input_free(&in);
    view_free(v);
}

Test(metis_choose, block_boundary_ends)
{
    ch_cfg.pool.existing = 0;
    ch_cfg.end_boundary[ARG_WRITE_OFFSET] = 1;
    ch_cfg.end_boundary[ARG_FALLOC_OFFSET] = 1;
    ch_cfg.bits[BM_OPEN_FLAGS].prob[3] = 0;
    struct input in;
    cr_assert_eq(input_init(&in, &ch_cfg, 5), 0);
    uint64_t bound = 8193 + 8193;
    int on[3] = { 0 };
    for (int i = 0; i < 3000; i++) {
        struct op_args a;
        ch_draw(&in, i % 2 ? OP_write_file : OP_fallocate_file, &a);
        uint64_t end = a.offset + a.size, r = (end + 1) % 4096;
        cr_assert_leq(end, bound);
        if (r <= 2)
            on[r]++;
    }
    const struct draw_stats *d = &in.cov.paths;
    uint64_t ends = 0;
    for (int j = 0; j < 3; j++)
        ends += d->ends[ARG_WRITE_OFFSET][j] + d->ends[ARG_FALLOC_OFFSET][j];
    cr_expect_eq(ends + d->ends_refused[ARG_WRITE_OFFSET] + d->ends_refused[ARG_FALLOC_OFFSET],
                 3000);
    cr_expect_geq((uint64_t)(on[0] + on[1] + on[2]), ends);
    cr_expect_gt(on[1], 500, "ends exactly on a boundary: %d", on[1]);
    input_free(&in);
}

Test(metis_choose, appends_stay_within_the_per_file_bound)
{
    ch_cfg.pool.existing = 1;
    ch_cfg.end_boundary[ARG_WRITE_OFFSET] = 0;
    ch_cfg.bits[BM_OPEN_FLAGS].prob[3] = 1;         /* every write draws append */
    ch_cfg.bits[BM_OPEN_FLAGS].prob[2] = 0;         /* no O_TRUNC */
    struct tree_view *v = ch_sample();
    struct input in;
    cr_assert_eq(input_init(&in, &ch_cfg, 6), 0);
    in.view = v;
    for (int i = 0; i < 2000; i++) {
        struct op_args a;
        ch_draw(&in, OP_write_file, &a);
        uint64_t size = !strcmp(a.path, "/f1") ? 5000 : 100;
        if (a.flags & O_APPEND) {
            cr_assert_eq(a.offset, size, "an append is logged where it lands");
            cr_assert_leq(a.offset + a.size, in.file_bound);
        } else {
            cr_assert_gt(size + a.size, in.file_bound, "append refused within the bound");
        }
    }
    cr_expect_gt(in.cov.paths.appends, 1000);
    cr_expect_eq(in.cov.paths.appends + in.cov.paths.appends_in_place, 2000);
    in.view = NULL;                                  /* no tree: no size, no append */
    struct op_args a;
    ch_draw(&in, OP_write_file, &a);
    cr_expect_eq(a.flags & O_APPEND, 0);
    input_free(&in);
    view_free(v);
}

Test(metis_choose, same_seed_and_tree_same_draws)
{
    struct tree_view *v = ch_sample();
    struct input a, b;
    cr_assert_eq(input_init(&a, &ch_cfg, 11), 0);
    cr_assert_eq(input_init(&b, &ch_cfg, 11), 0);
    a.view = b.view = v;
    for (int i = 0; i < 3000; i++) {
        struct op_args x, y;
        ch_draw(&a, (enum op_id)(i % OP_COUNT), &x);
        ch_draw(&b, (enum op_id)(i % OP_COUNT), &y);
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "draw %d", i);
    }
    cr_assert_eq(memcmp(&a.cov, &b.cov, sizeof a.cov), 0);
    input_free(&a);
    input_free(&b);
    view_free(v);
}

Test(metis_choose, variants_follow_the_seed)
{
    int longs = 0, fills = 0;
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        struct metis_config c = ch_cfg, d;
        c.vary.long_names = 0.25;
        c.vary.fill = 0.5;
        c.run.seed = seed;
        vary_apply(&c);
        d = c;
        vary_apply(&d);
        cr_assert_eq(memcmp(&c, &d, sizeof c), 0, "vary_apply is idempotent");
        longs += c.vary.long_names_on;
        fills += c.vary.fill_on;
        cr_assert_eq(c.pool.name_len, c.vary.long_names_on ? 255 : 0);
    }
    cr_expect(longs > 420 && longs < 580, "long names in %d of 2000", longs);
    cr_expect(fills > 900 && fills < 1100, "fill in %d of 2000", fills);
    struct metis_config deep = ch_cfg;
    deep.pool.depth = 16;
    deep.vary.long_names = 1;
    vary_apply(&deep);
    cr_expect_eq(deep.vary.long_names_on, 0, "paths of 17 names of 255 bytes do not fit");
}

Test(metis_choose, search_seeds)
{
    cr_expect_eq(search_seed(42, 1), 42);
    cr_expect_eq(search_seed(42, 0), 42);
    cr_expect_neq(search_seed(42, 2), 42);
    cr_expect_neq(search_seed(42, 2), search_seed(42, 3));
    cr_expect_neq(search_seed(42, 2), search_seed(43, 2));
    cr_expect_eq(search_seed(42, 7), search_seed(42, 7));
}
