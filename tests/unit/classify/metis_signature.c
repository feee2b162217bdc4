/* Unit tests of class signatures: a differing outcome is signed by the operation's variant and the pair of outcomes, never by the state it left behind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "engine/classify/classes.h"

/* A reference and a target whose outcomes differ as given: no tree is read (no DIFF_STATE). */
static void signed_as(enum op_id op, int flags, long ret, int err, long ref_ret, int ref_err,
                      const char *want)
{
    static struct metis_config cfg;
    static struct fsgroup g;
    cfg.nfs = g.nfs = 2;
    snprintf(cfg.fs[0].name, sizeof cfg.fs[0].name, "ref");
    snprintf(cfg.fs[1].name, sizeof cfg.fs[1].name, "tgt");
    g.cfg = &cfg;
    g.out[0].res = (struct op_result){ .ret = ref_ret, .err = ref_err };
    g.out[1].res = (struct op_result){ .ret = ret, .err = err };
    g.out[1].differs = (ret != ref_ret ? DIFF_RET : 0) | (err != ref_err ? DIFF_ERRNO : 0);
    struct op_args a = { .op = op, .flags = flags };
    snprintf(a.path, sizeof a.path, "/f0");
    struct dclass c;
    classes_classify(&g, 1, &a, &c);
    cr_assert_str_eq(c.signature, want);
}

Test(signature, a_refused_flag_is_one_class_whatever_the_exchange_would_have_moved)
{
    signed_as(OP_rename, RENAME_EXCHANGE, -1, EINVAL, 0, 0,
              "rename/exchange tgt errno EINVAL, reference 0");
    signed_as(OP_rename, RENAME_NOREPLACE, -1, EINVAL, -1, EEXIST,
              "rename/noreplace tgt errno EINVAL, reference EEXIST");
    signed_as(OP_rename, 0, -1, EXDEV, -1, ENOTEMPTY,
              "rename/plain tgt errno EXDEV, reference ENOTEMPTY");
}

Test(signature, fallocate_modes_and_setxattr_flags_are_variants)
{
    signed_as(OP_fallocate_file, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, -1, EINVAL, 0, 0,
              "fallocate_file/zero_range_keep tgt errno EINVAL, reference 0");
    signed_as(OP_setxattr, XATTR_CREATE, 0, 0, -1, EEXIST,
              "setxattr/create tgt errno 0, reference EEXIST");
    signed_as(OP_setxattr, XATTR_REPLACE, 0, 0, -1, ENODATA,
              "setxattr/replace tgt errno 0, reference ENODATA");
}

Test(signature, operations_without_variants_and_counts)
{
    signed_as(OP_removexattr, 0, 0, 0, -1, ENODATA, "removexattr tgt errno 0, reference ENODATA");
    /* A count depends on the arguments: it is "ok", so one cause stays one class. */
    signed_as(OP_copy_range, 0, 4096, 0, -1, EXDEV, "copy_range tgt errno ok, reference EXDEV");
    signed_as(OP_write_file, 0, 100, 0, 200, 0, "write_file tgt ret below reference");
    signed_as(OP_write_file, 0, 300, 0, 200, 0, "write_file tgt ret above reference");
}
