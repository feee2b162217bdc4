/* Unit tests of the one helper per job: the spawner, the number parsers, the exit statuses, the JSON reader. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/cli/classes/summary_classes.h"
#include "engine/vocab/exits.h"
#include "lib/text/numbers.h"
#include "front/json/json_reader.h"
#include "lib/system/spawner.h"
#include "lib/system/helpers.h"

Test(numbers, decimal_takes_digits_only)
{
    uint64_t v = 7;
    cr_assert_eq(parse_decimal_u64("18446744073709551615", &v), 0);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(parse_decimal_u64("007", &v), 0);
    cr_assert_eq(v, 7);
    const char *bad[] = { "", "-1", "+1", " 1", "1x", "0x10", "18446744073709551616" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(parse_decimal_u64(bad[i], &v), -1, "'%s'", bad[i]);
    cr_assert_eq(v, 7);   /* untouched by a failure */
}

Test(numbers, any_base_takes_hex_and_octal)
{
    uint64_t v;
    cr_assert_eq(parse_u64_any_base("0x2a", &v), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(parse_u64_any_base("052", &v), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(parse_u64_any_base("42", &v), 0);
    cr_assert_eq(v, 42);
    cr_expect_eq(parse_u64_any_base("-1", &v), -1);
    cr_expect_eq(parse_u64_any_base("", &v), -1);
    cr_expect_eq(parse_u64_any_base("0x", &v), -1);
    cr_expect_eq(parse_u64_any_base("12 ", &v), -1);
}

Test(numbers, canonical_refuses_leading_zeros)
{
    uint64_t v;
    cr_assert_eq(parse_canonical_u64("0", &v), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(parse_canonical_u64("120", &v), 0);
    cr_assert_eq(v, 120);
    cr_expect_eq(parse_canonical_u64("012", &v), -1);
    cr_expect_eq(parse_canonical_u64("+1", &v), -1);
    cr_expect_eq(parse_canonical_u64("18446744073709551616", &v), -1);
}

Test(spawner, status_of_exit_and_signal)
{
    char *ok[] = { "/bin/sh", "-c", "exit 4", NULL };
    struct spawn_how how = { .flags = SPAWN_QUIET };
    pid_t pid = spawn_start(ok, &how);
    cr_assert_gt(pid, 0);
    cr_assert_eq(spawn_wait(pid), 4);
    char *killed[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
    pid = spawn_start(killed, &how);
    cr_assert_eq(spawn_wait(pid), 128 + SIGKILL);
}

Test(spawner, missing_program_fails_to_start)
{
    char *argv[] = { "no-such-program-here", NULL };
    struct spawn_how how = { .flags = SPAWN_SEARCH_PATH | SPAWN_QUIET };
    cr_assert_eq(spawn_start(argv, &how), -1);
}

/* The child starts with default dispositions even when we ignore a signal. */
Test(spawner, child_gets_default_signals)
{
    signal(SIGPIPE, SIG_IGN);
    char *argv[] = { "/bin/sh", "-c", "kill -PIPE $$; exit 0", NULL };
    struct spawn_how how = { .flags = SPAWN_QUIET };
    cr_assert_eq(spawn_wait(spawn_start(argv, &how)), 128 + SIGPIPE);
    signal(SIGPIPE, SIG_DFL);
}

/* A held stop signal waits until the child unblocks it: here it never does, so it lives. */
Test(spawner, hold_stops_blocks_term)
{
    char *argv[] = { "/bin/sleep", "0.5", NULL };
    struct spawn_how how = { .flags = SPAWN_HOLD_STOPS | SPAWN_QUIET };
    pid_t pid = spawn_start(argv, &how);
    usleep(100000);
    kill(pid, SIGTERM);
    cr_assert_eq(spawn_wait(pid), 0);
}

Test(spawner, output_files_truncate_and_append)
{
    char dir[] = "/tmp/metis-spawn-XXXXXX", out[64], err[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    char *argv[] = { "/bin/sh", "-c", "echo o; echo e >&2", NULL };
    struct spawn_how how = { .out = out, .err = err };
    for (int i = 0; i < 2; i++)
        cr_assert_eq(spawn_wait(spawn_start(argv, &how)), 0);
    char buf[64] = "";
    FILE *f = fopen(out, "r");
    buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
    fclose(f);
    cr_expect_str_eq(buf, "o\n");
    f = fopen(err, "r");
    buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
    fclose(f);
    cr_expect_str_eq(buf, "e\ne\n");
    unlink(out);
    unlink(err);
    rmdir(dir);
}

/* "&2" of the swarm: the child's stdout joins our stderr, not a file of that name. */
Test(spawner, out_to_err_joins_our_stderr)
{
    char path[] = "/tmp/metis-spawn-err-XXXXXX", buf[16] = "";
    int fd = mkstemp(path), saved = dup(2);
    cr_assert(fd >= 0 && saved >= 0);
    dup2(fd, 2);
    char *argv[] = { "/bin/sh", "-c", "echo out", NULL };
    struct spawn_how how = { .flags = SPAWN_OUT_TO_ERR };
    int rc = spawn_wait(spawn_start(argv, &how));
    dup2(saved, 2);
    close(saved);
    cr_assert_eq(rc, 0);
    cr_assert_eq(pread(fd, buf, sizeof buf - 1, 0), 4);
    cr_expect_str_eq(buf, "out\n");
    close(fd);
    unlink(path);
}

/* At the deadline: one SIGTERM, then after the grace a SIGKILL to the group. */
Test(spawner, limited_wait_terms_then_kills)
{
    char *argv[] = { "/bin/sh", "-c", "trap '' TERM; sleep 20", NULL };
    struct spawn_how how = { .flags = SPAWN_OWN_GROUP | SPAWN_QUIET };
    double t = now_seconds();
    pid_t pid = spawn_start(argv, &how);
    struct spawn_limits lim = { .deadline = t + 0.2, .grace = 0.3 };
    cr_assert_eq(spawn_wait_limited(pid, &lim), 128 + SIGKILL);
    cr_assert_lt(now_seconds() - t, 5);
}

/* The SIGTERM reaches the group: a shell whose foreground command hangs runs its TERM trap
 * (a reproducer's clean-up) before the SIGKILL, not never. */
Test(spawner, limited_wait_terms_the_group)
{
    char path[] = "/tmp/metis-spawner-trap-XXXXXX", cmd[256], got[16] = "";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    snprintf(cmd, sizeof cmd, "trap 'echo cleaned > %s; exit 130' TERM; sleep 20", path);
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    struct spawn_how how = { .flags = SPAWN_OWN_GROUP | SPAWN_QUIET };
    double t = now_seconds();
    pid_t pid = spawn_start(argv, &how);
    struct spawn_limits lim = { .deadline = t + 0.2, .grace = 10 };
    cr_assert_eq(spawn_wait_limited(pid, &lim), 130);
    cr_assert_lt(now_seconds() - t, 5, "the trap waited for the hung command");
    cr_assert_eq(pread(fd, got, sizeof got - 1, 0), 8);
    cr_expect_str_eq(got, "cleaned\n");
    close(fd);
    unlink(path);
}

Test(spawner, limited_wait_stops_on_flag)
{
    static volatile sig_atomic_t stop = 1;
    char *argv[] = { "/bin/sleep", "20", NULL };
    struct spawn_how how = { .flags = SPAWN_OWN_GROUP | SPAWN_QUIET };
    pid_t pid = spawn_start(argv, &how);
    struct spawn_limits lim = { .grace = 5, .stop = &stop };
    cr_assert_eq(spawn_wait_limited(pid, &lim), 128 + SIGTERM);
}

Test(spawner, wait_for_times_out_then_stop_reaps)
{
    char *argv[] = { "/bin/sleep", "20", NULL };
    struct spawn_how how = { .flags = SPAWN_OWN_GROUP | SPAWN_QUIET };
    pid_t pid = spawn_start(argv, &how);
    cr_assert_eq(spawn_wait_for(pid, 0.1), -1);
    spawn_stop(pid, 1.0);
    cr_assert_eq(kill(pid, 0), -1);
}

Test(exits, documented_values)
{
    cr_assert_eq(METIS_EXIT_OK, 0);
    cr_assert_eq(METIS_EXIT_DISCREPANCY, 1);
    cr_assert_eq(METIS_EXIT_BAD_INPUT, 2);
    cr_assert_eq(METIS_EXIT_INFRA, 3);
    cr_assert_eq(METIS_EXIT_STOPPED, 4);
    cr_assert_eq(METIS_EXIT_RESTART, 5);
    cr_assert_eq(METIS_EXIT_INTERRUPTED, 130);
}

Test(rjson, booleans_and_missing_class_arrays)
{
    json_object *o = rj_parse("{\"a\":true,\"b\":false,\"c\":1}");
    cr_assert_not_null(o);
    cr_expect(rj_true(o, "a"));
    cr_expect(!rj_true(o, "b"));
    cr_expect(!rj_true(o, "c"));
    cr_expect(!rj_true(o, "d"));
    json_object_put(o);
    cr_expect_null(rj_parse("{\"a\":"));
    struct run_class *v;
    cr_expect_eq(classfile_listed("{\"ops\":1}", &v), -2);
    cr_expect_null(v);
    cr_expect_eq(classfile_listed(NULL, &v), -2);
    cr_expect_eq(classfile_listed("{\"classes\":[]}", &v), 0);
    free(v);
}
