/* Backend front door: how Metis opens, reads back and closes one file system, whatever its kind (the types: backend_types.h). */
#ifndef METIS_BACKEND_H
#define METIS_BACKEND_H

#include <stdint.h>
#include "backend/base/backend_types.h"

/* The abstract state of b's tree (mounted: between begin and end) by its own read_back or
 * by walking b->rootfd; the digest length, or -1 with the message in b->err. index, if not
 * NULL, gets the tree's entries sorted by path. */
int backend_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                      FILE *listing, struct tree_index *index);

/* 1 for the errnos a FUSE mount without its daemon answers: ENOTCONN (the daemon exited),
 * ECONNABORTED (its connection was aborted), ECONNREFUSED (it died before its INIT reply). No
 * file-system call answers them otherwise. */
int backend_errno_of_dead_daemon(int err);
/* 1 (and b->daemon_died set) when b should be mounted but its daemon is gone: the mount
 * answers an errno of a dead daemon (a killed FUSE daemon leaves it so) or has disappeared. Only for a mount
 * that does not hang: call it after a call on it failed, or from a thread that may block. */
int backend_daemon_gone(struct backend *b);
/* A target that hangs: kills its daemon (kill_daemon) and aborts its FUSE connection
 * (FUSECTL_DIR/N/abort, when fusectl is mounted), so that every call blocked on the mount
 * returns (ENOTCONN) and the teardown can unmount it. Never blocks on the mount. */
void backend_abort(struct backend *b);

/* Makes the backend for cfg; nothing is created on disk until setup. */
struct backend *backend_open(const struct fs_config *cfg, const char *run_id, const char *workdir);
void backend_close(struct backend *b);
/* Removes what run_id left once its processes ended (or crashed): the FUSE daemons given a path
 * of the run, its mounts, loop devices and files, and its lock file (runlock.h) when no
 * process holds the lock any more (sweep.c; sweep.h sweeps every dead run). */
void backend_sweep(const char *run_id);

#endif
