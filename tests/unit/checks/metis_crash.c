/* Unit tests of the crash check's config keys, per-format facts and its field in traces. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/config/config.h"
#include "engine/vocab/crash_modes.h"
#include "engine/config/crash_config.h"
#include "engine/step/step.h"
#include "trace/trace.h"

static char mcr_dir[64], mcr_path[128];

static void mcr_setup(void)
{
    snprintf(mcr_dir, sizeof mcr_dir, "/tmp/metis-crash-unit-XXXXXX");
    cr_assert_not_null(mkdtemp(mcr_dir));
    snprintf(mcr_path, sizeof mcr_path, "%s/c.ini", mcr_dir);
}

static void mcr_teardown(void)
{
    unlink(mcr_path);
    rmdir(mcr_dir);
}

TestSuite(metis_crash, .init = mcr_setup, .fini = mcr_teardown);

/* Loads text; returns config_load's result with its message in err. */
static int mcr_load(const char *text, struct metis_config *cfg, char *err, size_t len)
{
    FILE *f = fopen(mcr_path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    err[0] = 0;
    return config_load(mcr_path, cfg, err, len);
}

static void mcr_refused(const char *text, int line, const char *message)
{
    static struct metis_config cfg;
    char err[1024], want[1024];
    snprintf(want, sizeof want, "%s:%d: %s", mcr_path, line, message);
    cr_expect_eq(mcr_load(text, &cfg, err, sizeof err), -1, "accepted:\n%s", text);
    cr_expect_str_eq(err, want, "for:\n%s", text);
}

#define EXT4_4M "[fs e]\ntype = kernel\nfstype = ext4\nsize = 4M\n"

Test(metis_crash, modes_and_kinds)
{
    cr_expect_eq(crash_mode_parse("off"), CRASH_OFF);
    cr_expect_eq(crash_mode_parse("fsync"), CRASH_FSYNC);
    cr_expect_eq(crash_mode_parse("syncfs"), CRASH_SYNCFS);
    cr_expect_eq(crash_mode_parse("any"), CRASH_ANY);
    cr_expect_eq(crash_mode_parse("FSYNC"), -1);
    cr_expect_eq(crash_mode_parse(""), -1);
    for (int m = CRASH_OFF; m <= CRASH_ANY; m++)
        cr_expect_eq(crash_mode_parse(crash_mode_name(m)), m);
    for (int k = 1; k <= 4; k *= 2) {
        cr_expect_eq(crash_kind_parse(crash_kind_name((unsigned)k)), k);
        cr_expect_eq(CRASH_OF_DIFF(DIFF_OF_CRASH(k)), (unsigned)k);
    }
    cr_expect_eq(crash_kind_parse("same"), 0);
    cr_expect_eq(crash_kind_parse("lost"), -1);
    cr_expect_eq(DIFF_OF_CRASH(CRASH_LOST | CRASH_MOUNT | CRASH_FSCK) &
                 (DIFF_RET | DIFF_ERRNO | DIFF_STATE), 0u);
}

Test(metis_crash, per_format_facts)
{
    cr_expect_eq(crash_format_journals("ext2", 64 << 20), 0);
    cr_expect_eq(crash_format_journals("ext4", 256 << 10), 0);
    cr_expect_eq(crash_format_journals("ext4", 2 << 20), 1);
    cr_expect_eq(crash_format_journals("xfs", 16 << 20), 1);
    cr_expect_str_eq(crash_checker("ext4"), "e2fsck -fn");
    cr_expect_not_null(crash_checker("xfs"));
    cr_expect_not_null(crash_checker("btrfs"));
    cr_expect_null(crash_checker("f2fs"));
}

Test(metis_crash, keys_parse)
{
    static struct metis_config cfg;
    char err[1024];
    cr_assert_eq(mcr_load(EXT4_4M "[fs r]\ntype = reffs\n", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(cfg.run.crash, "off");
    cr_expect_eq(cfg.fs[0].crash, 1);
    cr_expect_eq(crash_applies(&cfg, &cfg.fs[0]), 0);
    cr_assert_eq(mcr_load("[run]\ncrash = any\ncrash_test_skip = write_file\n" EXT4_4M
                          "[fs r]\ntype = reffs\n", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(cfg.run.crash_test_skip, "write_file");
    cr_expect_eq(crash_applies(&cfg, &cfg.fs[0]), 1);
    cr_expect_eq(crash_applies(&cfg, &cfg.fs[1]), 0, "RefFS has no device to copy");
    cr_assert_eq(mcr_load("[run]\ncrash = fsync\n" EXT4_4M "crash = 0\n", &cfg, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(crash_applies(&cfg, &cfg.fs[0]), 0, "crash = 0 exempts the fs");
}

Test(metis_crash, bad_configs_refused)
{
    mcr_refused("[run]\ncrash = always\n" EXT4_4M, 2,
                "crash: 'always' is not off, fsync, syncfs or any");
    mcr_refused("[run]\ncrash_test_skip = write\n" EXT4_4M, 2,
                "crash_test_skip: 'write' is not an operation");
    mcr_refused("[run]\ncrash = any\n[fs e2]\ntype = kernel\nfstype = ext2\n", 3,
                "[fs e2]: crash = any needs a journal and ext2 has none: use fsync or syncfs, or "
                "crash = 0 here");
    mcr_refused("[run]\ncrash = any\n[fs e]\ntype = kernel\nfstype = ext4\n", 3,
                "[fs e]: crash = any needs a journal and mkfs makes this fstype without one below "
                "2 MiB: grow size to 2M or more");
    mcr_refused("[run]\ncrash = any\n[fs f]\ntype = kernel\nfstype = f2fs\n", 3,
                "[fs f]: crash = any needs a checker, and Metis knows none for this fstype: set "
                "crash = 0 here or use fsync or syncfs");
    mcr_refused("[run]\ncrash = syncfs\n" EXT4_4M "remount = 0\n", 3,
                "[fs e]: a crash check needs remount = 1: it mounts each step's copy once the "
                "fs is unmounted, and kept mounted (remount = 0) it is not");
    mcr_refused("[run]\ncrash = fsync\n[fs f]\ntype = fuse\nmount_cmd = x {mnt}\nsize = 1M\n", 3,
                "[fs f]: crash checks of fuse file systems are not implemented: set crash = 0 here");
    mcr_refused("[fs r]\ntype = reffs\ncrash = 1\n", 3,
                "[fs r]: crash does not apply to a reffs file system");
}

Test(metis_crash, stream_states_configs)
{
    static struct metis_config cfg;
    char err[1024];
    cr_assert_eq(mcr_load("[run]\ncrash = fsync\ncrash_states = stream\ncrash_states_max = 9\n"
                          EXT4_4M, &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_eq(crash_states_parse(cfg.run.crash_states), CRASH_STATES_STREAM);
    cr_expect_eq(cfg.run.crash_states_max, 9);
    mcr_refused("[run]\ncrash = fsync\ncrash_test_lie = 1\n" EXT4_4M, 3,
                "crash_test_lie: the recording device lies only under a crash check with "
                "crash_states = flushes or stream");
    mcr_refused("[run]\ncrash = fsync\ncrash_states = stream\ncrash_test_lie = 3\n" EXT4_4M, 4,
                "crash_test_lie: 3 is out of range (0..2)");
    mcr_refused("[run]\ncrash_states = all\n" EXT4_4M, 2,
                "crash_states: 'all' is not copy, flushes or stream");
    mcr_refused("[run]\ncrash = fsync\ncrash_states = flushes\n[fs e2]\ntype = kernel\n"
                "fstype = ext2\n", 4, "[fs e2]: crash_states = flushes or stream needs a journal "
                "and ext2 has none: use crash_states = copy, or crash = 0 here");
    mcr_refused("[run]\ncrash = syncfs\ncrash_states = stream\n[fs f]\ntype = kernel\n"
                "fstype = f2fs\n", 4, "[fs f]: crash_states = flushes or stream needs a checker, "
                "and Metis knows none for this fstype: set crash = 0 here or crash_states = copy");
}

Test(metis_crash, ext2_without_any_is_fine)
{
    static struct metis_config cfg;
    char err[1024];
    cr_expect_eq(mcr_load("[run]\ncrash = fsync\n[fs e2]\ntype = kernel\nfstype = ext2\n", &cfg,
                          err, sizeof err), 0, "%s", err);
}

static const char mcr_trace[] =
    "metis-trace 1\n"
    "run seed=1 hash=md5\n"
    "fs 0 name=ext4 type=kernel fstype=ext4 size=4194304\n"
    "fs 1 name=xfs type=kernel fstype=xfs size=16777216\n"
    "op 3 write_file path=/f0 flags=0x1 off=0 size=5 seed=0x1\n"
    "res 3 ext4 ret=5 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "res 3 xfs ret=5 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "discrepancy 3 fs=ext4 ret=same errno=same state=same crash=differs\n"
    "discrepancy 3 fs=xfs ret=same errno=same state=differs crash=mount\n"
    "end ops=1\n";

Test(metis_crash, trace_field_round_trips)
{
    struct trace t;
    char err[1024], *out = NULL;
    size_t len = 0;
    cr_assert_eq(trace_parse(mcr_trace, strlen(mcr_trace), "c.trace", &t, err, sizeof err), 0,
                 "%s", err);
    unsigned d[METIS_MAX_FS];
    cr_expect_eq(trace_final_discrepancy(&t, d), 1);
    cr_expect_eq(d[0], (unsigned)DIFF_CRASH, "the reference may fail its own crash check");
    cr_expect_eq(d[1], (unsigned)(DIFF_STATE | DIFF_CRASH_MOUNT));
    FILE *f = open_memstream(&out, &len);
    cr_assert_eq(trace_write(&t, f), 0);
    fclose(f);
    cr_expect_str_eq(out, mcr_trace);
    free(out);
    trace_free(&t);
}

static void mcr_trace_refused(const char *from, const char *to, const char *what)
{
    struct trace t;
    char err[1024], text[2048];
    const char *at = strstr(mcr_trace, from);
    cr_assert_not_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - mcr_trace), mcr_trace, to, at + strlen(from));
    cr_expect_eq(trace_parse(text, strlen(text), "c.trace", &t, err, sizeof err), -1, "%s", what);
    cr_expect(strncmp(err, "c.trace:8: ", 11) == 0, "%s: %s", what, err);
}

Test(metis_crash, bad_trace_fields_refused)
{
    mcr_trace_refused("fs=ext4 ret=same errno=same state=same crash=differs",
                      "fs=ext4 ret=same errno=same state=same crash=lost", "unknown kind");
    mcr_trace_refused("fs=ext4 ret=same errno=same state=same crash=differs",
                      "fs=ext4 ret=same errno=same state=same crash=same", "no kind");
    mcr_trace_refused("fs=ext4 ret=same errno=same state=same crash=differs",
                      "fs=ext4 ret=same errno=same state=differs crash=differs", "reference differs");
    mcr_trace_refused("fs=ext4 ret=same errno=same state=same crash=differs",
                      "fs=ext4 crash=differs ret=same errno=same state=same", "crash not last");
}
