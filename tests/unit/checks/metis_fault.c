/* Unit tests of fault steps: their names, arm commands, config checks, draws, and what a failed operation may leave of file data. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/config/config.h"
#include "engine/fault/fault_data.h"
#include "engine/vocab/fault_kinds.h"
#include "engine/config/fault_config.h"
#include "engine/fault/fault_plan.h"

static char mfl_dir[64], mfl_path[128];

static void mfl_setup(void)
{
    snprintf(mfl_dir, sizeof mfl_dir, "/tmp/metis-fault-unit-XXXXXX");
    cr_assert_not_null(mkdtemp(mfl_dir));
    snprintf(mfl_path, sizeof mfl_path, "%s/c.ini", mfl_dir);
}

static void mfl_teardown(void)
{
    unlink(mfl_path);
    rmdir(mfl_dir);
}

TestSuite(metis_fault, .init = mfl_setup, .fini = mfl_teardown);

static int mfl_load(const char *text, struct metis_config *cfg, char *err, size_t len)
{
    FILE *f = fopen(mfl_path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    err[0] = 0;
    return config_load(mfl_path, cfg, err, len);
}

#define EXT4 "[fs e]\ntype = kernel\nfstype = ext4\nsize = 4M\n"

Test(metis_fault, kinds_and_findings_by_name)
{
    unsigned bits;
    char bad[32];
    cr_expect_eq(fault_kind_parse("lost_write"), FAULT_LOST_WRITE);
    cr_expect_eq(fault_kind_parse("eio"), -1);
    cr_expect_eq(fault_kinds_parse("eio_read,lost_write", &bits, bad, sizeof bad), 0);
    cr_expect_eq(bits, (1u << FAULT_EIO_READ) | (1u << FAULT_LOST_WRITE));
    cr_expect_eq(fault_kinds_parse("eio_read,torn", &bits, bad, sizeof bad), -1);
    cr_expect_str_eq(bad, "torn");
    for (unsigned k = 0; k < 64; k++) {
        char list[64];
        fault_found_list(k, list, sizeof list);
        cr_expect_eq(fault_found_parse(list), (int)k, "'%s'", list);
    }
    cr_expect_eq(fault_found_parse("lost,bogus"), -1);
    cr_expect_str_eq(fault_found_name(FAULT_FSCK | FAULT_LOST), "lost");
}

Test(metis_fault, arm_commands)
{
    char out[128];
    struct fault_spec s = { 1, FAULT_EIO_WRITE, 3, 0 };
    fault_arm_command(&s, out, sizeof out);
    cr_expect_str_eq(out, "arm write eio at=3");
    s = (struct fault_spec){ 1, FAULT_EIO_READ, 0, 0 };
    fault_arm_command(&s, out, sizeof out);
    cr_expect_str_eq(out, "arm read eio at=0");
    s = (struct fault_spec){ 1, FAULT_LOST_WRITE, 7, 0 };
    fault_arm_command(&s, out, sizeof out);
    cr_expect_str_eq(out, "arm write lost at=7 count=1");
    s.silent = 1;
    s.at = 0;
    fault_arm_command(&s, out, sizeof out);
    cr_expect_str_eq(out, "arm write lost at=0 silent");
}

static void mfl_refused(const char *text, const char *part)
{
    static struct metis_config cfg;
    char err[1024];
    cr_expect_eq(mfl_load(text, &cfg, err, sizeof err), -1, "accepted:\n%s", text);
    cr_expect(strstr(err, part) != NULL, "'%s' does not say '%s'", err, part);
}

Test(metis_fault, config_checks)
{
    static struct metis_config cfg;
    char err[1024];
    cr_expect_eq(mfl_load("[run]\nfaults = 0.05\n" EXT4, &cfg, err, sizeof err), 0, "%s", err);
    cr_expect(fault_applies(&cfg, &cfg.fs[0]));
    cr_expect_eq(mfl_load("[run]\nfaults = 0.05\n" EXT4 "faults = 0\n[fs r]\ntype = reffs\n",
                          &cfg, err, sizeof err), -1);
    mfl_refused("[run]\nfaults = 0.5\nfault_kinds = eio_write,torn\n" EXT4, "fault_kinds");
    mfl_refused("[run]\nfaults = 0.5\ncrash = fsync\n" EXT4, "one at a time");
    mfl_refused("[run]\nfaults = 0.5\n" EXT4 "remount = 0\n", "remount = 1");
    mfl_refused("[run]\nfaults = 0.5\n[fs t]\ntype = kernel\nfstype = tmpfs\n", "no file system");
    mfl_refused("[run]\nfaults = 1.5\n" EXT4, "faults");
    mfl_refused("[run]\nfaults = 0.5\nfault_test_silent = scribble\n" EXT4, "not an operation");
}

Test(metis_fault, draws)
{
    static struct metis_config cfg;
    struct fault_plan p;
    struct fault_spec s;
    char err[1024];
    cr_assert_eq(mfl_load(EXT4, &cfg, err, sizeof err), 0, "%s", err);
    fault_plan_init(&p, &cfg);
    for (int k = 0; k < 1000; k++) {
        fault_plan_draw(&p, OP_write_file, &s);
        cr_assert_eq(s.on, 0, "a draw with faults = 0");
    }
    cr_assert_eq(mfl_load("[run]\nfaults = 1\nfault_kinds = eio_read\n" EXT4, &cfg, err,
                          sizeof err), 0, "%s", err);
    fault_plan_init(&p, &cfg);
    fault_plan_learn(&p, OP_mkdir, 3, 9);
    for (int k = 0; k < 1000; k++) {
        fault_plan_draw(&p, OP_mkdir, &s);
        cr_assert(s.on && s.kind == FAULT_EIO_READ && s.at < 3 && !s.silent);
    }
    cr_assert_eq(mfl_load("[run]\nfaults = 1\nfault_test_silent = write_file\n" EXT4, &cfg, err,
                          sizeof err), 0, "%s", err);
    fault_plan_init(&p, &cfg);
    fault_plan_draw(&p, OP_mkdir, &s);
    cr_expect_eq(s.on, 0, "the hook's operation alone gets fault steps");
    fault_plan_draw(&p, OP_write_file, &s);
    cr_expect(s.on && s.kind == FAULT_LOST_WRITE && s.silent && s.at == 0);
}

/* ---- what a failed operation may leave of file data ---- */

static const char mfl_before[] = "/ d 0755 2 0 0 - - []\n/f0 f 0644 1 0 0 8 aaaa []\n";
static const char mfl_after[] = "/ d 0755 2 0 0 - - []\n/f0 f 0644 1 0 0 12 bbbb []\n";

/* Writes bytes as file /f0 of a directory and reads it into slot. */
static void mfl_file(struct fault_files *ff, int slot, const char *bytes, size_t len)
{
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/s%d", mfl_dir, slot);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/f0", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fwrite(bytes, 1, len, f);
    fclose(f);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(fault_files_read(ff, slot, fd), 0);
    close(fd);
    unlink(path);
    rmdir(dir);
}

static unsigned mfl_judge(const char *faulted_listing, const char *faulted, size_t len,
                          char *detail, size_t dlen)
{
    struct fault_files *ff = fault_files_differing(mfl_after, faulted_listing);
    cr_assert_not_null(ff);
    mfl_file(ff, FAULT_FILES_BEFORE, "ABCDEFGH", 8);
    mfl_file(ff, FAULT_FILES_AFTER, "ABCDxyzwxyzw", 12);
    mfl_file(ff, FAULT_FILES_FAULTED, faulted, len);
    unsigned k = fault_files_judge(ff, mfl_before, mfl_after, faulted_listing, detail, dlen);
    fault_files_free(ff);
    return k;
}

Test(metis_fault, failed_write_data)
{
    char detail[700];
    const char *mixed = "/ d 0755 2 0 0 - - []\n/f0 f 0644 1 0 0 12 cccc []\n";
    /* Half the write landed, a hole past the old end: a mixture a fault allows. */
    cr_expect_eq(mfl_judge(mixed, "ABCDxyGH\0\0\0\0", 12, detail, sizeof detail), 0u, "%s", detail);
    /* A byte no one wrote there: another file's stale data. */
    cr_expect_eq(mfl_judge(mixed, "ABCDxyGHQ\0\0\0", 12, detail, sizeof detail), (unsigned)FAULT_STALE);
    cr_expect(strstr(detail, "/f0: byte 8 of 12 is 0x51") != NULL, "%s", detail);
    /* More than data changed: the mode is neither before's nor after's. */
    const char *moded = "/ d 0755 2 0 0 - - []\n/f0 f 0600 1 0 0 12 cccc []\n";
    cr_expect_eq(mfl_judge(moded, "ABCDxyGH\0\0\0\0", 12, detail, sizeof detail),
                 (unsigned)FAULT_PARTIAL);
    cr_expect(strstr(detail, "mode of /f0") != NULL, "%s", detail);
}
