/* Unit tests of the sweep of dead runs: run ids read from mount points and loop devices' backing files, pid-named ids, environments, and the run lock's states. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/base/runlock.h"
#include "backend/sweep.h"

Test(sweep, run_id_of_a_mount_point)
{
    char id[64];
    cr_assert_eq(sweep_run_of_mount("/root/runs/x/work/metis-m123/mnt-ref", id, sizeof id), 0);
    cr_expect_str_eq(id, "m123");
    cr_assert_eq(sweep_run_of_mount("/tmp/metis-r9/mnt-ext4.crash", id, sizeof id), 0);
    cr_expect_str_eq(id, "r9");
    /* the last "metis-ID/mnt-" wins: a swarm's directory and a test's are named metis-* too */
    cr_assert_eq(sweep_run_of_mount("/tmp/metis-swarm-5/h/vt-1/work/metis-m77/mnt-a.dir", id,
                                    sizeof id), 0);
    cr_expect_str_eq(id, "m77");
    cr_assert_eq(sweep_run_of_mount("/tmp/metis-test.Ab12/run/work/metis-m8/mnt-x", id, sizeof id), 0);
    cr_expect_str_eq(id, "m8");
}

Test(sweep, paths_that_name_no_run)
{
    char id[64];
    const char *none[] = { "/", "/tmp/metis-m1", "/tmp/metis-m1/other", "/tmp/metis-/mnt-x",
                           "/srv/metis-swarm-5/vt-1", "/mnt/metis-m1mnt-x", "/a/metis-../mnt-x",
                           "/a/metis-m 1/mnt-x" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        cr_expect_eq(sweep_run_of_mount(none[i], id, sizeof id), -1, "%s", none[i]);
    cr_expect_eq(sweep_run_of_mount("/x/metis-m12345/mnt-a", id, 4), -1, "an id longer than the room");
}

Test(sweep, run_id_of_a_backing_file)
{
    char id[64];
    cr_assert_eq(sweep_run_of_backing_file("/dev/shm/metis-m42/ext4.img", id, sizeof id), 0);
    cr_expect_str_eq(id, "m42");
    cr_assert_eq(sweep_run_of_backing_file("/dev/shm/metis-m42/ext4.crash.img (deleted)", id,
                                           sizeof id), 0);
    cr_expect_str_eq(id, "m42");
    cr_expect_eq(sweep_run_of_backing_file("/tmp/metis-m42/ext4.img", id, sizeof id), -1);
    cr_expect_eq(sweep_run_of_backing_file("/dev/shm/metis-m42", id, sizeof id), -1);
    cr_expect_eq(sweep_run_of_backing_file("/dev/shm/other/metis-m42/x", id, sizeof id), -1);
}

Test(sweep, pid_named_run_ids)
{
    cr_expect_eq(runlock_pid_of("m123"), 123);
    cr_expect_eq(runlock_pid_of("r7"), 7);
    const char *none[] = { "m", "r", "m0", "m012", "x12", "bt123", "re123", "m12a", "manual",
                           "m99999999999", "" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        cr_expect_eq(runlock_pid_of(none[i]), 0, "%s", none[i]);
}

Test(sweep, run_id_in_an_environment)
{
    static const char env[] = "HOME=/root\0METIS_RUN_ID=m12\0PATH=/bin";
    cr_expect_eq(runlock_env_names(env, sizeof env - 1, "m12"), 1);
    cr_expect_eq(runlock_env_names(env, sizeof env - 1, "m1"), 0);
    cr_expect_eq(runlock_env_names(env, sizeof env - 1, "m123"), 0);
    static const char other[] = "X_METIS_RUN_ID=m12\0METIS_RUN_IDS=m12";
    cr_expect_eq(runlock_env_names(other, sizeof other - 1, "m12"), 0);
    static const char last[] = "A=b\0METIS_RUN_ID=r5";   /* no NUL after the last entry */
    cr_expect_eq(runlock_env_names(last, sizeof last - 1, "r5"), 1);
    cr_expect_eq(runlock_env_names("", 0, "m12"), 0);
}

/* A lock made by hand, as a run killed outright leaves it: the file, held by nobody. */
static void leave_lock(const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/metis-%s", id);
    cr_assert(mkdir(path, 0700) == 0 || access(path, F_OK) == 0);
    snprintf(path, sizeof path, "/dev/shm/metis-%s/lock", id);
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0);
    close(fd);
}

Test(sweep, a_held_lock_is_live_a_free_one_dead)
{
    char id[64], err[256], dir[128];
    int claim;
    snprintf(id, sizeof id, "unit-%d", (int)getpid());
    snprintf(dir, sizeof dir, "/dev/shm/metis-%s", id);
    int fd = runlock_hold(id, err, sizeof err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_expect_eq(runlock_probe(id, &claim), RUN_LIVE);
    cr_expect_eq(claim, -1);
    int again = runlock_hold(id, err, sizeof err);   /* another process of the run joins */
    cr_assert_geq(again, 0, "%s", err);
    runlock_release(again, id);
    cr_expect_eq(access(dir, F_OK), 0, "released by one holder while another holds it");
    runlock_release(fd, id);
    cr_expect_neq(access(dir, F_OK), 0, "the last holder leaves nothing behind");

    leave_lock(id);
    cr_expect_eq(runlock_probe(id, &claim), RUN_DEAD);
    cr_assert_geq(claim, 0);
    cr_expect_eq(runlock_probe(id, &fd), RUN_LIVE, "a second sweep while the first works");
    runlock_drop_claim(claim, id);
    cr_expect_eq(rmdir(dir), 0, "the claim's lock file was removed");
}

Test(sweep, runs_without_a_lock_file)
{
    char id[64];
    int claim;
    cr_expect_eq(runlock_probe("unit-nolock", &claim), RUN_UNKNOWN, "not pid-named: never swept");
    cr_expect_eq(runlock_probe("m1", &claim), RUN_LIVE, "pid 1 lives");
    snprintf(id, sizeof id, "m%d", (int)getpid());
    cr_expect_eq(runlock_probe(id, &claim), RUN_DEAD, "our own id: we made nothing yet");
    cr_expect_eq(claim, -1);
}
