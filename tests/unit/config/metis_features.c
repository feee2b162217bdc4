/* Unit tests of [fs] lacks (engine/features.c and its use): each word's ignores and the ops and variants it keeps out of the draw, through config_load; the new ignore bits in listings and comparisons; the rename draw; the declaration hint; an unknown word refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/config/config.h"
#include "engine/vocab/differs.h"
#include "engine/vocab/features.h"
#include "engine/classify/hints.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"
#include "tree/diff.h"
#include "tree/tree.h"

static char ft_dir[64], ft_path[128];

static void ft_setup(void)
{
    snprintf(ft_dir, sizeof ft_dir, "/tmp/metis-features-XXXXXX");
    cr_assert_not_null(mkdtemp(ft_dir));
    snprintf(ft_path, sizeof ft_path, "%s/lacks.ini", ft_dir);
}

static void ft_teardown(void)
{
    unlink(ft_path);
    rmdir(ft_dir);
}

TestSuite(features, .init = ft_setup, .fini = ft_teardown);

/* Loads two RefFS file systems, the second declaring lacks = words; 0 or -1 with err. */
static int ft_load(const char *words, struct metis_config *cfg, char *err, size_t len)
{
    FILE *f = fopen(ft_path, "w");
    cr_assert_not_null(f);
    fprintf(f, "[fs ref]\ntype = reffs\n[fs sut]\ntype = reffs\nlacks = %s\n", words);
    fclose(f);
    return config_load(ft_path, cfg, err, len);
}

static int ft_variant_lacked(const struct metis_config *cfg, const char *variant)
{
    return (int)((cfg->lacked_variants >> op_variant_lookup(variant)) & 1);
}

static double ft_choice_weight(const struct metis_config *cfg, enum choice_kind k, const char *v)
{
    const struct choice *c = &cfg->choice[k];
    for (int i = 0; i < c->n; i++)
        if (c->variant[i] == op_variant_lookup(v))
            return c->weight[i];
    cr_assert_fail("no item %s", v);
    return -1;
}

/* What one word must take out: its ignores, its operations (weight 0) and its variant. */
struct ft_case {
    const char *word;
    unsigned ignore;
    enum op_id op1, op2;        /* OP_COUNT: none */
    const char *variant;        /* NULL: none */
};

static const struct ft_case ft_cases[] = {
    { "hardlinks", 0, OP_link, OP_COUNT, NULL },
    { "symlinks", 0, OP_symlink, OP_COUNT, NULL },
    { "xattrs", TREE_IGNORE_XATTRS, OP_setxattr, OP_removexattr, NULL },
    { "owners", TREE_IGNORE_OWNER, OP_chown_file, OP_chgrp_file, NULL },
    { "modes", TREE_IGNORE_MODE, OP_chmod, OP_COUNT, NULL },
    { "setid", TREE_IGNORE_SETID, OP_COUNT, OP_COUNT, NULL },
    { "sparse", 0, OP_COUNT, OP_COUNT, NULL },
    { "fallocate:allocate", 0, OP_COUNT, OP_COUNT, "allocate" },
    { "fallocate:keep_size", 0, OP_COUNT, OP_COUNT, "keep_size" },
    { "fallocate:punch_hole", 0, OP_COUNT, OP_COUNT, "punch_hole" },
    { "fallocate:zero_range", 0, OP_COUNT, OP_COUNT, "zero_range" },
    { "fallocate:zero_range_keep", 0, OP_COUNT, OP_COUNT, "zero_range_keep" },
    { "fallocate:collapse", 0, OP_COUNT, OP_COUNT, "collapse" },
    { "fallocate:insert", 0, OP_COUNT, OP_COUNT, "insert" },
    { "rename:noreplace", 0, OP_COUNT, OP_COUNT, "noreplace" },
    { "rename:exchange", 0, OP_COUNT, OP_COUNT, "exchange" },
    { "copy_file_range", 0, OP_copy_range, OP_COUNT, NULL },
    { "mknod:fifo", 0, OP_COUNT, OP_COUNT, "fifo" },
    { "mknod:socket", 0, OP_COUNT, OP_COUNT, "socket" },
    { "mknod:chr", 0, OP_COUNT, OP_COUNT, "chr" },
    { "mknod:blk", 0, OP_COUNT, OP_COUNT, "blk" },
    { "open_unlink", 0, OP_open_unlink, OP_COUNT, NULL },
    { "utimes", 0, OP_utimes, OP_COUNT, NULL },
    { "case_insensitive", 0, OP_COUNT, OP_COUNT, NULL },
    { "dir_nlink", TREE_IGNORE_DIR_NLINK, OP_COUNT, OP_COUNT, NULL },
    { "root_nlink", TREE_IGNORE_ROOT_NLINK, OP_COUNT, OP_COUNT, NULL },
};

static void ft_check_word(const struct ft_case *c)
{
    static struct metis_config cfg, plain;
    char err[1200];
    cr_assert_eq(ft_load("", &plain, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ft_load(c->word, &cfg, err, sizeof err), 0, "%s: %s", c->word, err);
    cr_expect_eq(cfg.lacked_ignore, c->ignore, "%s: ignores %#x", c->word, cfg.lacked_ignore);
    for (int i = 0; i < cfg.nfs; i++)   /* on every fs, not only the one that declares it */
        cr_expect_eq(cfg.fs[i].lacks_ignore, c->ignore, "%s on fs %d", c->word, i);
    for (int op = 0; op < OP_COUNT; op++) {
        int gone = op == (int)c->op1 || op == (int)c->op2;
        cr_expect_eq(cfg.op_weight[op], gone ? 0 : plain.op_weight[op], "%s: [ops] %s",
                     c->word, op_name(op));
        cr_expect_eq((int)((cfg.lacked_ops >> op) & 1), gone, "%s: lacked %s", c->word,
                     op_name(op));
    }
    for (int v = 0; v < op_variant_count(); v++)
        cr_expect_eq(ft_variant_lacked(&cfg, op_variant_name(v)),
                     c->variant && strcmp(c->variant, op_variant_name(v)) == 0, "%s: variant %s",
                     c->word, op_variant_name(v));
}

Test(features, every_word_maps_to_its_ignores_ops_and_variants)
{
    size_t n = sizeof ft_cases / sizeof ft_cases[0];
    cr_assert_eq((int)n, features_count(), "a word of features.c has no case here");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(feature_lookup(ft_cases[i].word), (int)i);
        ft_check_word(&ft_cases[i]);
    }
}

Test(features, variants_leave_the_choices_and_all_of_them_the_operation)
{
    static struct metis_config cfg;
    char err[1200];
    cr_assert_eq(ft_load("fallocate:punch_hole, mknod:fifo", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_eq(ft_choice_weight(&cfg, CH_FALLOC_MODE, "punch_hole"), 0);
    cr_expect_gt(ft_choice_weight(&cfg, CH_FALLOC_MODE, "zero_range"), 0);
    cr_expect_eq(ft_choice_weight(&cfg, CH_MKNOD_TYPE, "fifo"), 0);
    cr_expect_gt(cfg.op_weight[OP_fallocate_file], 0);
    cr_expect_gt(cfg.op_weight[OP_mknod], 0);
    /* chr and blk have weight 0 by default: lacking the two drawn types lacks mknod. */
    cr_assert_eq(ft_load("mknod:fifo mknod:socket", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_eq(cfg.op_weight[OP_mknod], 0);
    cr_expect((cfg.lacked_ops >> OP_mknod) & 1);
    cr_assert_eq(ft_load("rename:noreplace,rename:exchange", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_gt(cfg.op_weight[OP_rename], 0, "a plain rename is no lackable variant");
}

Test(features, setid_leaves_the_set_id_bits_out_of_the_mode_draws)
{
    static struct metis_config cfg;
    char err[1200];
    cr_assert_eq(ft_load("setid", &cfg, err, sizeof err), 0, "%s", err);
    const struct bitmap *m = &cfg.bits[BM_MODE];
    for (int b = 0; b < m->nbits; b++)
        if (m->value[b] & (S_ISUID | S_ISGID))
            cr_expect_eq(m->prob[b], 0, "%s", m->name[b]);
        else if (m->value[b] == S_ISVTX)
            cr_expect_gt(m->prob[b], 0);
}

Test(features, an_unknown_word_is_refused_with_file_line_key_and_the_valid_words)
{
    static struct metis_config cfg;
    char err[1200], want[256];
    cr_assert_eq(ft_load("xattrs, fallocate:punch", &cfg, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:5: lacks: unknown word 'fallocate:punch' (valid: hardlinks, ",
             ft_path);
    cr_expect_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    cr_expect(strstr(err, "fallocate:punch_hole"), "%s", err);
    cr_expect(strstr(err, "root_nlink)"), "%s", err);
    cr_expect_null(strchr(err, '\n'));
}

Test(features, a_rename_flag_lacked_is_never_drawn)
{
    static struct metis_config cfg;
    char err[1200];
    struct input in;
    struct op_args a;
    int seen[3] = { 0 };
    cr_assert_eq(ft_load("rename:exchange", &cfg, err, sizeof err), 0, "%s", err);
    cr_assert_eq(input_init(&in, &cfg, 7), 0);
    for (int k = 0; k < 2000; k++) {
        op_draw(OP_rename, &in, &a);
        int v = op_variant_of(&a);
        cr_assert(v >= 0, "flags %#x are no rename variant", a.flags);
        seen[strcmp(op_variant_name(v), "plain") == 0 ? 0
             : strcmp(op_variant_name(v), "noreplace") == 0 ? 1 : 2]++;
    }
    input_free(&in);
    cr_expect_gt(seen[0], 0);
    cr_expect_gt(seen[1], 0);
    cr_expect_eq(seen[2], 0, "exchange drawn %d times", seen[2]);
}

/* ---- the new ignore bits: a reproducer's listings (nothing ignored) compared with them ---- */

static void ft_ignore_fn(void *ctx, enum tree_diff k, const struct tree_fields *r,
                         const struct tree_fields *g, int best)
{
    *(enum tree_diff *)ctx = k;
}

static enum tree_diff ft_diff(const char *a, const char *b, unsigned ignore)
{
    const char *ra[] = { a }, *rb[] = { b };
    enum tree_diff k = TREE_DIFF_NONE;
    tree_diff_listings(ra, 1, rb, 1, ignore, ft_ignore_fn, &k);
    return k;
}

Test(features, root_nlink_and_setid_in_comparisons)
{
    const char *root3 = "/ d 0755 3 0 0 - - []", *root4 = "/ d 0755 4 0 0 - - []";
    cr_expect_eq(ft_diff(root3, root4, 0), TREE_DIFF_NLINK);
    cr_expect_eq(ft_diff(root3, root4, TREE_IGNORE_ROOT_NLINK), TREE_DIFF_NONE);
    const char *d3 = "/d0 d 0755 3 0 0 - - []", *d4 = "/d0 d 0755 4 0 0 - - []";
    cr_expect_eq(ft_diff(d3, d4, TREE_IGNORE_ROOT_NLINK), TREE_DIFF_NLINK, "only the root's");
    const char *suid = "/f0 f 4755 1 0 0 0 x []", *plain = "/f0 f 0755 1 0 0 0 x []";
    const char *other = "/f0 f 0750 1 0 0 0 x []";
    cr_expect_eq(ft_diff(suid, plain, 0), TREE_DIFF_MODE);
    cr_expect_eq(ft_diff(suid, plain, TREE_IGNORE_SETID), TREE_DIFF_NONE);
    cr_expect_eq(ft_diff(suid, other, TREE_IGNORE_SETID), TREE_DIFF_MODE, "other bits still count");
}

static void ft_line(unsigned ignore, const char *path, mode_t mode, nlink_t nlink, char *out)
{
    uint64_t fnv;
    struct tree_hash h = tree_fnv_hash;
    struct tree_opts o = { NULL, "", ignore, 0 };
    struct tree_lister l = { .o = &o, .h = &h };
    struct tree_entry e = { .path = path, .fd = -1 };
    struct buf b = { 0 };
    h.ctx = &fnv;
    e.st.st_mode = mode;
    e.st.st_nlink = nlink;
    cr_assert_eq(tree_line(&l, &e, &b) || buf_add(&b, "", 1), 0);
    snprintf(out, 256, "%s", b.p);
    buf_free(&b);
    tree_lister_free(&l);
}

Test(features, root_nlink_and_setid_in_listings)
{
    char line[256];
    ft_line(TREE_IGNORE_ROOT_NLINK, "/", S_IFDIR | 0755, 3, line);
    cr_expect_eq(strncmp(line, "/ d 0755 - ", 11), 0, "%s", line);
    ft_line(TREE_IGNORE_ROOT_NLINK, "/d0", S_IFDIR | 0755, 3, line);
    cr_expect_eq(strncmp(line, "/d0 d 0755 3 ", 13), 0, "%s", line);
    ft_line(TREE_IGNORE_SETID, "/f0", S_IFREG | 06755, 1, line);
    cr_expect_eq(strncmp(line, "/f0 f 0755 1 ", 13), 0, "%s", line);
    ft_line(TREE_IGNORE_SETID, "/f1", S_IFREG | 01644, 1, line);
    cr_expect_eq(strncmp(line, "/f1 f 1644 1 ", 13), 0, "the sticky bit stays: %s", line);
}

/* ---- the hint ---- */

static int ft_hint(enum op_id op, int flags, int err, int ref_err, char *out)
{
    static struct metis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.nfs = 2;
    snprintf(cfg.fs[1].name, sizeof cfg.fs[1].name, "fuse2fs");
    struct op_args a = { .op = op, .flags = flags };
    struct hint_case c = { &cfg, 1, &a, DIFF_RET | DIFF_ERRNO, { ref_err ? -1 : 0, ref_err },
                           { -1, err }, NULL };
    out[0] = '\0';
    return hints_find(&c, out, 2048);
}

Test(features, a_refusal_where_the_reference_succeeded_names_the_declaration)
{
    char h[2048];
    cr_assert_eq(ft_hint(OP_fallocate_file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                         EOPNOTSUPP, 0, h), 1);
    cr_expect(strstr(h, "lacks = fallocate:punch_hole"), "%s", h);
    cr_expect(strstr(h, "[fs fuse2fs]"), "%s", h);
    cr_assert_eq(ft_hint(OP_rename, RENAME_EXCHANGE, EINVAL, 0, h), 1);
    cr_expect(strstr(h, "lacks = rename:exchange"), "%s", h);
    cr_assert_eq(ft_hint(OP_setxattr, 0, ENOSYS, 0, h), 1);
    cr_expect(strstr(h, "lacks = xattrs"), "%s", h);
    cr_expect_eq(ft_hint(OP_setxattr, 0, EINVAL, 0, h), 0, "EINVAL names variants only: %s", h);
    cr_expect_eq(ft_hint(OP_fallocate_file, FALLOC_FL_ZERO_RANGE, ENOSPC, 0, h), 0,
                 "ENOSPC is no refusal: %s", h);
    cr_expect_eq(ft_hint(OP_fallocate_file, FALLOC_FL_ZERO_RANGE, EINVAL, EINVAL, h), 0,
                 "the reference refused too: %s", h);
    cr_expect_eq(ft_hint(OP_rename, 0, EINVAL, 0, h), 0, "a plain rename is no declaration: %s", h);
}
