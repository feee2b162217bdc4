/* The step core: one operation on every file system of a run, restore, read-back and comparison, for the engine and the replayer alike. */
#ifndef METIS_STEP_H
#define METIS_STEP_H

#include <stdint.h>
#include "tree/digest.h"
#include "tree/classify.h"
#include "backend/backend.h"
#include "backend/logical/states/equalize.h"
#include "backend/logical/calls/rcalls.h"
#include "engine/config/config.h"
#include "engine/crash/crash_check.h"
#include "engine/vocab/differs.h"
#include "engine/fault/fault_check.h"
#include "engine/ops/ops.h"
#include "engine/step/setup_notes.h"

/* A state id meaning "none": no restore before a step, no save after it. */
#define STEP_NO_STATE UINT64_MAX

/* What the last step did on one file system, and where its time went (summed over steps). */
struct fs_outcome {
    struct op_result res;
    int skipped;                 /* the operation was not run here: a file system that lists it
                                    `unsupported` refused it (res is that refusal) */
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
    unsigned char canon[TREE_MAX_DIGEST];   /* with the group's canon: the digest up to renaming */
    int canon_len;
    int unreadable;              /* the last read-back of this fs failed (a target's finding) */
    unsigned differs;            /* DIFF_* against the reference, after fsgroup_compare */
    int have_fresh;              /* the engine held the trees against the known delta already:
                                    fresh is the difference the step added, to sign its class */
    struct state_diff fresh;     /* ... the most telling difference the delta did not hold */
    struct crash_result crash;   /* the step's crash check, when [run] crash is on */
    struct backend_remount remount;  /* the step's checkpoint, on a kernel fs kept mounted:
                                        its remount check's finding (listings the backend's) */
    struct fault_result fault;   /* the step's fault check, when it was a fault step */
    char *listing;               /* the step's read-back as listing text, when the group keeps
                                    listings (keep_listings); else NULL */
    double t_prepare, t_op, t_abstract, t_finish, t_crash, t_fault;
    uint64_t fault_steps;        /* fault checks made (t_fault is their time) */
};

struct step_history;
struct step_discard {
    uint64_t sid;
    int never_saved_lazily;      /* the lazily saving file systems never saved it */
};

/* How a target (a FUSE or RefFS daemon other than the reference) failed a step: a finding of
 * its own, not an infrastructure failure (fsgroup_target_failure). */
enum target_failure {
    TF_NONE,                     /* not a target's failure: Metis's own (exit 3) */
    TF_DAEMON_DIED,              /* its daemon exited: the mount answers ENOTCONN or is gone */
    TF_HANG,                     /* a call on it outlasted the step's time limit */
    TF_RESTORE_UNREACHABLE,      /* neither logical restore nor replay brought a state back */
    TF_UNREADABLE,               /* its tree could not be read back (an entry readdir listed
                                    could not be looked up, EIO): a broken tree, not a state */
    TF_UNMOUNT_FAILED,           /* its mount could not be unmounted (unmount_cmd failed, or
                                    was busy for BK_BUSY_SECONDS), or its daemon did not exit */
};

/* The file systems a run steps together; fs 0 is the reference. */
struct fsgroup {
    const struct metis_config *cfg;  /* the caller's, alive as long as the group */
    int nfs, dlen;
    struct backend *be[METIS_MAX_FS];
    struct tree_opts abs[METIS_MAX_FS];
    char exclude[METIS_MAX_FS][600];            /* the config's exclusions plus the filler */
    struct free_counts fillers[METIS_MAX_FS];   /* what equalization added to each fs */
    struct free_counts free_after[METIS_MAX_FS];/* what each had free after equalization */
    struct setup_notes setup;    /* what the last set-up adapted to (setup_notes.h) */
    struct fs_outcome out[METIS_MAX_FS];
    struct op_args *plan;        /* prepopulation of the initial state */
    size_t nplan;
    int plan_made_early;         /* the plan ran at set-up, before equalization (below) */
    double timeout;              /* the longest op_timeout (set-up's limit, and the default) */
    double limit[METIS_MAX_FS];  /* each fs's op_timeout: a step's time limit on it */
    int setting_up;              /* fsgroup_setup is running: one limit (timeout) for all */
    int inline_run;              /* one fs: jobs run on the calling thread (fsset_run_inline) */
    int needs_history;           /* a backend restores by replaying (fuse without an image) */
    int keep_listings;           /* each read-back of a step keeps its listing (fs_outcome):
                                    below a known delta every step's trees are held against it,
                                    and reading them a second time cost a mount on a remounted
                                    fs and dropped a kept fs's checkpoint */
    const struct tree_canon_kinds *canon;   /* non-NULL: each read-back also makes out[].canon,
                                               the digest up to renaming these names (the key
                                               of a bounded search with symmetry = names) */
    unsigned no_snapshots;       /* bit i: fs i restores by calls or a replay, not a snapshot */
    struct step_history *hist;   /* each state's parent and operation, when needs_history */
    struct crash_check *crash[METIS_MAX_FS];    /* NULL where no crash check applies */
    struct fault_check *fault[METIS_MAX_FS];    /* NULL where no fault steps apply */
    uint64_t live;               /* the state the file systems hold (STEP_NO_STATE: unsaved) */
    int lazy_save;               /* RefFS saves a step's state only once a step goes on from it
                                    (or fsgroup_save_live): most states SPIN makes, it matches
                                    and leaves at once. Discards wait for the next step. */
    uint64_t unsaved;            /* lazy_save: the live state, not saved yet on the RefFS file
                                    systems (or STEP_NO_STATE) */
    struct step_discard *discards;  /* lazy_save: states to forget at the next step */
    size_t ndiscards, discards_cap;
    struct tree_index tree;        /* the reference's entries at its last read-back (input driver) */
    int failed_fs, timed_out;    /* the last fsgroup_run: the fs that failed or was late (-1) */
    int unsupported_step;        /* the last step was refused as `unsupported`: no ret/errno compare */
    int checkpoint_next;         /* the replayer: the next step's read-back takes a checkpoint on
                                    every kept fs (a trace's last operation); fsgroup_step
                                    clears it */
    char err[1400];              /* why the last call failed: one line */
};

/* Error convention: every int function returns 0 (or a count) or -1 with g->err set; a -1 is
 * an infrastructure failure, never a discrepancy. */

/* Builds the abstraction options, the prepopulation plan and the backends of cfg (nothing is
 * made on disk yet). Images and mount points are named after run_id; workdir holds logs. */
int fsgroup_open(struct fsgroup *g, const struct metis_config *cfg, const char *run_id,
                 const char *workdir);
/* Sets every backend up (with setup_timeout) and equalizes their free space. */
int fsgroup_setup(struct fsgroup *g, double setup_timeout);
/* Makes the initial state (prepopulated) on every fs, reads it back into out[] and saves it as
 * state 0. */
int fsgroup_initial(struct fsgroup *g);
/* One step on every fs: restore(from) unless from is STEP_NO_STATE, the operation, the
 * read-back into out[], save(to) unless to is STEP_NO_STATE. An operation (or variant) some
 * fs lists as `unsupported` runs on those first, one at a time; once one refuses it with
 * EOPNOTSUPP, no other fs runs it (out[].skipped), so every state stays as it was. With a
 * fault (NULL or fault->on 0: none), every fs with fault steps first runs the operation under
 * it (fault_check.h) and out[].fault says what that showed; the step itself runs as without. */
int fsgroup_step(struct fsgroup *g, const struct op_args *a, const struct fault_spec *fault,
                 uint64_t from, uint64_t to);
/* A restore call of a traced history (backend/logical/calls/rcalls.h) on the fs of mask on
 * (bit i: fs i; 0: every fs), as a step without a read-back on every fs: restore(from) unless
 * STEP_NO_STATE, the call where on says, save(to) unless STEP_NO_STATE; out[].res gets its
 * outcome (0 where it was not made), out[].digest stays the last read-back's. A backend that
 * restores by replay repeats it on the way to a state after it, where on says. */
int fsgroup_call(struct fsgroup *g, const struct rcall *c, unsigned on, uint64_t from,
                 uint64_t to);
/* What a pass of a step makes on fs (below rootfd, mounted): its calls, outcomes wherever ctx
 * says; it sets g->out[fs].res to one of them (the daemon-gone check reads it). -1 when the
 * calls could not be made at all (errno says why). */
typedef int step_exec_fn(int fs, int rootfd, void *ctx);

/* One pass of a step made of several (a concurrent step: serial.h, concurrent.h): on the fs
 * in `only` (bit i for fs i, 0 for all), restore(from) unless STEP_NO_STATE, begin, exec,
 * read back into out[], end, save(to) unless STEP_NO_STATE (RefFS: lazily, as fsgroup_step).
 * A fs's first pass of the step (again 0) does what fsgroup_step does first: the discards
 * SPIN asked for and, without a restore, the save of the live state; later ones (again 1)
 * restore the state the step started from. what names the work in errors. */
struct step_pass {
    uint64_t from, to;
    unsigned only;
    int again;
    step_exec_fn *exec;
    void *ctx;
    const char *what;
};
int fsgroup_pass(struct fsgroup *g, const struct step_pass *p);
/* Saves the state the fs in `only` hold as sid (RefFS: lazily, by fsgroup_passes_done). */
int fsgroup_save_as(struct fsgroup *g, uint64_t sid, unsigned only);
/* A state kept aside within a step (saved at once, RefFS too) and forgotten again. */
int fsgroup_keep_aside(struct fsgroup *g, uint64_t sid, unsigned only);
int fsgroup_forget_aside(struct fsgroup *g, uint64_t sid, unsigned only);
/* Ends a step made of passes: every fs holds state to, made from parent by the operations of
 * history (op_format lines, one per line, in the order a replay makes them). */
int fsgroup_passes_done(struct fsgroup *g, uint64_t parent, uint64_t to, const char *history);
/* Compares every fs's outcome with the reference's (initial, or a step refused as unsupported:
 * states only); sets out[].differs and returns how many differ. */
int fsgroup_compare(struct fsgroup *g, int initial);
/* fs i is a daemon's mount read back through the kernel's attribute cache (a walk, not the
 * daemon's own dump): a stat may show what an earlier reply of the daemon said, kept for its
 * attr_timeout, instead of what the daemon holds now. */
int fsgroup_caches_attrs(const struct fsgroup *g, int i);
/* After fsgroup_compare: the fs (bit i) whose state difference a stale cache may have made,
 * with the reference (bit 0) when it is read through such a cache too; 0 when none. */
unsigned fsgroup_cache_suspects(const struct fsgroup *g);
/* Reads the fs in which (bit i for fs i) back again past the kernel's attribute cache (the
 * walk's tree_walk_fresh_attrs), into out[] with each listing kept; a fs whose tree changed
 * so saves the live state again. Then fsgroup_compare tells whether a difference stays. */
int fsgroup_reread_fresh(struct fsgroup *g, unsigned which);
/* After a step, restore or discard failed: whether the fs that failed (*fs) is a target whose
 * daemon died, hung, could not bring a state back or have its tree read (probing it from a
 * worker, within the time limit), or TF_NONE for an infrastructure failure. A failure that
 * named no fs is a target's when a target's daemon is found dead or hung. g->err keeps the
 * failure's message. */
enum target_failure fsgroup_target_failure(struct fsgroup *g, int *fs);
/* "daemon-died", "hang", "restore-unreachable", "unreadable", "unmount-failed": the class names. */
const char *target_failure_name(enum target_failure k);
/* A target that died or hangs: its daemon killed and its connection aborted, then waits for
 * the workers blocked on it; 0 when none is left blocked, so the teardown can proceed. */
int fsgroup_recover(struct fsgroup *g, int i, enum target_failure k);
/* Forgets saved state sid on every fs (-1 only when one did not answer in time). With
 * lazy_save, a state never saved costs nothing and the others are forgotten at the next step. */
int fsgroup_discard(struct fsgroup *g, uint64_t sid);
/* With lazy_save: saves the live state now if it is not saved yet (before anything reads the
 * saved states, such as a discrepancy's export). */
int fsgroup_save_live(struct fsgroup *g);
/* Runs job(i, ctx) on every fs at once, each within its op_timeout (within g->timeout while
 * setting up); step names the work in g->err. */
int fsgroup_run(struct fsgroup *g, int (*job)(int i, void *ctx), void *ctx, const char *step);
/* Reads fs i's tree (mounted, between begin and end) into out[i]; -1 ends the mount. */
int fsgroup_read_state(struct fsgroup *g, int i);
/* The report section of fs i's last crash check, its copy saved under dir (seq names it). */
void fsgroup_crash_report(struct fsgroup *g, int i, FILE *f, const char *dir, uint64_t seq);
/* The report section of fs i's last fault check. */
void fsgroup_fault_report(struct fsgroup *g, int i, FILE *f);
/* Removes the crash copies' files, devices and mounts (before the backends' teardown). */
void fsgroup_crash_close(struct fsgroup *g);
/* Tears every backend down and frees what the group holds; safe on a half-opened group. */
void fsgroup_close(struct fsgroup *g);

#endif
