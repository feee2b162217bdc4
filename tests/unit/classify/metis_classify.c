/* Unit tests of discrepancy classes: the listing comparison (classify.c), the hint rules (hints.c) and the summary's class array (front/cli/classes/summary_classes.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tree/classify.h"
#include "front/cli/classes/summary_classes.h"
#include "engine/config/config.h"
#include "engine/classify/hints.h"
#include "engine/step/step.h"

/* Listing lines as tree/line.c writes them: PATH TYPE MODE NLINK UID GID SIZE DATA XATTRS. */
#define ROOT3 "/ d 0755 3 0 0 - - []\n"
#define D0 "/d0 d 0755 2 0 0 - - []\n"
#define F0 "/d0/f0 f 0644 1 0 0 5 aaaa []\n"

static int cls_cmp(const char *a, const char *b, struct state_diff *d)
{
    return classify_listings(a, b, d);
}

Test(classify, equal_trees_do_not_differ)
{
    struct state_diff d;
    cr_assert_eq(cls_cmp(ROOT3 D0 F0, ROOT3 D0 F0, &d), 0);
    cr_assert_eq(d.attr, TREE_DIFF_NONE);
    cr_assert_eq(d.nentries, 0);
}

Test(classify, a_missing_directory_is_named_before_its_parents_link_count)
{
    struct state_diff d;
    cr_assert_eq(cls_cmp(ROOT3 D0 F0, "/ d 0755 2 0 0 - - []\n", &d), 1);
    cr_assert_eq(d.attr, TREE_DIFF_MISSING);
    cr_assert_str_eq(d.entry, "/d0");
    cr_assert_str_eq(d.ref, "d");
    cr_assert_str_eq(d.other, "(none)");
    cr_assert_eq(d.nentries, 3);
}

Test(classify, an_extra_entry)
{
    struct state_diff d;
    cr_assert_eq(cls_cmp(ROOT3 D0, ROOT3 D0 F0, &d), 1);
    cr_assert_eq(d.attr, TREE_DIFF_EXTRA);
    cr_assert_str_eq(d.entry, "/d0/f0");
}

Test(classify, mode_owner_nlink_size_content_in_that_order)
{
    struct state_diff d;
    cr_assert_eq(cls_cmp(ROOT3 D0 F0, ROOT3 "/d0 d 2755 2 0 0 - - []\n" F0, &d), 1);
    cr_assert_eq(d.attr, TREE_DIFF_MODE);
    cr_assert_str_eq(d.ref, "0755");
    cr_assert_str_eq(d.other, "2755");
    cls_cmp(ROOT3 D0 F0, ROOT3 D0 "/d0/f0 f 0644 1 1000 0 5 aaaa []\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_OWNER);
    cr_assert_str_eq(d.other, "1000:0");
    cls_cmp(ROOT3 D0 F0, ROOT3 D0 "/d0/f0 f 0644 2 0 0 6 bbbb []\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_NLINK);
    cls_cmp(ROOT3 D0 F0, ROOT3 D0 "/d0/f0 f 0644 1 0 0 6 bbbb []\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_SIZE);
    cls_cmp(ROOT3 D0 F0, ROOT3 D0 "/d0/f0 f 0644 1 0 0 5 bbbb []\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_CONTENT);
    cr_assert_str_eq(d.entry, "/d0/f0");
}

Test(classify, the_most_telling_kind_wins_over_the_first_path)
{
    struct state_diff d;
    /* the root's mode differs, but a type difference further down says more */
    cr_assert_eq(cls_cmp(ROOT3 D0 F0, "/ d 0777 3 0 0 - - []\n" D0 "/d0/f0 l 0777 1 0 0 5 cc -\n",
                         &d), 1);
    cr_assert_eq(d.attr, TREE_DIFF_TYPE);
    cr_assert_str_eq(d.entry, "/d0/f0");
    cr_assert_eq(d.nentries, 2);
}

Test(classify, symlink_targets_and_xattrs)
{
    struct state_diff d;
    cls_cmp("/l l 0777 1 0 0 1 t1 -\n", "/l l 0777 1 0 0 1 t2 -\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_TARGET);
    cls_cmp("/f f 0644 1 0 0 0 h [user.x0=1:aa]\n", "/f f 0644 1 0 0 0 h [user.x0=1:bb]\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_XATTR_VALUE);
    cls_cmp("/f f 0644 1 0 0 0 h [user.x0=1:aa]\n", "/f f 0644 1 0 0 0 h [user.x1=1:aa]\n", &d);
    cr_assert_eq(d.attr, TREE_DIFF_XATTR_NAMES);
    cr_assert_str_eq(d.ref, "user.x0");
    cr_assert_str_eq(d.other, "user.x1");
}

Test(classify, a_line_that_is_no_listing_line_is_refused)
{
    struct state_diff d;
    cr_assert_eq(cls_cmp(ROOT3, "garbage\n", &d), -1);
    cr_assert_str_eq(d.entry, "garbage");
}

Test(classify, attribute_names_both_ways)
{
    for (int a = 0; a < TREE_DIFF_COUNT; a++)
        cr_assert_eq(tree_diff_by_name(tree_diff_name(a)), a);
    cr_assert_eq(tree_diff_by_name("colour"), -1);
}

/* ---- hints ---- */

static struct metis_config hint_cfg;
static const char *hint_entry = "/d0";   /* the differing entry hint_for names */

static void hint_setup(enum fs_type t, const char *mount_cmd)
{
    memset(&hint_cfg, 0, sizeof hint_cfg);
    hint_cfg.nfs = 2;
    hint_cfg.fs[0].type = FS_KERNEL;
    snprintf(hint_cfg.fs[0].fstype, sizeof hint_cfg.fs[0].fstype, "ext4");
    hint_cfg.fs[1].type = t;
    snprintf(hint_cfg.fs[1].mount_cmd, sizeof hint_cfg.fs[1].mount_cmd, "%s", mount_cmd);
}

static int hint_for(enum op_id op, mode_t arg, unsigned kinds, const char *ref_mode,
                    const char *mode, struct op_result ref, struct op_result res, char *out)
{
    struct op_args a = { .op = op, .mode = arg };
    struct state_diff d = { .attr = ref_mode ? TREE_DIFF_MODE : TREE_DIFF_NONE };
    snprintf(d.entry, sizeof d.entry, "%s", hint_entry);
    snprintf(d.ref, sizeof d.ref, "%s", ref_mode ? ref_mode : "");
    snprintf(d.other, sizeof d.other, "%s", mode ? mode : "");
    struct hint_case c = { &hint_cfg, 1, &a, kinds, ref, res, ref_mode ? &d : NULL };
    out[0] = '\0';
    return hints_find(&c, out, 2048);
}

static const struct op_result ok0 = { 0, 0 };

Test(hints, sticky_lost_on_chown_through_fuse_without_default_permissions)
{
    char h[2048];
    hint_setup(FS_FUSE, "fuse2fs {img} {mnt} -f");
    cr_assert_eq(hint_for(OP_chown_file, 0, DIFF_STATE, "1755", "0755", ok0, ok0, h), 1);
    cr_assert(strstr(h, "default_permissions"));
    hint_setup(FS_FUSE, "fuse2fs {img} {mnt} -f -o default_permissions");
    cr_assert_eq(hint_for(OP_chown_file, 0, DIFF_STATE, "1755", "0755", ok0, ok0, h), 0);
    hint_setup(FS_REFFS, "");
    cr_assert_eq(hint_for(OP_chown_file, 0, DIFF_STATE, "1755", "0755", ok0, ok0, h), 0);
}

Test(hints, mkdir_write_bits_and_setgid_argument)
{
    char h[2048];
    hint_setup(FS_FUSE, "x");
    cr_assert_eq(hint_for(OP_mkdir, 0777, DIFF_STATE, "0777", "0755", ok0, ok0, h), 1);
    cr_assert(strstr(h, "fuse2fs"));
    hint_setup(FS_KERNEL, "");
    cr_assert_eq(hint_for(OP_mkdir, 02755, DIFF_STATE, "0755", "2755", ok0, ok0, h), 1);
    cr_assert(strstr(h, "S_ISGID"));
    /* the other way round is a lost setgid (a parent's): no hint */
    cr_assert_eq(hint_for(OP_mkdir, 02755, DIFF_STATE, "2755", "0755", ok0, ok0, h), 0);
}

Test(hints, errnos_posix_allows_and_a_removexattr_that_succeeds)
{
    char h[2048];
    hint_setup(FS_FUSE, "x");
    struct op_result enodata = { -1, ENODATA }, enotempty = { -1, ENOTEMPTY }, eexist = { -1, EEXIST };
    cr_assert_eq(hint_for(OP_removexattr, 0, DIFF_RET | DIFF_ERRNO, NULL, NULL, enodata, ok0, h), 1);
    cr_assert(strstr(h, "ENODATA"));
    cr_assert_eq(hint_for(OP_rmdir, 0, DIFF_ERRNO, NULL, NULL, enotempty, eexist, h), 1);
    cr_assert(strstr(h, "errno_equiv"));
    cr_assert_eq(hint_for(OP_rmdir, 0, DIFF_RET | DIFF_ERRNO, NULL, NULL, enotempty, ok0, h), 0);
}

/* The tmpfs hint needs a tmpfs root of mode 1777: a FUSE root that kept 0700 against a tmpfs
 * mounted mode=0755 is no tmpfs behaviour. */
Test(hints, tmpfs_root_mode_only_when_the_tmpfs_root_is_1777)
{
    char h[2048];
    hint_setup(FS_FUSE, "cryfs {dir} {mnt}");
    snprintf(hint_cfg.fs[0].fstype, sizeof hint_cfg.fs[0].fstype, "tmpfs");
    hint_entry = "/";
    cr_expect_eq(hint_for(OP_mkdir, 0755, DIFF_STATE, "1777", "0755", ok0, ok0, h), 1);
    cr_expect(strstr(h, "tmpfs"));
    cr_expect_eq(hint_for(OP_mkdir, 0755, DIFF_STATE, "0755", "0700", ok0, ok0, h), 0, "%s", h);
    hint_entry = "/d0";
}

/* ---- the classes of a summary.json ---- */

Test(classfile, reads_the_class_array_and_inserts_keys)
{
    const char *json = "{\"ops\":3,\"discrepancy_classes\":2,\"classes\":["
                       "{\"class\":1,\"signature\":\"mkdir bad state mode\",\"fs\":\"bad\","
                       "\"hits\":33,\"first_op\":10,\"entry\":\"/a}b\",\"detail\":\"discrepancy-1.txt\",\"hint\":\"\"},"
                       "{\"class\":2,\"signature\":\"rmdir bad errno -\",\"fs\":\"bad\",\"hits\":1,"
                       "\"first_op\":31,\"detail\":\"discrepancy-2.txt\",\"hint\":\"h\"}],\"fs\":[\"a\"]}";
    struct run_class *v;
    cr_assert_eq(classfile_parse(json, &v), 2);
    cr_assert_eq(v[0].id, 1);
    cr_assert_str_eq(v[0].signature, "mkdir bad state mode");
    cr_assert_eq(v[0].hits, 33);
    cr_assert_str_eq(v[1].detail, "discrepancy-2.txt");
    cr_assert_eq(v[1].first_op, 31);
    free(v);
    char *n = classfile_insert(json, 2, "\"trace\":\"class-2.trace\",");
    cr_assert_not_null(n);
    cr_assert_eq(classfile_parse(n, &v), 2);
    cr_assert_str_eq(v[1].trace, "class-2.trace");
    cr_assert_str_eq(v[0].trace, "");
    free(v);
    free(n);
    cr_assert_null(classfile_insert(json, 3, "x"));
    cr_assert_eq(classfile_parse("{\"ops\":1}", &v), 0);
}
