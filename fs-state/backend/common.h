/* Helpers the backend types (kernel, reffs, fuse) share; the engine uses backend.h only. */
#ifndef METIS_BACKEND_IMPL_H
#define METIS_BACKEND_IMPL_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include "backend.h"
#include "lib/spawner.h"
#include "lib/helpers.h"
#include "lib/placeholders.h"

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

/* The image every image-backed backend keeps: the backing file, its size and its states. */
struct backend_image {
    int fd;
    uint64_t size;
    struct imgstore *store;
};
/* Creates b->image (size bytes of zeros, in /dev/shm) and its store. */
int bimage_create(struct backend *b, struct backend_image *im, uint64_t size);
/* Runs mkfs.FSTYPE with quiet/force flags and cfg->mkfs_opts on b->image. */
int bimage_mkfs(struct backend *b, const char *fstype, uint64_t size);
int bimage_save(struct backend *b, struct backend_image *im, uint64_t id);
int bimage_restore(struct backend *b, struct backend_image *im, uint64_t id);
int bimage_export(struct backend *b, struct backend_image *im, uint64_t id, const char *dir,
                  char *out, size_t outlen);
/* Closes the file, frees the store and unlinks b->image; safe to call twice. */
void bimage_destroy(struct backend *b, struct backend_image *im);

/* A kernel fs's mount_opts as mount(2) flags and data (kernel.c); -1 if data is too short. */
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
/* umount2 with retries on EBUSY for up to timeout seconds, then a lazy detach (-1 if lazy). */
int bk_unmount(const char *path, double timeout);
/* How long an unmount that meets EBUSY is tried again before it fails: a file's last close
 * can be finished by the kernel after close(2) returned (a deferred fput), a daemon can still
 * be exiting; on a loaded machine either was seen to take longer than 0.2 s. */
#define BK_BUSY_SECONDS 3.0

/* Starts a daemon: argv[0] searched in PATH, in its own process group, stdin from /dev/null,
 * stdout+stderr to logfd (or /dev/null if logfd < 0); its pid or -1 (spawner.h's spawn_start). */
pid_t bk_spawn(char *const argv[], int logfd);

/* Replaces {mnt}, {img} and {bin} in tmpl (lib/placeholders.h). -1 if the result does not fit. */
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

/* A FUSE round trip costs ~6 us when the caller and the daemon share a CPU, but 40-120 us when
 * the reply must wake another, idle vCPU (reffs-only: 552 ops/s unpinned, 2,500 pinned). Pins
 * the calling thread (which does all of one fs's work; a daemon it starts inherits the CPU)
 * to its CPU, or to one no other backend of this process has taken. */
void bk_pin_cpu(void);

/* Sleeps through signals (process.c); the clock is util.h's now_seconds. */
void bk_sleep(double seconds);

/* Other processes, found through /proc (process.c); pid is a /proc entry name. */
/* 1 when the /proc entry name is a process, and not us. */
int bk_proc_other(const char *name);
/* 1 when process pid has path open. */
int bk_proc_holds(const char *pid, const char *path);
/* 1 when a process other than us has path open (a daemonized fs may still write its image). */
int bk_file_in_use(const char *path);
/* The same, but for process except (a faulty device's daemon, which holds an image for good). */
int bk_file_in_use_except(const char *path, pid_t except);
/* Reads /proc/<pid>/<what> (cmdline, environ: NUL-separated strings) into buf, NUL-terminated;
 * its length (len - 1 when it was cut there), 0 when there is none. */
size_t bk_proc_read(const char *pid, const char *what, char *buf, size_t len);
/* SIGKILLs every FUSE daemon (another process holding /dev/fuse) given an argument match
 * accepts, again until none is found (1 s at most); how many it killed. Killing a daemon ends
 * its FUSE connection, so calls blocked on its mount return ENOTCONN. */
typedef int (*bk_arg_match_fn)(const char *arg, const void *ctx);
int bk_kill_fuse_daemons(bk_arg_match_fn match, const void *ctx);
/* 1 while another process (a FUSE daemon or not yet one) was given an argument match accepts. */
int bk_process_given(bk_arg_match_fn match, const void *ctx);

/* Run ids and fs names become path components: 1 when s is made of [A-Za-z0-9._-] and is not
 * "." or ".." (backend.c). */
int bk_safe_name(const char *s);
/* Calls fn on every mount point (field 5 of mountinfo); stops when fn returns non-zero and
 * returns that value. */
int bk_each_mount(int (*fn)(const char *mp, void *ctx), void *ctx);
int bk_top_mount_is_fuse(const char *path);

/* Loop devices (loopdev.c). Attaches file (O_RDWR fd) to a free loop device; returns
 * its number or -1 with errno. */
int bk_loop_attach(int fd, const char *file);
/* The same with direct I/O: the loop device reads and writes fd with O_DIRECT, not through
 * the file's page cache (the kernel may still refuse it: check /sys/block/loopN/loop/dio). */
int bk_loop_attach_direct(int fd, const char *file);
/* Detaches loop device nr; when it is still busy, marks it to detach at its last close. */
int bk_loop_detach(int nr);
/* Waits until loop device nr has let go of its backing file (up to timeout seconds): 0, or -1
 * when it still holds it. */
int bk_loop_wait_detached(int nr, double timeout);
/* Detaches every loop device whose backing file name starts with prefix (one still in use is
 * marked to detach at its last close); how many. The first that could not be is said in err
 * (when err is not NULL and still ""). */
int bk_loop_sweep(const char *prefix, char *err, size_t errlen);
/* The loop number of the /sys/block entry name and its backing file (newline cut) in file, or
 * -1 when name is not an attached loop device. */
int bk_loop_backing_file(const char *name, char *file, size_t len);

#endif
