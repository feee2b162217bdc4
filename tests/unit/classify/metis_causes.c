/* Unit tests of cause groups: each hint rule's stable cause id, the group key of a class (hint first, an owner the kernel cannot map, then a known delta of its own attribute, else its signature) and the groups of a table. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/xattr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/classify/causes.h"
#include "engine/classify/hints.h"
#include "engine/classify/hardlink_alias.h"
#include "engine/vocab/differs.h"

static struct metis_config cfg;

static void setup_fuse(const char *mount_cmd)
{
    memset(&cfg, 0, sizeof cfg);
    cfg.nfs = 2;
    cfg.fs[0].type = FS_KERNEL;
    snprintf(cfg.fs[0].fstype, sizeof cfg.fs[0].fstype, "tmpfs");
    snprintf(cfg.fs[1].name, sizeof cfg.fs[1].name, "bindfs");
    cfg.fs[1].type = FS_FUSE;
    snprintf(cfg.fs[1].mount_cmd, sizeof cfg.fs[1].mount_cmd, "%s", mount_cmd);
}

/* The cause id hints_cause names for a stale link count at /d0 after op on /f0. */
static const char *stale_nlink_cause(enum op_id op, char *id, size_t len)
{
    struct op_args a = { .op = op };
    snprintf(a.path, sizeof a.path, "/f0");
    struct state_diff d = { .attr = TREE_DIFF_NLINK };
    snprintf(d.entry, sizeof d.entry, "/d0");
    struct hint_case c = { &cfg, 1, &a, DIFF_STATE, { 0, 0 }, { 0, 0 }, &d };
    return hints_cause(&c, id, len);
}

/* A stale attribute on a daemon that caches them is measured by the engine (a read past the
 * cache, engine/run/cache_recheck.c), never guessed from the operation: no hint names it. */
Test(causes, a_possibly_stale_attribute_is_no_cause)
{
    char id[96];
    setup_fuse("bindfs {dir} {mnt}");
    static const enum op_id ops[] = { OP_link, OP_unlink, OP_write_file, OP_truncate,
                                      OP_rename, OP_open_unlink };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        cr_expect_null(stale_nlink_cause(ops[k], id, sizeof id), "%s", op_name(ops[k]));
        cr_expect_str_eq(id, "");
    }
}

/* The cause id and lacks word of fs 1 answering op (flags) with errno e where the reference
 * answered ref_err. */
static const char *refusal(enum op_id op, unsigned flags, int ref_err, int e, char *id,
                           size_t len)
{
    static struct op_args a;
    a = (struct op_args){ .op = op, .flags = flags };
    struct hint_case c = { &cfg, 1, &a, DIFF_RET | DIFF_ERRNO, { ref_err ? -1 : 0, ref_err },
                           { -1, e }, NULL };
    hints_cause(&c, id, len);
    return hints_lacks_word(&c);
}

Test(causes, a_refusal_names_its_family_and_its_lacks_word)
{
    char id[96];
    setup_fuse("x {mnt}");
    const char *w = refusal(OP_fallocate_file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                            EOPNOTSUPP, id, sizeof id);
    cr_expect_str_eq(id, "lacks:fallocate");
    cr_expect_str_eq(w, "fallocate:punch_hole");
    w = refusal(OP_fallocate_file, FALLOC_FL_ZERO_RANGE, 0, EOPNOTSUPP, id, sizeof id);
    cr_expect_str_eq(id, "lacks:fallocate");       /* another flag, the same group */
    cr_expect_str_eq(w, "fallocate:zero_range");
    w = refusal(OP_rename, RENAME_EXCHANGE, 0, EINVAL, id, sizeof id);
    cr_expect_str_eq(id, "lacks:rename");
    cr_expect_str_eq(w, "rename:exchange");
}

Test(causes, a_refusal_is_one_cause_whatever_the_reference_answered)
{
    char id[96];
    setup_fuse("x {mnt}");
    static const struct { enum op_id op; unsigned flags; int ref; } seen[] = {
        { OP_setxattr, 0, 0 }, { OP_setxattr, XATTR_CREATE, EEXIST },
        { OP_setxattr, XATTR_REPLACE, ENODATA }, { OP_removexattr, 0, ENODATA },
        { OP_removexattr, 0, 0 },
    };
    for (size_t k = 0; k < sizeof seen / sizeof seen[0]; k++) {
        const char *w = refusal(seen[k].op, seen[k].flags, seen[k].ref, EOPNOTSUPP, id, sizeof id);
        cr_expect_str_eq(id, "lacks:xattrs", "case %zu", k);
        cr_expect_str_eq(w, "xattrs", "case %zu", k);
    }
    cr_expect_str_eq(refusal(OP_setxattr, 0, 0, ENOSYS, id, sizeof id), "xattrs");
    cr_expect_str_eq(refusal(OP_link, 0, ENOENT, EPERM, id, sizeof id), "hardlinks");
    cr_expect_str_eq(id, "lacks:hardlinks");
}

Test(causes, what_is_no_refusal_has_no_lacks_word)
{
    char id[96];
    setup_fuse("x {mnt}");
    /* the reference refused alike: no difference of outcomes to group */
    cr_expect_null(refusal(OP_setxattr, 0, EOPNOTSUPP, EOPNOTSUPP, id, sizeof id));
    /* EINVAL names a flag only: setxattr's says nothing of xattrs as such */
    cr_expect_null(refusal(OP_setxattr, 0, 0, EINVAL, id, sizeof id));
    cr_expect_str_neq(id, "lacks:xattrs");
    /* an errno that is no refusal, or an operation no word declares */
    cr_expect_null(refusal(OP_setxattr, 0, 0, ENOSPC, id, sizeof id));
    cr_expect_null(refusal(OP_mkdir, 0, 0, EOPNOTSUPP, id, sizeof id));
    cr_expect_str_eq(id, "");
}

static struct dclass a_class(const char *sig, unsigned kinds, enum tree_diff attr, const char *cause)
{
    struct dclass c;
    memset(&c, 0, sizeof c);
    snprintf(c.signature, sizeof c.signature, "%s", sig);
    c.kinds = kinds;
    c.attr = attr;
    snprintf(c.cause_id, sizeof c.cause_id, "%s", cause);
    return c;
}

static struct tree_delta delta_of(char **items, size_t n)
{
    return (struct tree_delta){ items, n };
}

Test(causes, group_keys)
{
    char *below_items[] = { "mode\tbits 0022", "nlink\t+1" }, *made_items[] = { "mode\tbits 0001" };
    struct tree_delta below = delta_of(below_items, 2), made = delta_of(made_items, 1);
    struct cause_path p = { &below, &made, "2 attribute differences (first: mode bits 0022)" };
    /* a hint's cause wins over any delta */
    struct dclass c = a_class("link bindfs state nlink", DIFF_STATE, TREE_DIFF_NLINK,
                              "hard-links-path-based-fuse");
    causes_assign(&c, "bindfs", &p);
    cr_expect_str_eq(c.group, "hard-links-path-based-fuse bindfs");
    cr_expect_str_eq(c.below_delta, "2 attribute differences (first: mode bits 0022)");
    /* below a delta of its own attribute: the delta's difference */
    c = a_class("chmod bindfs state mode", DIFF_STATE, TREE_DIFF_MODE, "");
    causes_assign(&c, "bindfs", &p);
    cr_expect_str_eq(c.group, "delta:mode-bits-0022 bindfs");
    /* the class that started the delta joins the same group */
    struct cause_path start = { NULL, &below, NULL };
    c = a_class("create_file bindfs state mode", DIFF_STATE, TREE_DIFF_MODE, "");
    causes_assign(&c, "bindfs", &start);
    cr_expect_str_eq(c.group, "delta:mode-bits-0022 bindfs");
    /* another attribute below it, an outcome, or no path: a group of its own */
    c = a_class("chown_file bindfs state owner", DIFF_STATE, TREE_DIFF_OWNER, "");
    causes_assign(&c, "bindfs", &p);
    cr_expect_str_eq(c.group, "chown_file bindfs state owner");
    c = a_class("link bindfs errno EPERM, reference 0", DIFF_STATE | DIFF_ERRNO | DIFF_RET,
                TREE_DIFF_MODE, "");
    causes_assign(&c, "bindfs", &p);
    cr_expect_str_eq(c.group, c.signature);
    c = a_class("daemon-died bindfs", DIFF_DAEMON_DIED, TREE_DIFF_NONE, "");
    causes_assign(&c, "bindfs", NULL);
    cr_expect_str_eq(c.group, "daemon-died bindfs");
}

/* A class with outcome errno e (the reference's ref_err) and owner attr below p. */
static struct dclass refused_class(const char *sig, int e, int ref_err)
{
    struct dclass c = a_class(sig, DIFF_RET | DIFF_ERRNO | DIFF_STATE, TREE_DIFF_MISSING, "");
    c.res = (struct op_result){ -1, e };
    c.ref = (struct op_result){ ref_err ? -1 : 0, ref_err };
    return c;
}

Test(causes, an_owner_the_kernel_cannot_map_is_one_cause)
{
    char *below_items[] = { "mode\tbits 0022", "owner\t0:0\t65534:0" }, *plain[] = { "owner\t0:0\t1000:0" };
    struct tree_delta below = delta_of(below_items, 2), other = delta_of(plain, 1);
    struct cause_path p = { &below, &below, NULL }, start = { NULL, &below, NULL };
    /* the refusals below it, whatever the operation, and the owner difference itself */
    struct dclass c = refused_class("link am errno EACCES, reference 0", EACCES, 0);
    causes_assign(&c, "am", &p);
    cr_expect_str_eq(c.group, "unmapped-owner am");
    cr_expect(strstr(c.hint, "overflow id (65534:65534)") != NULL, "%s", c.hint);
    c = refused_class("rmdir am errno EOVERFLOW, reference ENOTEMPTY", EOVERFLOW, ENOTEMPTY);
    causes_assign(&c, "am", &p);
    cr_expect_str_eq(c.group, "unmapped-owner am");
    c = a_class("chgrp_file am state owner", DIFF_STATE, TREE_DIFF_OWNER, "");
    causes_assign(&c, "am", &start);
    cr_expect_str_eq(c.group, "unmapped-owner am");
    /* no such owner below, another errno, or the reference's errno alike: not this cause */
    struct cause_path q = { &other, &other, NULL };
    c = refused_class("link am errno EACCES, reference 0", EACCES, 0);
    causes_assign(&c, "am", &q);
    cr_expect_str_eq(c.group, c.signature);
    c = a_class("chown_file am state owner", DIFF_STATE, TREE_DIFF_OWNER, "");
    causes_assign(&c, "am", &q);
    cr_expect_str_eq(c.group, "delta:owner-0:0-1000:0 am");
    c = refused_class("link am errno ENOENT, reference 0", ENOENT, 0);
    causes_assign(&c, "am", &p);
    cr_expect_str_eq(c.group, c.signature);
    /* an EPERM the lacks rule took for a refused family: the owner explains it */
    c = refused_class("setxattr am errno EPERM, reference 0", EPERM, 0);
    snprintf(c.cause_id, sizeof c.cause_id, "lacks:xattrs");
    snprintf(c.lacks, sizeof c.lacks, "xattrs");
    causes_assign(&c, "am", &p);
    cr_expect_str_eq(c.group, "unmapped-owner am");
    cr_expect_str_eq(c.lacks, "");
    /* an EOPNOTSUPP stays a refusal */
    c = refused_class("setxattr am errno EOPNOTSUPP, reference 0", EOPNOTSUPP, 0);
    snprintf(c.cause_id, sizeof c.cause_id, "lacks:xattrs");
    causes_assign(&c, "am", &p);
    cr_expect_str_eq(c.group, "lacks:xattrs am");
    /* the reference shows the overflow id too: nothing the fs did */
    char *both[] = { "owner\t65534:0\t65534:0" };
    struct tree_delta same = delta_of(both, 1);
    struct cause_path r = { &same, &same, NULL };
    c = refused_class("link am errno EACCES, reference 0", EACCES, 0);
    causes_assign(&c, "am", &r);
    cr_expect_str_eq(c.group, c.signature);
}

/* The reference's tree: /d0/f1 and /d1/f0 are one file of two names, /f2 a file of one. */
static const char alias_listing[] =
    "/ d 0755 4 0 0 0 - -\n"
    "/d0 d 0755 2 0 0 0 - -\n"
    "/d0/f1 f 0644 2 0 0 10 abc -\n"
    "/d1 d 0755 2 0 0 0 - -\n"
    "/d1/f0 f 0644 2 0 0 10 abc -\n"
    "/f2 f 0644 1 0 0 5 xyz -\n";

Test(causes, two_names_of_one_file_on_a_fuse_daemon_are_one_cause)
{
    struct op_args w = { .op = OP_write_file }, cp = { .op = OP_copy_range };
    snprintf(w.path, sizeof w.path, "/d1/f0");
    snprintf(cp.path, sizeof cp.path, "/d1/f0");
    snprintf(cp.path2, sizeof cp.path2, "/d0/f1");
    /* another name's stale size after a write through the first */
    struct dclass c = a_class("write_file fz state size", DIFF_STATE, TREE_DIFF_SIZE, "");
    snprintf(c.d.entry, sizeof c.d.entry, "/d0/f1");
    cr_assert(alias_may_apply(&c, &w));
    cr_expect(alias_assign(&c, &w, alias_listing));
    causes_assign(&c, "fz", NULL);
    cr_expect_str_eq(c.group, "fuse-hard-link-alias fz");
    cr_expect(strstr(c.hint, "copy_file_range") != NULL, "%s", c.hint);
    /* copy_file_range between the two names: the reference refused an overlapping copy */
    c = refused_class("copy_range fz errno ok, reference EINVAL", 0, EINVAL);
    c.res = (struct op_result){ 500, 0 };
    cr_assert(alias_may_apply(&c, &cp));
    cr_expect(alias_assign(&c, &cp, alias_listing));
    /* the other name after an open_unlink of the first: one link left, another name changed */
    struct op_args ou = { .op = OP_open_unlink };
    snprintf(ou.path, sizeof ou.path, "/d1/f9");
    c = a_class("open_unlink/fd_truncate fz state size", DIFF_STATE, TREE_DIFF_SIZE, "");
    snprintf(c.d.entry, sizeof c.d.entry, "/f2");
    cr_expect(alias_assign(&c, &ou, alias_listing));
    /* a file of one name, a directory, or a kind aliasing does not explain: not this cause */
    struct op_args one = { .op = OP_write_file };
    snprintf(one.path, sizeof one.path, "/f2");
    c = a_class("write_file fz state size", DIFF_STATE, TREE_DIFF_SIZE, "");
    snprintf(c.d.entry, sizeof c.d.entry, "/f2");
    cr_expect(!alias_assign(&c, &one, alias_listing));
    snprintf(one.path, sizeof one.path, "/d0");
    snprintf(c.d.entry, sizeof c.d.entry, "/d0");
    cr_expect(!alias_assign(&c, &one, alias_listing));
    cr_expect_str_eq(c.cause_id, "");
    c = a_class("chmod fz state mode", DIFF_STATE, TREE_DIFF_MODE, "");
    cr_expect(!alias_may_apply(&c, &w));
    c = a_class("write_file fz state size", DIFF_STATE, TREE_DIFF_SIZE, "lacks:fallocate");
    cr_expect(!alias_may_apply(&c, &w));
}

Test(causes, delta_ids_are_one_word)
{
    char id[96];
    causes_delta_id("owner\t0:0\t1000:1000", id, sizeof id);
    cr_expect_str_eq(id, "delta:owner-0:0-1000:1000");
}

Test(causes, groups_of_a_table_in_the_order_found)
{
    struct dclass v[4] = {
        a_class("link b state nlink", DIFF_STATE, TREE_DIFF_NLINK, "hard-links-path-based-fuse"),
        a_class("mkdir b state mode", DIFF_STATE, TREE_DIFF_MODE, ""),
        a_class("write_file b state size", DIFF_STATE, TREE_DIFF_SIZE, "hard-links-path-based-fuse"),
        a_class("unlink b state nlink", DIFF_STATE, TREE_DIFF_NLINK, "hard-links-path-based-fuse"),
    };
    for (int k = 0; k < 4; k++) {
        v[k].id = k + 1;
        v[k].hits = 10;
        causes_assign(&v[k], "b", NULL);
    }
    struct dclass_table t = { v, 4, 4, 0 };
    cr_assert_eq(causes_count(&t), 2);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    causes_write_json(&t, f);
    fclose(f);
    cr_expect(strstr(text, "\"discrepancy_groups\":2,") != NULL, "%s", text);
    cr_expect(strstr(text, "{\"group\":\"hard-links-path-based-fuse b\",\"cause\":\"\","
                           "\"classes\":[1,3,4],\"hits\":30}") != NULL, "%s", text);
    free(text);
}
