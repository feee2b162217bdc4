/* Unit tests of kernel file systems without a device (tmpfs, overlay): their format facts and config rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/config/config.h"
#include "engine/vocab/crash_modes.h"
#include "engine/config/crash_config.h"

static char dv_dir[64], dv_path[128];

static void dv_setup(void)
{
    snprintf(dv_dir, sizeof dv_dir, "/tmp/metis-devless-XXXXXX");
    cr_assert_not_null(mkdtemp(dv_dir));
    snprintf(dv_path, sizeof dv_path, "%s/c.ini", dv_dir);
}

static void dv_teardown(void)
{
    unlink(dv_path);
    rmdir(dv_dir);
}

TestSuite(metis_devless, .init = dv_setup, .fini = dv_teardown);

static int dv_load(const char *text, struct metis_config *cfg, char *err, size_t len)
{
    FILE *f = fopen(dv_path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    err[0] = 0;
    return config_load(dv_path, cfg, err, len);
}

/* Refused with "<file>:<line>: <message>". */
static void dv_refused(const char *text, int line, const char *message)
{
    struct metis_config cfg;
    char err[1024], want[1024];
    snprintf(want, sizeof want, "%s:%d: %s", dv_path, line, message);
    cr_expect_eq(dv_load(text, &cfg, err, sizeof err), -1, "accepted:\n%s", text);
    cr_expect_str_eq(err, want, "for:\n%s", text);
}

#define TMPFS "[fs t]\ntype = kernel\nfstype = tmpfs\n"          /* lines 1-3 */
#define OVERLAY "[fs o]\ntype = kernel\nfstype = overlay\n"      /* lines 1-3 */

Test(metis_devless, format_facts)
{
    cr_expect_eq(fs_format_devless("tmpfs"), 1);
    cr_expect_eq(fs_format_devless("overlay"), 1);
    cr_expect_eq(fs_format_devless("ext4"), 0);
    cr_expect_eq(fs_format_devless("nosuchfs"), 0);
    cr_expect_eq(fs_format_default_size("tmpfs"), 256 * 1024);
    cr_expect_eq(fs_format_default_size("overlay"), 256 * 1024);
    cr_expect_str_eq(fs_format_of("tmpfs")->exclude, "");
}

Test(metis_devless, keys_and_defaults)
{
    struct metis_config cfg;
    char err[1024];
    cr_assert_eq(dv_load(TMPFS "inodes = 64\n" OVERLAY "populate_lower = yes\ninodes = 9\n", &cfg,
                         err, sizeof err), 0, "%s", err);
    cr_expect_eq(cfg.fs[0].inodes, 64);
    cr_expect_eq(cfg.fs[0].remount, 0, "a tmpfs stays mounted");
    cr_expect_eq(cfg.fs[1].remount, 1, "an overlay is remounted around every step");
    cr_expect_eq(cfg.fs[1].populate_lower, 1);
    cr_expect_eq(cfg.fs[1].inodes, 9);
    cr_assert_eq(dv_load(TMPFS "remount = 0\n", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_eq(cfg.fs[0].inodes, 0, "0: the kernel's default");
    cr_expect_eq(config_validate(&cfg, err, sizeof err), 0, "no mkfs.tmpfs needed: %s", err);
}

Test(metis_devless, refusals)
{
    dv_refused(TMPFS "remount = 1\n", 4,
               "[fs t]: a tmpfs keeps its data only while mounted: remount must be 0 (its default)");
    dv_refused(TMPFS "populate_lower = 1\n", 4, "[fs t]: populate_lower applies to overlay only");
    dv_refused(OVERLAY "mkfs_opts = -q\n", 4,
               "[fs o]: overlay has no device and no mkfs: mkfs_opts does not apply");
    dv_refused("[fs e]\ntype = kernel\nfstype = ext4\ninodes = 5\n", 4,
               "[fs e]: inodes applies only to tmpfs, overlay and a fuse fs whose mount_cmd names a {dir}");
    dv_refused("[run]\ncompare_mtime = 1\n" TMPFS, 3, "[fs t]: tmpfs is restored logically and "
               "recorded trees hold no mtimes: compare_mtime cannot be used with it");
    dv_refused("[fs r]\ntype = reffs\ninodes = 5\n", 3,
               "[fs r]: inodes does not apply to a reffs file system");
}

Test(metis_devless, no_crash_check)
{
    struct metis_config cfg;
    char err[1024];
    dv_refused("[run]\ncrash = fsync\n" OVERLAY, 3,
               "[fs o]: tmpfs and overlay have no device, so nothing of them survives a crash to "
               "be checked: set crash = 0 here");
    cr_assert_eq(dv_load("[run]\ncrash = fsync\n" TMPFS "crash = 0\n", &cfg, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(crash_applies(&cfg, &cfg.fs[0]), 0);
}
