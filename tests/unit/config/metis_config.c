/* Unit tests of fs-state/engine/config.c: defaults, every key, the shipped configs and config_validate. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/config/config.h"

static char cfgt_dir[64];
static char cfgt_path[128];

static void cfgt_setup(void)
{
    snprintf(cfgt_dir, sizeof cfgt_dir, "/tmp/metis-config-test-XXXXXX");
    cr_assert_not_null(mkdtemp(cfgt_dir));
}

static void cfgt_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cfgt_dir);
    cr_expect_eq(system(cmd), 0);
}

/* Writes text to a file test.ini in the test's directory and loads it. */
static int cfgt_load(const char *text, struct metis_config *cfg, char *err, size_t len)
{
    snprintf(cfgt_path, sizeof cfgt_path, "%s/test.ini", cfgt_dir);
    FILE *f = fopen(cfgt_path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    err[0] = '\0';
    return config_load(cfgt_path, cfg, err, len);
}

TestSuite(metis_config, .init = cfgt_setup, .fini = cfgt_teardown);

Test(metis_config, defaults)
{
    struct metis_config c;
    config_defaults(&c);
    cr_expect_eq(c.run.seed, 1);
    cr_expect_eq(c.run.max_depth, 10000);
    cr_expect_eq(c.run.ops, 0);
    cr_expect_eq(c.run.seconds, 0);
    cr_expect_str_eq(c.run.hash, "md5");
    cr_expect_eq(c.run.keep_going, 0);
    cr_expect_str_eq(c.run.out, "");
    cr_expect_eq(c.run.ring, 10);
    cr_expect_eq(c.run.hashtable_log2, 22);
    cr_expect_eq(c.nfs, 0);
    cr_expect_eq(c.pool.dirs, 2);
    cr_expect_eq(c.pool.files, 2);
    cr_expect_eq(c.pool.depth, 1);
    cr_expect_eq(c.pool.name_len, 0);
    cr_expect_eq(c.pool.xattr_names, 2);
    cr_expect_eq(c.pool.nuids, 2);
    cr_expect_eq(c.pool.uids[0], 0);
    cr_expect_eq(c.pool.uids[1], 1000);
    cr_expect_eq(c.pool.ngids, 2);
    cr_expect_eq(c.pool.gids[1], 1000);
    cr_expect_eq(c.pool.prepopulate, 0);
    cr_expect_eq(c.pool.existing, 0.6);
    cr_expect_eq(c.run.max_searches, 0);
    cr_expect_eq(c.end_boundary[ARG_WRITE_OFFSET], 0.1);
    cr_expect_eq(c.end_boundary[ARG_FALLOC_OFFSET], 0.1);
    cr_expect_eq(c.end_boundary[ARG_WRITE_SIZE], 0);
    cr_expect_eq(c.vary.long_names, 0);
    cr_expect_eq(c.vary.fill, 0);
    cr_expect_eq(c.vary.bytes_left, 8200);
    cr_expect_eq(c.vary.fill_inodes, 0);
    cr_expect_eq(c.vary.inodes_left, 8);
    for (int i = 0; i < OP_COUNT; i++)
        cr_expect_eq(c.op_weight[i], i == OP_utimes ? 0 : 1, "op %d", i);
}

Test(metis_config, default_partitions_and_bits)
{
    static const int nparts[ARG_NKINDS] = { 14, 14, 15, 14, 14, 9, 14, 14 };
    struct metis_config c;
    config_defaults(&c);
    for (int k = 0; k < ARG_NKINDS; k++) {
        cr_expect_eq(c.part[k].nparts, nparts[k], "%s", arg_kind_name(k));
        cr_expect_eq(c.part[k].mode, PART_RANGE);
        for (int i = 0; i < METIS_MAX_PARTS; i++)
            cr_expect_eq(c.part[k].weight[i], i < nparts[k] ? 1.0 : 0.0);
    }
    const struct bitmap *of = &c.bits[BM_OPEN_FLAGS], *m = &c.bits[BM_MODE];
    cr_expect_str_eq(of->name[0], "rdwr");
    cr_expect_eq(of->value[0], (unsigned)O_RDWR);
    cr_expect_eq(of->prob[0], 0.5);
    for (int i = 1; i < 4; i++)
        cr_expect_eq(of->prob[i], strcmp(of->name[i], "append") ? 0.2 : 0.1, "%s", of->name[i]);
    for (int i = 4; i < of->nbits; i++)
        cr_expect_eq(of->prob[i], 0.0, "%s", of->name[i]);
    cr_expect_eq(m->nbits, 12);
    cr_expect_str_eq(m->name[0], "suid");
    cr_expect_eq(m->value[0], (unsigned)S_ISUID);
    cr_expect_str_eq(m->name[11], "ox");
    cr_expect_eq(m->value[11], (unsigned)S_IXOTH);
    for (int i = 0; i < 12; i++)
        cr_expect_eq(m->prob[i], i < 3 ? 0.1 : 0.5, "%s", m->name[i]);
}

Test(metis_config, kind_names)
{
    static const char *const args[] = { "write_size", "write_offset", "trunc_size",
                                        "falloc_offset", "falloc_len", "xattr_size",
                                        "copy_offset", "copy_len" };
    for (int k = 0; k < ARG_NKINDS; k++)
        cr_expect_str_eq(arg_kind_name(k), args[k]);
    cr_expect_str_eq(bitmap_kind_name(BM_OPEN_FLAGS), "open_flags");
    cr_expect_str_eq(bitmap_kind_name(BM_MODE), "mode");
}

Test(metis_config, minimal_file_and_type_defaults)
{
    struct metis_config c;
    char err[512];
    int rc = cfgt_load("[fs ref]\ntype = reffs\n[fs k]\ntype = kernel\nfstype = ext4\n"
                       "[fs f]\ntype = fuse\nmount_cmd = myfs {img} {mnt}\n", &c, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_str_eq(c.name, "test");
    cr_expect_str_eq(c.path, cfgt_path);
    cr_assert_eq(c.nfs, 3);
    cr_expect_eq(c.fs[0].type, FS_REFFS);
    cr_expect_eq(c.fs[0].size, 256 * 1024);
    cr_expect_str_eq(c.fs[0].exclude, "");
    cr_expect_eq(c.fs[0].line, 1);
    cr_expect_eq(c.fs[0].remount, 1);
    cr_expect_eq(c.fs[0].op_timeout, 10.0);
    cr_expect_eq(c.fs[1].size, 0);
    cr_expect_str_eq(c.fs[1].exclude, "lost+found");
    cr_expect_eq(c.fs[1].fstype_line, 5);
    cr_expect_eq(c.fs[1].size_line, 0);
    cr_expect_str_eq(c.fs[2].unmount_cmd, "fusermount3 -u {mnt}");
    cr_expect_str_eq(c.fs[2].mount_cmd, "myfs {img} {mnt}");
}

static const char cfgt_every_key[] =
    "; every key set to a value that is not its default\n"
    "[run]\n"
    "seed = 18446744073709551615\n"
    "max_depth = 77\n"
    "ops = 1234\n"
    "seconds = 2.5\n"
    "hash = sha256\n"
    "keep_going = yes\n"
    "out = /tmp/some-out\n"
    "ring = 3\n"
    "hashtable_log2 = 18\n"
    "[fs a]\n"
    "type = kernel\n"
    "fstype = ext4\n"
    "size = 1M\n"
    "mkfs_opts = -b 1024\n"
    "mount_opts = noatime\n"
    "exclude = lost+found, junk\n"
    "ignore = dir_nlink, xattrs\n"
    "remount = off\n"
    "op_timeout = 2.5\n"
    "[fs b]\n"
    "type = reffs\n"
    "size = 512KiB\n"
    "reffs_opts = mutation=none\n"
    "[fs c]\n"
    "type = fuse\n"
    "mount_cmd = fuse-thing {img} {mnt}\n"
    "unmount_cmd = umount {mnt}\n"
    "  [pool]\n"
    "  dirs = 3\n"
    "  files = 1\n"
    "  depth = 2\n"
    "name_len = 20\n"
    "xattr_names = 3\n"
    "uids = 0, 7 9\n"
    "gids = 5\n"
    "prepopulate = 0.25\n"
    "[ops]\n"
    "create_file = 3\n"
    "rmdir = 0\n"
    "[sizes]\n"
    "write_size = 0:1 1:2 2:0.5 1024:9   ; inline comment\n"
    "write_size_mode = boundary\n"
    "write_offset = uniform:3\n"
    "write_offset_mode = boundary_pm1\n"
    "trunc_size = 4096:1\n"
    "trunc_size_mode = range\n"
    "falloc_offset = uniform:0\n"
    "falloc_len = 1:1\n"
    "xattr_size = 8:1,16:1\n"
    "[bits]\n"
    "open_flags = trunc:1 append:0.3 wronly:0.5\n"
    "mode = sticky:1 ox:0.25\n";

Test(metis_config, every_key_run_and_fs)
{
    struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load(cfgt_every_key, &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.run.seed, UINT64_MAX);
    cr_expect_eq(c.run.max_depth, 77);
    cr_expect_eq(c.run.ops, 1234);
    cr_expect_eq(c.run.seconds, 2.5);
    cr_expect_str_eq(c.run.hash, "sha256");
    cr_expect_eq(c.run.keep_going, 1);
    cr_expect_str_eq(c.run.out, "/tmp/some-out");
    cr_expect_eq(c.run.out_line, 9);
    cr_expect_eq(c.run.ring, 3);
    cr_expect_eq(c.run.hashtable_log2, 18);
    cr_assert_eq(c.nfs, 3);
    const struct fs_config *a = &c.fs[0], *b = &c.fs[1], *f = &c.fs[2];
    cr_expect_str_eq(a->name, "a");
    cr_expect_eq(a->line, 12);
    cr_expect_eq(a->type, FS_KERNEL);
    cr_expect_str_eq(a->fstype, "ext4");
    cr_expect_eq(a->size, 1024 * 1024);
    cr_expect_eq(a->size_line, 15);
    cr_expect_str_eq(a->mkfs_opts, "-b 1024");
    cr_expect_str_eq(a->mount_opts, "noatime");
    cr_expect_str_eq(a->exclude, "lost+found,junk");
    cr_expect_str_eq(a->ignore, "dir_nlink, xattrs");
    cr_expect_eq(a->remount, 0);
    cr_expect_eq(a->op_timeout, 2.5);
    cr_expect_eq(b->type, FS_REFFS);
    cr_expect_eq(b->size, 512 * 1024);
    cr_expect_str_eq(b->reffs_opts, "mutation=none");
    cr_expect_eq(f->type, FS_FUSE);
    cr_expect_str_eq(f->mount_cmd, "fuse-thing {img} {mnt}");
    cr_expect_str_eq(f->unmount_cmd, "umount {mnt}");
}

Test(metis_config, every_key_pool_ops_sizes_bits)
{
    struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load(cfgt_every_key, &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.pool.dirs, 3);
    cr_expect_eq(c.pool.files, 1);
    cr_expect_eq(c.pool.depth, 2);
    cr_expect_eq(c.pool.name_len, 20);
    cr_expect_eq(c.pool.xattr_names, 3);
    cr_expect_eq(c.pool.nuids, 3);
    cr_expect_eq(c.pool.uids[1], 7);
    cr_expect_eq(c.pool.uids[2], 9);
    cr_expect_eq(c.pool.ngids, 1);
    cr_expect_eq(c.pool.gids[0], 5);
    cr_expect_eq(c.pool.prepopulate, 0.25);
    cr_expect_eq(c.op_weight[OP_create_file], 3);
    cr_expect_eq(c.op_weight[OP_rmdir], 0);
    cr_expect_eq(c.op_weight[OP_mkdir], 1);

    const struct partitions *ws = &c.part[ARG_WRITE_SIZE];
    cr_expect_eq(ws->nparts, 12);        /* 1024 = 2^10 is partition 11 */
    cr_expect_eq(ws->weight[0], 1);
    cr_expect_eq(ws->weight[1], 2);
    cr_expect_eq(ws->weight[2], 0.5);
    cr_expect_eq(ws->weight[3], 0);
    cr_expect_eq(ws->weight[11], 9);
    cr_expect_eq(ws->mode, PART_BOUNDARY);
    cr_expect_eq(c.part[ARG_WRITE_OFFSET].nparts, 4);
    cr_expect_eq(c.part[ARG_WRITE_OFFSET].weight[3], 1);
    cr_expect_eq(c.part[ARG_WRITE_OFFSET].mode, PART_BOUNDARY_PM1);
    cr_expect_eq(c.part[ARG_TRUNC_SIZE].nparts, 14);
    cr_expect_eq(c.part[ARG_TRUNC_SIZE].weight[13], 1);
    cr_expect_eq(c.part[ARG_TRUNC_SIZE].weight[0], 0);
    cr_expect_eq(c.part[ARG_TRUNC_SIZE].mode, PART_RANGE);
    cr_expect_eq(c.part[ARG_FALLOC_OFFSET].nparts, 1);
    cr_expect_eq(c.part[ARG_FALLOC_LEN].nparts, 2);
    cr_expect_eq(c.part[ARG_XATTR_SIZE].nparts, 6);
    cr_expect_eq(c.part[ARG_XATTR_SIZE].weight[4], 1);
    cr_expect_eq(c.part[ARG_XATTR_SIZE].weight[5], 1);

    const struct bitmap *of = &c.bits[BM_OPEN_FLAGS], *m = &c.bits[BM_MODE];
    for (int i = 0; i < of->nbits; i++) {
        double want = !strcmp(of->name[i], "trunc") ? 1 : !strcmp(of->name[i], "append") ? 0.3
                    : !strcmp(of->name[i], "wronly") ? 0.5 : 0;
        cr_expect_eq(of->prob[i], want, "open_flags %s", of->name[i]);
    }
    for (int i = 0; i < m->nbits; i++) {
        double want = !strcmp(m->name[i], "sticky") ? 1 : !strcmp(m->name[i], "ox") ? 0.25 : 0;
        cr_expect_eq(m->prob[i], want, "mode %s", m->name[i]);
    }
}

Test(metis_config, sizes_and_booleans_spellings)
{
    static const struct { const char *v; uint64_t bytes; } sizes[] = {
        { "262144", 262144 }, { "256K", 262144 }, { "256k", 262144 }, { "256KiB", 262144 },
        { "16M", 16ULL << 20 }, { "16MB", 16ULL << 20 }, { "1G", 1ULL << 30 }, { "0", 0 },
    };
    struct metis_config c;
    char text[256], err[512];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(text, sizeof text, "[fs r]\ntype = reffs\nsize = %s\n", sizes[i].v);
        cr_assert_eq(cfgt_load(text, &c, err, sizeof err), 0, "%s", err);
        cr_expect_eq(c.fs[0].size, sizes[i].bytes, "size = %s", sizes[i].v);
    }
    static const char *const yes[] = { "1", "yes", "TRUE", "on" }, *const no[] = { "0", "No", "false", "off" };
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, "[run]\nkeep_going = %s\n[fs r]\ntype = reffs\nremount = %s\n",
                 yes[i], no[i]);
        cr_assert_eq(cfgt_load(text, &c, err, sizeof err), 0, "%s", err);
        cr_expect_eq(c.run.keep_going, 1, "%s", yes[i]);
        cr_expect_eq(c.fs[0].remount, 0, "%s", no[i]);
    }
}

Test(metis_config, empty_bits_and_exclude)
{
    struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load("[fs k]\ntype = kernel\nfstype = ext4\nexclude =\n[bits]\nmode =\n",
                           &c, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[0].exclude, "");
    for (int i = 0; i < c.bits[BM_MODE].nbits; i++)
        cr_expect_eq(c.bits[BM_MODE].prob[i], 0);
    cr_expect_eq(c.bits[BM_OPEN_FLAGS].prob[0], 0.5, "untouched bitmap keeps defaults");
}

static const char *cfgt_root(void)
{
    const char *r = getenv("METIS_ROOT");
    return r && *r ? r : ".";
}

Test(metis_config, shipped_configs_load)
{
    char pattern[1024], err[512];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/configs/*.ini", cfgt_root());
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no %s (run from the repository root)", pattern);
    cr_expect_geq(g.gl_pathc, 6);
    static const char *const wanted[] = { "ref-vs-ext4", "ext2-vs-ext4", "ext4-vs-xfs",
                                          "ext4-vs-btrfs", "reffs-only", "smoke", "general" };
    int found = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct metis_config c;
        int rc = config_load(g.gl_pathv[i], &c, err, sizeof err);
        cr_expect_eq(rc, 0, "%s", err);
        for (size_t w = 0; rc == 0 && w < sizeof wanted / sizeof wanted[0]; w++)
            found += strcmp(c.name, wanted[w]) == 0;
    }
    globfree(&g);
    cr_expect_eq(found, 7);
}

Test(metis_config, search_keys)
{
    struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load("[run]\nmax_searches = 3\n[fs a]\ntype = reffs\n[fs b]\ntype = reffs\n"
                           "[pool]\nexisting = 0.25\n[sizes]\nwrite_end_boundary = 0.5\n"
                           "falloc_end_boundary = 0\n[vary]\nlong_names = 1\nfill = 0.5\n"
                           "bytes_left = 8K\nfill_inodes = 0.25\ninodes_left = 3\n", &c, err,
                           sizeof err), 0, "%s", err);
    cr_expect_eq(c.run.max_searches, 3);
    cr_expect_eq(c.pool.existing, 0.25);
    cr_expect_eq(c.end_boundary[ARG_WRITE_OFFSET], 0.5);
    cr_expect_eq(c.end_boundary[ARG_FALLOC_OFFSET], 0);
    cr_expect_eq(c.vary.long_names, 1);
    cr_expect_eq(c.vary.fill, 0.5);
    cr_expect_eq(c.vary.bytes_left, 8192);
    cr_expect_eq(c.vary.fill_inodes, 0.25);
    cr_expect_eq(c.vary.inodes_left, 3);
    cr_expect_eq(c.vary.long_names_on, 0, "the variant is drawn by vary_apply, not by loading");
}

Test(metis_config, shipped_default_run_is_a_minute)
{
    char path[1024], err[512];
    struct metis_config c;
    snprintf(path, sizeof path, "%s/configs/ref-vs-ext4.ini", cfgt_root());
    cr_assert_eq(config_load(path, &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.run.seconds, 60);
    cr_expect_eq(c.fs[0].type, FS_REFFS);
    cr_expect_str_eq(c.fs[1].fstype, "ext4");
    cr_expect_eq(c.fs[1].size, 256 * 1024);
}

/* ---- config_validate: needs the machine, so tests skip what this host lacks. */

static bool cfgt_have(const char *prog)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "PATH=$PATH:/sbin:/usr/sbin command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

/* The kernel knows fstype once its module is loaded: as Metis does, modprobe is tried by the
 * module's name and by its fs- alias before the fs counts as absent (a module nobody has loaded
 * yet is not missing). */
static bool cfgt_kernel_has(const char *fstype)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "grep -qw %s /proc/filesystems || { modprobe -q %s || modprobe -q "
             "fs-%s; grep -qw %s /proc/filesystems; } 2>/dev/null", fstype, fstype, fstype, fstype);
    return system(cmd) == 0;
}

Test(metis_config, validate_missing_mkfs)
{
    struct metis_config c;
    char err[512], want[256];
    cr_assert_eq(cfgt_load("[fs k]\ntype = kernel\nfstype = nosuchfs9\n", &c, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: [fs k]: mkfs.nosuchfs9 is not in PATH, /sbin or /usr/sbin",
             cfgt_path);
    cr_expect_str_eq(err, want);
}

/* A FUSE fs on an image is made with mkfs.FSTYPE: a missing one is named with its package, before
 * any set-up (it was an exit 3 at set-up). */
/* The first format of the provider table whose mkfs this host lacks: a host never has them
 * all, so the test runs wherever make check does (dosfstools alone was seen installed). */
static const char *cfgt_missing_mkfs_type(void)
{
    static const char *types[] = { "vfat", "jfs", "nilfs2", "udf", "reiserfs", "erofs", "f2fs" };
    char prog[32];
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        snprintf(prog, sizeof prog, "mkfs.%s", types[i]);
        if (!cfgt_have(prog))
            return types[i];
    }
    return NULL;
}

Test(metis_config, validate_fuse_mkfs_names_package)
{
    const char *type = cfgt_missing_mkfs_type();
    cr_assert_not_null(type, "every mkfs of the provider table is installed here");
    struct metis_config c;
    char err[512], want[300], ini[200], prog[32];
    snprintf(ini, sizeof ini, "[fs f]\ntype = fuse\nfstype = %s\nsize = 1M\n"
             "mount_cmd = somefuse {img} {mnt}\n", type);
    snprintf(prog, sizeof prog, "mkfs.%s", type);
    const char *pkg = fs_program_package(prog);
    cr_assert_not_null(pkg, "%s is not in the provider table", prog);
    cr_assert_eq(cfgt_load(ini, &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: [fs f]: %s is not in PATH, /sbin or /usr/sbin "
             "(Debian package %s: apt-get install %s)", cfgt_path, prog, pkg, pkg);
    cr_expect_str_eq(err, want);
}

Test(metis_config, program_packages)
{
    cr_expect_str_eq(fs_program_package("mkfs.vfat"), "dosfstools");
    cr_expect_str_eq(fs_program_package("mkfs.exfat"), "exfatprogs");
    cr_expect_str_eq(fs_program_package("mkfs.ntfs"), "ntfs-3g");
    cr_expect_str_eq(fs_program_package("mkfs.f2fs"), "f2fs-tools");
    cr_expect_str_eq(fs_program_package("fusefat"), "fusefat");
    cr_expect_null(fs_program_package("nosuchprog9"));
}

Test(metis_config, validate_size_below_minimum)
{
    if (!cfgt_have("mkfs.xfs") || !cfgt_kernel_has("xfs"))
        cr_skip_test("no xfs here");
    struct metis_config c;
    char err[512], want[256];
    cr_assert_eq(cfgt_load("[fs x]\ntype = kernel\nfstype = xfs\nsize = 8M\n", &c, err,
                           sizeof err), 0, "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:4: [fs x]: size 8 MiB is below the smallest xfs (16 MiB)",
             cfgt_path);
    cr_expect_str_eq(err, want);
    cr_assert_eq(cfgt_load("[fs x]\ntype = kernel\nfstype = xfs\nsize = 16M\n", &c, err,
                           sizeof err), 0, "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), 0, "%s", err);
}

Test(metis_config, validate_btrfs_needs_mixed)
{
    if (!cfgt_have("mkfs.btrfs") || !cfgt_kernel_has("btrfs"))
        cr_skip_test("no btrfs here");
    struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load("[fs b]\ntype = kernel\nfstype = btrfs\nsize = 16M\n", &c, err,
                           sizeof err), 0, "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), -1);
    cr_expect(strstr(err, ":4: [fs b]: btrfs below 109 MiB needs mkfs_opts = -M"), "%s", err);
}

Test(metis_config, validate_out_is_a_file)
{
    struct metis_config c;
    char text[256], file[128], err[512], want[512];
    snprintf(file, sizeof file, "%s/plain", cfgt_dir);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(text, sizeof text, "[fs r]\ntype = reffs\n[run]\nout = %s\n", file);
    cr_assert_eq(cfgt_load(text, &c, err, sizeof err), 0, "%s", err);
    if (access("/dev/fuse", R_OK | W_OK) != 0)
        cr_skip_test("no /dev/fuse");
    cr_expect_eq(config_validate(&c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:4: out: %s exists and is not a directory", cfgt_path, file);
    cr_expect_str_eq(err, want);
    snprintf(text, sizeof text, "[fs r]\ntype = reffs\n[run]\nout = %s\n", cfgt_dir);
    cr_assert_eq(cfgt_load(text, &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(config_validate(&c, err, sizeof err), 0, "an existing directory is fine: %s", err);
}

Test(metis_config, errno_equiv_pairs)
{
    static struct metis_config cfg;
    char err[512];
    cr_assert_eq(cfgt_load("[fs a]\ntype = reffs\n[fs b]\ntype = reffs\n"
                           "errno_equiv = EEXIST:ENOTEMPTY, EPERM:EISDIR\n", &cfg, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(cfg.fs[1].nequiv, 2);
    cr_assert(fs_errno_equivalent(&cfg.fs[1], EEXIST, ENOTEMPTY));
    cr_assert(fs_errno_equivalent(&cfg.fs[1], EPERM, EISDIR));
    cr_assert(!fs_errno_equivalent(&cfg.fs[1], ENOTEMPTY, EEXIST), "pairs are one-way");
    cr_assert(!fs_errno_equivalent(&cfg.fs[0], EEXIST, ENOTEMPTY));
    cr_assert_eq(cfgt_load("[fs a]\ntype = reffs\nerrno_equiv = EEXIST:EBOGUS\n", &cfg, err,
                           sizeof err), -1);
    cr_assert(strstr(err, ":3: errno_equiv: 'EBOGUS' is not an errno name"), "%s", err);
    cr_assert_eq(cfgt_load("[fs a]\ntype = reffs\nerrno_equiv = EEXIST\n", &cfg, err,
                           sizeof err), -1);
    cr_assert(strstr(err, ":3: errno_equiv: 'EEXIST' is not ERRNO:ERRNO"), "%s", err);
}

Test(metis_config, fuse_restore_equalize_limit_and_format_exclusions)
{
    static struct metis_config c;
    char err[512];
    cr_assert_eq(cfgt_load("[fs r]\ntype = reffs\n[fs f]\ntype = fuse\nmount_cmd = x {mnt}\n"
                           "[fs g]\ntype = fuse\nmount_cmd = y {mnt}\nrestore = logical\n"
                           "[fs e]\ntype = fuse\nfstype = ext4\nsize = 1M\nmount_cmd = z\n",
                           &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.run.equalize_limit, 1024ULL * 1024 * 1024);
    cr_expect_str_eq(c.fs[1].restore, "auto");
    cr_expect_str_eq(c.fs[2].restore, "logical");
    cr_expect_str_eq(c.fs[1].exclude, "", "a fuse fs without fstype has no format to go by");
    cr_expect_str_eq(c.fs[3].exclude, "lost+found", "ext4's, whoever mounts it");
    cr_assert_eq(cfgt_load("[run]\nequalize_limit = 16M\n[fs f]\ntype = fuse\nmount_cmd = x\n"
                           "restore = snapshot\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.run.equalize_limit, 16ULL * 1024 * 1024);
    cr_expect_str_eq(c.fs[0].restore, "snapshot");
    cr_assert_eq(cfgt_load("[fs f]\ntype = fuse\nmount_cmd = x\nreadback = dump\n"
                           "readback_check = 1\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[0].readback, "dump");
    cr_expect_eq(c.fs[0].readback_check, 1);
}

/* A real mount command is longer than one INI line: its value goes on over indented lines,
 * joined with one space; an indented key is still a key, a comment or blank line ends it. */
Test(metis_config, value_continued_on_indented_lines)
{
    static struct metis_config c;
    char err[512], text[2048], want[1024], part[80];
    memset(part, 'o', 60);
    part[60] = '\0';
    snprintf(want, sizeof want, "fuse-overlayfs -o lowerdir=/l/%s -o upperdir=/u/%s "
             "-o workdir=/w/%s -o allow_other {mnt}", part, part, part);
    snprintf(text, sizeof text, "[fs r]\ntype = reffs\nsize = 64M\n[fs f]\ntype = fuse\n"
             "mount_cmd = fuse-overlayfs -o lowerdir=/l/%s\n  -o upperdir=/u/%s\n"
             "\t-o workdir=/w/%s   \n  -o allow_other {mnt}   ; the daemon\n"
             "  restore = logical\n; a comment\n  unmount_cmd = umount\n  {mnt}\n\n"
             "[pool]\n  dirs = 3\n", part, part, part);
    cr_assert_gt(strlen(want), 200, "longer than one line of inih");
    cr_assert_eq(cfgt_load(text, &c, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[1].mount_cmd, want);
    cr_expect_str_eq(c.fs[1].restore, "logical", "an indented key starts a key of its own");
    cr_expect_str_eq(c.fs[1].unmount_cmd, "umount {mnt}", "a short continued value");
    cr_expect_eq(c.pool.dirs, 3);
    snprintf(text, sizeof text, "[fs f]\ntype = fuse\nmount_cmd = x\n  y\nbogus = 1\n");
    cr_assert_eq(cfgt_load(text, &c, err, sizeof err), -1);
    cr_expect(strstr(err, "test.ini:5: "), "the line after a continued value counts: %s", err);
}

/* An inline comment ends a continued value (what followed would vanish with it), and every
 * physical line keeps inih's limit, continued or not. */
Test(metis_config, continuation_ends_at_inline_comment_and_keeps_line_limit)
{
    static struct metis_config c;
    char err[512], text[1024], big[240];
    cr_assert_eq(cfgt_load("[fs f]\ntype = fuse\nmount_cmd = a ; note\n  b\n", &c, err,
                           sizeof err), -1);
    cr_expect(strstr(err, "test.ini:4: syntax error"), "b is not joined after a comment: %s", err);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(text, sizeof text, "[fs f]\ntype = fuse\nmount_cmd = %s\n  {mnt}\n", big);
    cr_assert_eq(cfgt_load(text, &c, err, sizeof err), -1);
    cr_expect(strstr(err, "test.ini:3: mount_cmd: line too long"), "%s", err);
}
