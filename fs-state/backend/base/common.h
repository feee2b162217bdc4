/* Helpers the backend types (kernel, reffs, fuse) share; the engine uses backend.h only. */
#ifndef METIS_BACKEND_IMPL_H
#define METIS_BACKEND_IMPL_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include "backend/base/backend_types.h"
#include "lib/system/spawner.h"
#include "lib/system/helpers.h"
#include "lib/text/placeholders.h"
#include "backend/base/loopdev.h"
#include "backend/base/process.h"

struct imgstore;

extern const struct backend_ops backend_kernel_ops;
extern const struct backend_ops backend_reffs_ops;
extern const struct backend_ops backend_fuse_ops;
extern const struct backend_ops backend_devless_ops;
extern const struct backend_ops backend_kernel_kept_ops;

/* Formats "fs NAME: STEP: message" into b->err; returns -1 so callers can return it. */
int bk_err(struct backend *b, const char *step, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Seconds for slow setup commands (mkfs, mount commands): the op timeout, at least 30 s. */
double bk_setup_timeout(const struct backend *b);

/* A kernel fs's mount_opts as mount(2) flags and data; -1 if data is too short. */
int bk_mount_opts(const char *mount_opts, unsigned long *flags, char *data, size_t len);

/* Makes <base>/metis-<run>/ and the mount point b->mnt; removes them (if empty). */
int bk_make_mnt(struct backend *b);
void bk_remove_mnt(struct backend *b);

/* The last non-empty line of a daemon's log file, for error messages ("" if none). */
void bk_log_tail(const char *path, char *out, size_t outlen);

/* Root-fd handling every backend's begin/end share. */
int bk_open_root(struct backend *b);
void bk_close_root(struct backend *b);

/* 1 when the FUSE mount on mnt answers as a dead daemon's does (ENOTCONN, ECONNABORTED). */
int bk_connection_dead(const char *mnt);
/* 1 when something is mounted on path (its device differs from its parent's). */
int bk_is_mounted(const char *path);
/* The device number (major:minor) of the mount on path, from mountinfo (a stat could hang on
 * a hung FUSE daemon); 0, or -1 when nothing is mounted there. */
int bk_mount_dev(const char *path, unsigned *major, unsigned *minor);
/* Polls until path is mounted (want=1) or not (want=0); 0 on success, -1 on timeout.
 * If *pid > 0 exits meanwhile, it is reaped: *pid becomes 0, *status its exit code, and the
 * wait ends (0 if path is then as wanted, else -1). */
int bk_wait_mounted(const char *path, int want, double timeout, pid_t *pid, int *status);
/* BLKFLSBUF on the block device dev: its page cache dropped, so that a mount reads what its
 * backing file holds now; -1 with b->err. */
int bk_drop_dev_cache(struct backend *b, const char *dev, const char *step);
/* umount2 with retries on EBUSY for up to timeout seconds, then a lazy detach (-1 if lazy). */
int bk_unmount(const char *path, double timeout);
/* How long an unmount that meets EBUSY is tried again before it fails: a file's last close
 * can be finished by the kernel after close(2) returned (a deferred fput), a daemon can still
 * be exiting; on a loaded machine either was seen to take longer than 0.2 s. */
#define BK_BUSY_SECONDS 3.0
/* How long an unmount that discards a daemon's state waits for the daemon once one of its fs
 * was seen to live on after an unmount (struct backend's lingering_known). */
#define BK_LINGER_GRACE 0.2

/* Replaces {mnt}, {img} and {bin} in tmpl (lib/text/placeholders.h). -1 if the result does not fit. */
int bk_subst(const struct backend *b, const char *tmpl, char *out, size_t outlen);
/* The same, asking more(ctx, name) first (fuse.c's {dir} and {dir:NAME}). */
int bk_subst_with(const struct backend *b, const char *tmpl, ph_lookup_fn more, void *ctx,
                  char *out, size_t outlen);
/* The directory of the running binary's sibling tools: $METIS_BIN, else dirname(/proc/self/exe). */
void bk_bin_dir(char *out, size_t outlen);
/* A sibling tool of the running binary: bk_bin_dir's NAME when it is executable, else NAME
 * alone (searched in PATH when started). */
void bk_program_path(const char *name, char *out, size_t outlen);
/* tree_digest of b->rootfd, a failure put in b->err: the digest length or -1. */
int bk_walk(struct backend *b, const struct tree_opts *o, unsigned char *out, FILE *listing,
            struct tree_index *index);
/* The first line where listings a and b differ, as "A_LABEL '<line>', B_LABEL '<line>'"
 * (each cut at 150 characters), into out. */
void bk_first_difference(const char *a, const char *a_label, const char *b, const char *b_label,
                         char *out, size_t outlen);
/* The engine's replay (b->replay_fn) of the operations from state from to state id on b,
 * freshly mounted: the root opened for it and closed after; 0, or -1 with b->err. */
int bk_replay(struct backend *b, uint64_t from, uint64_t id);
/* A setup step failed: tears down what setup made, keeping the step's message; returns -1. */
int bk_setup_failed(struct backend *b, void (*teardown)(struct backend *));
/* Fills the directory dir (a layer or backing directory the fs will show, e.g. an overlay's
 * lower layer) with the run's initial entries through b->populate_fn, and marks b populated so
 * the engine does not make them again; 0 or -1 (b->err). */
int bk_populate_dir(struct backend *b, const char *dir);
/* Where images live: a RAM-backed directory, as brd is often absent. */
#define BK_SHM_DIR "/dev/shm"

/* Run ids and fs names become path components: 1 when s is made of [A-Za-z0-9._-] and is not
 * "." or ".." (backend.c). */
int bk_safe_name(const char *s);
/* Calls fn on every mount point (field 5 of mountinfo); stops when fn returns non-zero and
 * returns that value. */
int bk_each_mount(int (*fn)(const char *mp, void *ctx), void *ctx);
int bk_top_mount_is_fuse(const char *path);

#endif
