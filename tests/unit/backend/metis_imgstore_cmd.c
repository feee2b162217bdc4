/* Unit tests of the backend helpers: run_cmd (status, output, timeout) and backend_open naming. */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"

static double bkcmd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Test(metis_backend_cmd, status_and_output)
{
    char out[64];
    cr_assert_eq(run_cmd(5, out, sizeof out, "echo %s; echo err >&2", "hello"), 0);
    cr_assert_str_eq(out, "hello\nerr");
    cr_assert_eq(run_cmd(5, out, sizeof out, "exit 3"), 3);
    cr_assert_eq(run_cmd(5, NULL, 0, "true"), 0);
    cr_assert_eq(run_cmd(5, out, sizeof out, "no-such-command-here"), 127);
}

Test(metis_backend_cmd, output_is_truncated_not_overflowed)
{
    char out[8];
    cr_assert_eq(run_cmd(5, out, sizeof out, "seq 1 10000"), 0);
    cr_assert_eq(strlen(out), 7);
}

Test(metis_backend_cmd, timeout_kills)
{
    double t = bkcmd_now();
    cr_assert_eq(run_cmd(0.3, NULL, 0, "sleep 20"), 124);
    cr_assert_lt(bkcmd_now() - t, 5);
}

/* A command that leaves a child holding the output pipe returns when the command exits. */
Test(metis_backend_cmd, background_child_does_not_block)
{
    double t = bkcmd_now();
    cr_assert_eq(run_cmd(10, NULL, 0, "sleep 3 & echo started"), 0);
    cr_assert_lt(bkcmd_now() - t, 2);
}

Test(metis_backend_cmd, open_names)
{
    struct fs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.type = FS_KERNEL;
    strcpy(cfg.name, "ext4");
    struct backend *b = backend_open(&cfg, "run-1", NULL);
    cr_assert(b);
    cr_assert_str_eq(b->mnt, "/tmp/metis-run-1/mnt-ext4");
    cr_assert_str_eq(b->image, "/dev/shm/metis-run-1/ext4.img");
    cr_assert_eq(b->rootfd, -1);
    backend_close(b);                      /* teardown before setup: nothing to do, no crash */
    cr_assert_null(backend_open(&cfg, "../x", NULL));
    strcpy(cfg.name, "a/b");
    cr_assert_null(backend_open(&cfg, "run-1", NULL));
}
