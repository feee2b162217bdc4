/* Unit tests of a target's failures (step.c's fsgroup_target_failure): which failed steps are findings (daemon-died, hang, restore-unreachable, unmount-failed) and which stay Metis's own, their classes' signatures, and the rule that stops a run whose target keeps failing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/classify/classes.h"
#include "engine/step/fsset.h"
#include "engine/run/searches.h"
#include "engine/step/step.h"

static const struct backend_ops no_ops;

/* A reference and one target, neither mounted: the probe asks the backends' flags only. */
static struct fsgroup *group(enum fs_type target_type)
{
    struct metis_config *cfg = calloc(1, sizeof *cfg);
    struct fsgroup *g = calloc(1, sizeof *g);
    cr_assert(cfg && g);
    cfg->nfs = g->nfs = 2;
    cfg->fs[0].type = FS_REFFS;
    cfg->fs[1].type = target_type;
    snprintf(cfg->fs[0].name, sizeof cfg->fs[0].name, "ref");
    snprintf(cfg->fs[1].name, sizeof cfg->fs[1].name, "tgt");
    g->cfg = cfg;
    g->timeout = 5;
    for (int i = 0; i < 2; i++) {
        g->be[i] = calloc(1, sizeof *g->be[i]);
        g->be[i]->ops = &no_ops;
        g->be[i]->cfg = &cfg->fs[i];
        g->be[i]->rootfd = -1;
    }
    static int started;          /* the workers are process-wide, as in pan */
    if (!started++)
        cr_assert_eq(fsset_start(2), 0);
    snprintf(g->err, sizeof g->err, "fs tgt: restore: state 7: neither logical restore nor "
             "replay reach it: the saved state has '/f0 f 0644 2', the fs has '/f0 f 0644 1'");
    return g;
}

static enum target_failure failure_of(struct fsgroup *g, int failed, int timed_out, int *fs)
{
    g->failed_fs = failed;
    g->timed_out = timed_out;
    return fsgroup_target_failure(g, fs);
}

Test(target_failure, a_restore_that_reaches_nothing_is_a_finding_of_its_own)
{
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[1]->restore_unreachable = 1;
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_RESTORE_UNREACHABLE);
    cr_assert_eq(fs, 1);
    cr_assert(strstr(g->err, "neither logical restore nor replay"), "the message was lost: %s", g->err);
    struct dclass c;
    classes_target_failure(g, 1, DIFF_RESTORE_UNREACHABLE, NULL, &c);
    cr_assert_str_eq(c.signature, "restore-unreachable tgt");
    cr_assert(strstr(c.d.entry, "the saved state has '/f0"), "no first differing entry: %s", c.d.entry);
}

Test(target_failure, a_dead_daemon_outranks_the_restore_it_broke)
{
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[1]->restore_unreachable = 1;
    g->be[1]->daemon_died = 1;
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_DAEMON_DIED);
    struct dclass c;
    classes_target_failure(g, 1, DIFF_DAEMON_DIED, NULL, &c);
    cr_assert_str_eq(c.signature, "daemon-died tgt");
    cr_assert_eq(c.op, -1);
}

Test(target_failure, an_unmount_that_fails_for_good_is_a_finding_of_its_own)
{
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[1]->unmount_failed = 1;
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_UNMOUNT_FAILED);
    cr_assert_str_eq(target_failure_name(TF_UNMOUNT_FAILED), "unmount-failed");
    struct dclass c;
    classes_target_failure(g, 1, DIFF_UNMOUNT_FAILED, NULL, &c);
    cr_assert_str_eq(c.signature, "unmount-failed tgt");
    g->be[1]->daemon_died = 1;
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_DAEMON_DIED, "a dead daemon outranks it");
}

Test(target_failure, a_late_target_is_a_hang)
{
    struct fsgroup *g = group(FS_REFFS);
    int fs;
    cr_assert_eq(failure_of(g, 1, 1, &fs), TF_HANG);
    cr_assert_str_eq(target_failure_name(TF_HANG), "hang");
}

Test(target_failure, the_reference_a_kernel_fs_and_plain_errors_stay_infrastructure)
{
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[0]->daemon_died = 1;
    cr_assert_eq(failure_of(g, 0, 1, &fs), TF_NONE, "the reference hung");
    cr_assert_eq(failure_of(g, 0, 0, &fs), TF_NONE, "the reference died");
    cr_assert_eq(failure_of(g, -1, 0, &fs), TF_NONE, "no fs failed");
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_NONE, "a target's ordinary error");
    struct fsgroup *k = group(FS_KERNEL);
    k->be[1]->restore_unreachable = 1;
    cr_assert_eq(failure_of(k, 1, 1, &fs), TF_NONE, "a kernel fs hung");
    cr_assert_eq(failure_of(k, 1, 0, &fs), TF_NONE, "a kernel fs restore");
}

Test(target_failure, a_tree_that_cannot_be_recorded_within_a_restore_is_unreadable)
{
    /* disorderfs: a read-back after a replay met an entry readdir had listed but gone */
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[1]->tree_unreadable = 1;
    cr_assert_eq(failure_of(g, 1, 0, &fs), TF_UNREADABLE);
    cr_assert_eq(fs, 1);
    g->be[0]->tree_unreadable = 1;     /* the reference's own tree: still Metis's */
    cr_assert_eq(failure_of(g, 0, 0, &fs), TF_NONE);
}

Test(target_failure, a_failure_that_named_no_fs_is_the_dead_targets)
{
    /* an engine check or set-up's equalization failed while the target's daemon died */
    struct fsgroup *g = group(FS_FUSE);
    int fs;
    g->be[1]->daemon_died = 1;
    cr_assert_eq(failure_of(g, -1, 0, &fs), TF_DAEMON_DIED);
    cr_assert_eq(fs, 1);
    g->be[1]->daemon_died = 0;         /* every daemon alive: Metis's own */
    cr_assert_eq(failure_of(g, -1, 0, &fs), TF_NONE);
    struct fsgroup *k = group(FS_KERNEL);
    k->be[1]->daemon_died = 1;         /* a kernel fs is no daemon of a target */
    cr_assert_eq(failure_of(k, -1, 0, &fs), TF_NONE);
}

Test(target_failure, three_failures_in_a_row_with_no_operation_between_stop_the_run)
{
    struct search_run s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(search_note_failure(&s, "daemon-died tgt", 500), 0);
    s.prior.fail_streak = s.fail_streak;
    memcpy(s.prior.fail_signature, s.fail_signature, sizeof s.fail_signature);
    cr_assert_eq(search_note_failure(&s, "daemon-died tgt", 0), 0);
    cr_assert_eq(s.fail_streak, 2);
    s.prior.fail_streak = s.fail_streak;
    cr_assert_eq(search_note_failure(&s, "daemon-died tgt", 0), 1, "the third in a row");
    cr_assert_eq(search_note_failure(&s, "hang tgt", 0), 0, "another class starts again");
    cr_assert_eq(s.fail_streak, 1);
    cr_assert_eq(search_note_failure(&s, "daemon-died tgt", 3), 0, "operations were done");
    cr_assert_eq(s.fail_streak, 1);
}
