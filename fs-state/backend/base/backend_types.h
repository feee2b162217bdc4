/* A backend's types: the operations each kind of file system implements and the state one open backend keeps (what backend.c's front door and the kinds share). */
#ifndef METIS_BACKEND_TYPES_H
#define METIS_BACKEND_TYPES_H

#include <stdint.h>
#include <stdio.h>
#include "tree/digest.h"
#include "tree/classify.h"
#include "engine/config/config.h"
#include "lib/text/buf.h"
#include "lib/system/spawner.h"   /* run_cmd */

/*
 * Life of a backend during a run:
 *   backend_open -> setup (mkfs / start daemon, first mount)
 *   per step: begin (mount if unmounted; returns the root fd)  -> op + read-back
 *             end   (unmount if cfg->remount)                  -> save(state id)
 *   on backtrack: restore(state id) before begin.
 *   teardown (unmount, detach, remove every file it made) — also from a signal path.
 * All functions return 0 or -1 with a one-line message (naming the fs and the step) in
 * b->err; a -1 is an infrastructure failure, never a discrepancy.
 */
struct backend;
struct faultdev;
struct backend_ops {
    int (*setup)(struct backend *b);
    int (*begin)(struct backend *b);              /* sets b->rootfd */
    int (*end)(struct backend *b);
    int (*save)(struct backend *b, uint64_t id);
    int (*restore)(struct backend *b, uint64_t id);
    void (*discard)(struct backend *b, uint64_t id);
    /* Writes the concrete state id to a file under dir (image, pickle); returns its path in out. */
    int (*export_state)(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen);
    /* Optional: 1 when export_state can write state id; NULL: every saved state can be. */
    int (*can_export)(struct backend *b, uint64_t id);
    void (*teardown)(struct backend *b);
    /* Bytes held by saved states (for memory reports). */
    uint64_t (*held_bytes)(struct backend *b);
    /* Optional: the abstract state without walking the mount (between begin and end), as
     * tree_digest (index, if not NULL, gets the entries); NULL means the walk. Returns the
     * digest length or -1 (b->err). */
    int (*read_back)(struct backend *b, const struct tree_opts *o, unsigned char *out,
                     FILE *listing, struct tree_index *index);
    /* Optional: members of a JSON object on how this backend restored states, for
     * summary.json (e.g. "restore":"logical","logical_restores":12); NULL says nothing. */
    void (*stats)(struct backend *b, FILE *json);
    /* Optional: kills the daemon at once (SIGKILL: the process group Metis started, or the
     * daemon it became, found by its mount point), which ends its FUSE connection, so nothing
     * it serves can block; callable while another thread is stuck in a call on the mount. */
    void (*kill_daemon)(struct backend *b);
    /* Optional: makes the state export_state wrote to file (of this fs's config, in another
     * run) the live one, saved as id: for a state that is no image the replayer can write
     * back (a tmpfs's tree, a FUSE fs's backing directories). NULL: replayer/replay/import.c's way. */
    int (*import_state)(struct backend *b, const char *file, uint64_t id);
    /* Optional: set up again (nothing in it yet) with room for bytes and inodes more than it
     * has: for a file system whose limits are only numbers (RefFS). NULL: it cannot grow. */
    int (*grow)(struct backend *b, uint64_t bytes, uint64_t inodes);
    /* Optional: a kept fs (remount = 0) unmounted, so that its image may be overwritten (the
     * replayer's import); the next save keeps the image as it then is. */
    int (*unmount)(struct backend *b);
    /* Optional test hook ([run] remount_test_lose): the bytes [off, off + len) the operation
     * just wrote to the regular file at path never reach the device: a kept kernel fs zeroes
     * them in its image at its next checkpoint's unmount, before the remount. */
    void (*lose_write)(struct backend *b, const char *path, uint64_t off, uint64_t len);
    /* Optional (a kernel fs on a loop device, an image-backed FUSE fs remounted around every
     * step): its faulty device (backend/faultdev.h), made at
     * the first call and kept until the teardown; NULL with b->err when it cannot be made. */
    struct faultdev *(*faultdev)(struct backend *b);
    /* Optional, beside faultdev: begin, but mounted from the faulty device (b unmounted). */
    int (*begin_faulty)(struct backend *b);
};

/* A kept fs's checkpoint (remount = 0) whose remount check found the tree read after the
 * remount not the live one: a kernel fs's is a discrepancy class of its own (remount NAME
 * state ATTR). Set by the read-back of a step; the listings are the backend's until its next
 * checkpoint. */
struct backend_remount {
    int differs;
    struct state_diff d;        /* the most telling difference, the live tree as reference */
    const char *live, *after;   /* both trees' listings */
};

/* Brings a freshly mounted, empty file system to state id by replaying the operations of the
 * search path through b->rootfd (open during the call); with from other than
 * BACKEND_REPLAY_INITIAL the mount holds from, an ancestor of id on the path, and only the
 * operations after it are replayed. The engine provides it for backends that cannot snapshot
 * (type=fuse without an image); 0 or -1 (message in b->err). */
#define BACKEND_REPLAY_INITIAL UINT64_MAX
typedef int (*backend_replay_fn)(void *ctx, struct backend *b, uint64_t from, uint64_t id);

/* Makes the initial state's entries (the run's prepopulation) below the directory dirfd, as the
 * first step would through a mount: for a backend whose entries must exist before its first
 * mount (an overlay's lower layer). The engine provides it; 0 or -1. */
typedef int (*backend_populate_fn)(void *ctx, int dirfd);

struct backend {
    const struct backend_ops *ops;
    const struct fs_config *cfg;
    char run_id[64];            /* unique per run: names devices, images, mount points */
    char mnt[1024];             /* mount point */
    char image[1024];           /* backing image, if any */
    int rootfd;                 /* valid between begin and end */
    int mounted;
    char err[1024];
    void *priv;
    int daemon_died;            /* the mount answered ENOTCONN or was gone (backend_daemon_gone) */
    int restore_unreachable;    /* the last restore failed: no way brought the state back */
    int unmount_failed;         /* the last unmount of a daemon's mount failed for good (its
                                   unmount_cmd failed, or met EBUSY for BK_BUSY_SECONDS) */
    int own_failure;            /* the last read-back failed in Metis's own part (an image
                                   store), not the target's: set by the backend, reset per read */
    int tree_unreadable;        /* the last recording of its tree (a read-back, or one within
                                   a save, a restore or after a replay) failed on the mount
                                   (an entry listed but gone, EIO): the target's failure */
    backend_replay_fn replay_fn;   /* set by the engine; needed only where snapshots are not */
    void *replay_ctx;              /* ... and the context of populate_fn too */
    backend_populate_fn populate_fn;  /* set by the engine */
    int history_restores;       /* set by the backend: its states come back logically or by a
                                   replay on a fresh mount (a daemon without snapshots or an
                                   image), so a class's trace is what it ran since its last
                                   fresh mount */
    int populated;              /* set by the backend: its mounts show the initial state's
                                   entries already, so the engine does not make them */
    uint64_t grown_bytes, grown_inodes;   /* after grow: its capacity and inode limit (0: the
                                             config's) */
    int read_step;              /* set by the step core around the read-back that follows an
                                   operation: a kept fs, or a {dir}-backed one's checkpoints,
                                   count it as a step down the search path (a report's
                                   read-back, the engine's listing of a saved state are none) */
    int checkpoint_now;         /* set by the replayer: that read-back takes a checkpoint
                                   whatever remount_every says (a trace's last operation) */
    uint64_t ample_bytes, ample_inodes;  /* set by the engine: free bytes and inodes more than
                                            the pool could ever take (0: none are) */
    struct backend_remount remount;
    int mount_recorded;         /* set by the crash check (crash_states = flushes or stream): a
                                   kernel fs's begin mounts it from its faulty device, whose
                                   block log is the stream its crash states are made from */
    int reads_daemon_tree;      /* set by the backend: its read-back has the daemon hand its
                                   tree over (a dump), so no kernel cache stands between them */
    int record_history;         /* set by the engine: a backend whose restores leave more in the
                                   fs than its saved state (one without snapshots) records what
                                   they did in history, for a replay of its real history */
    int lingering_known;        /* set by the replayer, or by a backend once it saw one: a
                                   daemon may live on after its unmount (archivemount's save of
                                   a FIFO never ends), so an unmount that discards the daemon's
                                   state kills one still there after BK_LINGER_GRACE seconds
                                   instead of failing after op_timeout */
    uint64_t lingering_killed;  /* ... daemons killed so */
    struct buf history;         /* ... one line per event: "fresh sid=S" (mounted afresh and
                                   brought to state S by replay), "call ret=R errno=E KIND ARGS"
                                   (a logical restore's call, rcalls.h); the engine logs the
                                   lines after every step (fs-state/LOG.md) and empties it */
};

#endif
