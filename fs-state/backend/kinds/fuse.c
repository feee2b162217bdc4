/* FUSE (any mount command) backend: image-backed states like kernel, or a mount kept up and restored by the snapshot ioctls, logically, or by replay. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/device/image.h"
#include "backend/logical/states/dirckpt.h"
#include "backend/kinds/dump_readback.h"
#include "backend/device/faultdev.h"
#include "backend/device/imgstore.h"
#include "backend/kinds/kept.h"
#include "backend/logical/states/logical_states.h"
#include "backend/base/scratch.h"
#include "backend/kinds/snapproto.h"
#include "tree/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

/*
 * With cfg->size > 0 the fs keeps its data in b->image (made with mkfs.<fstype> when fstype
 * is given, else left zeroed for the mount command to format): it is unmounted around every
 * step and states are image snapshots; with remount = 0 it is kept mounted ("kept", below the
 * other modes in this file) and restored logically. With no image the daemon holds the
 * state and the fs stays mounted; cfg->restore chooses how a state comes back:
 *   snapshot  the daemon answers the snapshot ioctls (snapproto.h): it saves and restores;
 *   logical   saved states are recorded trees, restore applies the difference (logical_states.h);
 *   replay    remount it empty and let the engine replay the search path;
 *   auto      snapshot if the daemon answers the probe at setup, else logical.
 * A fs whose commands name {dir} or {dir:NAME} keeps its data in those directories, on a
 * run-owned tmpfs of cfg->size (scratch.h) made empty for every mount that starts afresh (the
 * first, and each replay's): it has no image, whatever its size.
 */
enum fu_mode { FM_IMAGE, FM_SNAPSHOT, FM_LOGICAL, FM_REPLAY };
static const char *const mode_names[] = { "image", "snapshot", "logical", "replay" };

struct saved_id {
    UT_hash_handle hh;
    uint64_t id;
};

struct fpriv {
    struct backend_image im;
    struct saved_id *ids;       /* no image: the states the engine may ask to replay */
    int has_image;
    enum fu_mode mode;
    int ctlfd;                  /* snapshot: the root, for the ioctls */
    struct dumpback dump;       /* snapshot: read-back by the daemon's dump, if it answers */
    int by_dump;
    struct lrestore *lr;        /* logical */
    struct kept *kept;          /* image-backed and kept mounted (remount = 0): kept.h */
    uint64_t mounts;            /* mount commands run: daemon starts */
    uint64_t link_drops;        /* kept: names of hard-linked files whose pages were dropped */
    uint64_t replays, snapshot_restores;
    uint64_t fresh_restores;    /* returns to the initial state of a populated fs (fresh_initial) */
    pid_t pid;                  /* the mount command while it runs (a daemon in the foreground) */
    int daemonizes;             /* -1 unknown; 1 if the mount command exits once mounted */
    char log[1100];
    int set_up;
    struct ph_dirs dirs;        /* the {dir} names of mount_cmd and unmount_cmd */
    struct scratch scratch;     /* where they are, if there are any */
    char dir_path[PH_MAX_DIRS][1100];
    struct faultdev *fault;     /* image, remounted: the faulty device over it, once asked for */
    int faulty;                 /* mounted (or to be unmounted) from the faulty device's file */
    struct dirckpt *dck;        /* {dir}-backed: checkpoints of its directories (dirckpt.h) */
};

static struct fpriv *fuse_priv_get_or_make(struct backend *b)
{
    if (!b->priv) {
        struct fpriv *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->im.fd = -1;
        p->ctlfd = -1;
        p->daemonizes = -1;
        b->priv = p;
    }
    return b->priv;
}

/* A command that daemonizes exits right after mounting; one that is the daemon runs on. The
 * first mount tells which (once, so that later steps do not pay for the wait). */
static void classify(struct fpriv *p)
{
    if (p->pid > 0 && p->daemonizes != 0) {
        int exited = spawn_wait_for(p->pid, p->daemonizes < 0 ? 0.2 : 5.0) != -1;
        if (p->daemonizes < 0)
            p->daemonizes = exited;
        if (exited)
            p->pid = 0;
    } else if (p->pid == 0 && p->daemonizes < 0) {
        p->daemonizes = 1;
    }
}

/* {img} is the faulty device's file while a fault step mounts from it, in the unmount command
 * too (exfat-fuse's detaches the loop device it finds by that name). */
static const char *dir_lookup(void *ctx, const char *name)
{
    struct fpriv *p = ctx;
    if (p->faulty && strcmp(name, "img") == 0)
        return faultdev_file(p->fault);
    const char *dir = ph_dir_name(name);
    for (int i = 0; dir && i < p->dirs.n; i++)
        if (strcmp(p->dirs.name[i], dir) == 0)
            return p->dir_path[i];
    return NULL;
}

/* {mnt}, {img}, {bin} and the fs's directories filled in. */
static int f_subst(struct backend *b, struct fpriv *p, const char *tmpl, char *out, size_t len)
{
    return bk_subst_with(b, tmpl, dir_lookup, p, out, len);
}

/* Inodes of a {dir} tmpfs with a size: RefFS's default count, so that against the usual
 * reference the difference stays within what equalization fills (the kernel's default, half
 * the RAM's pages, would not be); without a size the kernel's default. */
#define DIR_TMPFS_INODES 65536

static uint64_t scratch_inodes(const struct fs_config *c)
{
    return c->inodes ? c->inodes : c->size ? DIR_TMPFS_INODES : 0;
}

/* populate_dir: the initial state's entries made in that directory before the mount (a union
 * fs's lower layer), so that changing them goes through the target's copy-up. */
static int populate(struct backend *b, struct fpriv *p)
{
    for (int i = 0; b->cfg->populate_dir[0] && i < p->dirs.n; i++)
        if (strcmp(p->dirs.name[i], b->cfg->populate_dir) == 0)
            return bk_populate_dir(b, p->dir_path[i]);
    return 0;
}

static int make_dirs(struct backend *b, struct fpriv *p)
{
    for (int i = 0; i < p->dirs.n; i++)
        if (scratch_subdir(b, &p->scratch, p->dirs.name[i], p->dir_path[i],
                           sizeof p->dir_path[i]) < 0)
            return -1;
    return 0;
}

/* The directories of a mount that starts empty: made on the first, renewed after. */
static int fresh_dirs(struct backend *b, struct fpriv *p)
{
    if (p->dirs.n == 0)
        return 0;
    int rc = p->scratch.path[0] ? scratch_fresh(b, &p->scratch)
                                : scratch_mount(b, &p->scratch, "dir", b->cfg->size,
                                                scratch_inodes(b->cfg));
    return rc < 0 || make_dirs(b, p) < 0 ? -1 : populate(b, p);
}

static int f_mount(struct backend *b, struct fpriv *p, const char *step)
{
    char cmd[4096], tail[512];
    if (f_subst(b, p, b->cfg->mount_cmd, cmd, sizeof cmd) < 0)
        return bk_err(b, step, "mount_cmd too long");
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int logfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    p->pid = bk_spawn(argv, logfd);
    if (logfd >= 0)
        close(logfd);
    if (p->pid < 0)
        return bk_err(b, step, "cannot run '%s': %s", cmd, strerror(errno));
    double timeout = b->cfg->op_timeout > 0 ? b->cfg->op_timeout : 30;
    int status = -1;             /* stays -1 while the command runs: a foreground daemon */
    int rc = bk_wait_mounted(b->mnt, 1, timeout, &p->pid, &status);
    if (rc < 0) {
        bk_log_tail(p->log, tail, sizeof tail);
        if (p->pid > 0)
            spawn_stop(p->pid, 1.0);
        p->pid = 0;
        /* It mounted before (a remount around a step, a restore, a checkpoint): the daemon
         * not coming back is the target's failure, as if it had died, not Metis's. */
        b->daemon_died |= p->mounts > 0;
        return bk_err(b, step, "'%s' did not mount %s%s%s%s", cmd, b->mnt,
                      status > 0 ? " (it failed)" : status < 0 ? " in time" : "",
                      tail[0] ? ": " : "", tail);
    }
    /* A mount command may mount something else at the mount point first (loggedfs over a bind
     * mount of its directory): the FUSE mount on top of it is the one to wait for. */
    double end = now_seconds() + timeout;
    while (bk_top_mount_is_fuse(b->mnt) == 0 && now_seconds() < end)
        bk_sleep(1e-3);
    b->mounted = 1;
    p->mounts++;
    if (p->has_image)
        imgstore_file_changed(p->im.store);
    classify(p);
    return 0;
}

/* Polls every millisecond while present(b, p) holds; -1 when it still holds after timeout. */
static int wait_gone(int (*present)(struct backend *, struct fpriv *), struct backend *b,
                     struct fpriv *p, double timeout)
{
    double end = now_seconds() + timeout;
    while (present(b, p)) {
        if (now_seconds() > end)
            return -1;
        usleep(1000);
    }
    return 0;
}

/* The image the daemon was given; the faulty device's daemon holds b->image for good. */
static int image_open(struct backend *b, struct fpriv *p)
{
    const char *img = p->faulty ? faultdev_file(p->fault) : b->image;
    return bk_file_in_use_except(img, faultdev_pid(p->fault));
}

/* A daemon given mnt, a path of this run and fs alone, as an argument serves that mount. */
static int arg_is(const char *arg, const void *mnt)
{
    return strcmp(arg, mnt) == 0;
}

static int daemon_running(struct backend *b, struct fpriv *p)
{
    (void)p;
    return bk_process_given(arg_is, b->mnt);
}

/* A daemon that daemonized and serves no image (a {dir}-backed one) is waited for by its
 * arguments: one that runs on after its unmount, as archivemount was seen to (spinning at 17%
 * of a core for an hour, one per remount), is killed after the step's time limit. */
static int wait_daemon_gone(struct backend *b, struct fpriv *p, double timeout)
{
    if (wait_gone(daemon_running, b, p, timeout) == 0)
        return 0;
    bk_kill_given(arg_is, b->mnt);
    return -1;
}

/* 1 when an unmount command's output says the mount was busy: fusermount3's "Device or
 * resource busy", umount's "target is busy" (both measured), whatever else says busy. */
static int said_busy(const char *out)
{
    return strcasestr(out, "busy") != NULL;
}

/* The unmount command, again while it fails only because the mount is busy, for as long as a
 * kernel unmount retries EBUSY (BK_BUSY_SECONDS, but half the step's time limit at most, so
 * that a busy mount is not taken for a hang): a daemon that mounts over its own directory
 * keeps the mount busy until it has exited. Its exit status (0 once the mount is gone). */
static int unmount_cmd(struct backend *b, const char *cmd, double timeout, char *out,
                       size_t outlen)
{
    double busy = timeout / 2 < BK_BUSY_SECONDS ? timeout / 2 : BK_BUSY_SECONDS;
    double end = now_seconds() + busy, pause = 1e-3;
    for (;;) {
        int rc = run_cmd(timeout, out, outlen, "%s", cmd);
        if (rc == 0 || !bk_is_mounted(b->mnt))
            return 0;
        if (rc == SPAWN_TIMED_OUT || !said_busy(out) || now_seconds() > end)
            return rc;
        bk_sleep(pause);
        if (pause < 0.05)
            pause *= 2;
    }
}

/* How long an unmount waits for the daemon to go: op_timeout; half of it when the unmount
 * discards the daemon's state (a restore's, within a step that op_timeout limits too, which
 * would otherwise end first, as a hang of the step), and BK_LINGER_GRACE once a daemon of this
 * fs was seen to live on. */
static double daemon_wait(const struct backend *b, int discard, double timeout)
{
    if (!discard)
        return timeout;
    if (b->lingering_known && timeout > BK_LINGER_GRACE)
        return BK_LINGER_GRACE;
    return timeout / 2;
}

/* A daemon still there after the wait: killed and counted when the unmount discards its state
 * and lingering is known (0), else the target's failure, learnt for the next time (-1). */
static int daemon_lingers(struct backend *b, int discard, const char *step, const char *what)
{
    if (discard && b->lingering_known) {
        bk_kill_given(arg_is, b->mnt);    /* a foreground daemon was stopped by the caller */
        b->lingering_killed++;
        return 0;
    }
    b->lingering_known = 1;
    b->unmount_failed = 1;
    return bk_err(b, step, "%s", what);
}

/* Unmounts and waits until the daemon is gone, so the image holds everything it wrote; with
 * discard, for a state thrown away next (a restore, an import, the teardown). An unmount that
 * fails for good is the target's failure (b->unmount_failed), not Metis's. */
static int f_unmount(struct backend *b, struct fpriv *p, const char *step, int discard)
{
    char cmd[4096], out[512];
    const char *tmpl = b->cfg->unmount_cmd[0] ? b->cfg->unmount_cmd : "fusermount3 -u {mnt}";
    double timeout = b->cfg->op_timeout > 0 ? b->cfg->op_timeout : 30;
    bk_close_root(b);
    if (p->ctlfd >= 0)
        close(p->ctlfd);
    p->ctlfd = -1;
    b->unmount_failed = 0;
    if (f_subst(b, p, tmpl, cmd, sizeof cmd) < 0)
        return bk_err(b, step, "unmount_cmd too long");
    int rc = unmount_cmd(b, cmd, timeout, out, sizeof out);
    if (rc != 0) {
        b->unmount_failed = 1;
        return bk_err(b, step, "'%s' %s %d%s%s", cmd, rc == SPAWN_TIMED_OUT ? "timed out after" : "exited with",
                      rc == SPAWN_TIMED_OUT ? (int)timeout : rc, out[0] ? ": " : "", out);
    }
    b->mounted = 0;
    double wait = daemon_wait(b, discard, timeout);
    char what[1200];
    int lingered = 0, foreground = p->pid > 0 && !p->daemonizes;
    if (foreground) {
        if (spawn_wait_for(p->pid, wait) == -1) {
            spawn_stop(p->pid, 1.0);
            p->pid = 0;
            lingered = 1;
            if (daemon_lingers(b, discard, step, "the fs daemon did not exit after the "
                               "unmount") < 0)
                return -1;
        }
        p->pid = 0;
    }
    /* A daemon without an image is looked for by its arguments after a foreground command's
     * exit too: under load a command that daemonizes may exit later than classify waits
     * (daemon_lingers.sh's, seen in a make check beside two first runs). */
    if (!foreground && p->has_image && wait_gone(image_open, b, p, wait) < 0) {
        snprintf(what, sizeof what, "the fs daemon still has %s open after the unmount", b->image);
        if (daemon_lingers(b, discard, step, what) < 0)
            return -1;
    } else if (!lingered && !p->has_image && wait_daemon_gone(b, p, wait) < 0) {
        snprintf(what, sizeof what, "the fs daemon was still running %g s after the unmount "
                 "(killed)", wait);
        if (daemon_lingers(b, discard, step, what) < 0)
            return -1;
    }
    p->faulty = 0;
    return 0;
}

/* How the kept mode (kept.h) unmounts and mounts the daemon. */
static int unmount_daemon(struct backend *b, const char *step)
{
    return f_unmount(b, b->priv, step, 0);
}

static int mount_daemon(struct backend *b, const char *step)
{
    return f_mount(b, b->priv, step);
}

static const struct kept_ops daemon_mounts = { .unmount = unmount_daemon, .mount = mount_daemon };

static void fu_teardown(struct backend *b);

/* Restores without snapshots leave in the daemon what its calls did besides making the saved
 * state (a logical restore) or start it afresh (a replay): its real history since the last
 * fresh mount is what a replay must repeat, so the engine logs when that history starts. */
static void note_fresh(struct backend *b, struct fpriv *p, uint64_t id)
{
    int tracked = !p->has_image && (p->mode == FM_LOGICAL || p->mode == FM_REPLAY);
    if (b->record_history && tracked)
        buf_printf(&b->history, "fresh sid=%llu\n", (unsigned long long)id);
}

/* A daemon of the snapshot protocol may also hand its tree over in one request (the
 * protocol's optional DUMP, README.md): readback = auto uses it, dump requires it. */
static int choose_readback(struct backend *b, struct fpriv *p)
{
    const char *want = b->cfg->readback[0] ? b->cfg->readback : "auto";
    if (strcmp(want, "vfs") == 0)
        return 0;
    if (p->mode != FM_SNAPSHOT)
        return strcmp(want, "dump") == 0
                   ? bk_err(b, "setup", "readback = dump needs the snapshot protocol (restore "
                            "is %s)", mode_names[p->mode]) : 0;
    if (dumpback_init(&p->dump, b, p->ctlfd, "the daemon") < 0)
        return -1;
    p->by_dump = dumpback_probe(&p->dump);
    b->reads_daemon_tree = p->by_dump;
    if (!p->by_dump && strcmp(want, "dump") == 0)
        return bk_err(b, "setup", "readback = dump, but the fs does not answer REFFS_IOC_DUMP");
    return 0;
}

/* Once mounted: how states of a daemon-held fs come back (see the top of this file). */
static int choose_mode(struct backend *b, struct fpriv *p)
{
    const char *want = b->cfg->restore[0] ? b->cfg->restore : "auto";
    int probe = strcmp(want, "auto") == 0 || strcmp(want, "snapshot") == 0;
    int answers = probe ? snapproto_probe(b->mnt, &p->ctlfd) : 0;
    if (answers < 0)
        return bk_err(b, "setup", "cannot open %s: %s", b->mnt, strerror(errno));
    if (strcmp(want, "snapshot") == 0 && !answers)
        return bk_err(b, "setup", "restore = snapshot, but the fs does not answer the snapshot "
                      "ioctls (REFFS_IOC_SAVE/DISCARD on its root)");
    int replayed = strcmp(want, "replay") == 0 || b->cfg->replay_logical;
    p->mode = answers ? FM_SNAPSHOT : replayed ? FM_REPLAY : FM_LOGICAL;
    b->history_restores = p->mode != FM_SNAPSHOT;
    if (p->mode == FM_LOGICAL && !(p->lr = lr_open(b)))
        return bk_err(b, "setup", "out of memory");
    if (p->mode == FM_LOGICAL && b->record_history)
        lr_journal(p->lr, &b->history);
    note_fresh(b, p, 0);
    return choose_readback(b, p);
}

/* The directories the commands name (config.c has refused what is wrong already). */
static int scan_dirs(struct backend *b, struct fpriv *p)
{
    char why[200];
    memset(&p->dirs, 0, sizeof p->dirs);
    if (ph_scan(b->cfg->mount_cmd, &p->dirs, why, sizeof why) < 0 ||
        ph_scan(b->cfg->unmount_cmd, &p->dirs, why, sizeof why) < 0)
        return bk_err(b, "setup", "%s", why);
    if (p->dirs.n && p->dirs.uses_img)
        return bk_err(b, "setup", "{img} and {dir} together: a fs keeps its data in one or the other");
    return 0;
}

/* A {dir}-backed fs restored without snapshots keeps its directories at checkpoints; one that
 * restores by replay only loads them (the replayer's imports), it takes none. */
static int open_dir_checkpoints(struct backend *b, struct fpriv *p)
{
    if (!p->dirs.n || p->mode == FM_SNAPSHOT)
        return 0;
    uint64_t every = p->mode == FM_LOGICAL ? (uint64_t)b->cfg->remount_every : 0;
    p->dck = dck_open(p->scratch.path, every);
    return p->dck ? 0 : bk_err(b, "setup", "out of memory");
}

static int fu_setup_steps(struct backend *b, struct fpriv *p)
{
    const struct fs_config *c = b->cfg;
    if (!c->mount_cmd[0])
        return bk_err(b, "setup", "type=fuse needs mount_cmd");
    if (bk_make_mnt(b) < 0)
        return -1;
    snprintf(p->log, sizeof p->log, "%s.log", b->mnt);
    if (scan_dirs(b, p) < 0)
        return -1;
    p->has_image = c->size > 0 && p->dirs.n == 0;
    int kept = p->has_image && !c->remount;
    p->mode = kept ? FM_LOGICAL : FM_IMAGE;
    if (p->has_image && (bimage_create(b, &p->im, c->size) < 0 ||
                         (c->fstype[0] && bimage_mkfs(b, c->fstype, c->size) < 0)))
        return -1;
    if (kept && !(p->kept = kept_open(b, &p->im, &daemon_mounts)))
        return -1;
    if (!p->has_image || kept)
        bk_pin_cpu();           /* every step is FUSE round trips to the daemon it starts */
    if (fresh_dirs(b, p) < 0 || f_mount(b, p, "setup: first mount") < 0)
        return -1;
    return p->has_image ? 0 : choose_mode(b, p) < 0 ? -1 : open_dir_checkpoints(b, p);
}

static int fu_setup(struct backend *b)
{
    struct fpriv *p = fuse_priv_get_or_make(b);
    if (!p)
        return bk_err(b, "setup", "out of memory");
    if (p->set_up)
        return bk_err(b, "setup", "already set up");
    if (fu_setup_steps(b, p) == 0) {
        p->set_up = 1;
        return 0;
    }
    return bk_setup_failed(b, fu_teardown);
}

static int fu_begin(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up)
        return bk_err(b, "begin", "not set up");
    int was_mounted = b->mounted;
    if (!b->mounted && f_mount(b, p, "begin: mount") < 0)
        return -1;
    if (p->has_image)
        imgstore_file_changed(p->im.store);
    if (p->lr)
        lr_begin(p->lr);
    if (p->kept)
        kept_begin(p->kept);
    if (p->dck)
        dck_begin(p->dck);
    if (bk_open_root(b) < 0)
        return -1;
    /* A path-based daemon's kernel caches each name of a hard-linked file apart: the step
     * starts with none of them cached, as on the fresh mount of remount = 1. */
    if (p->kept && was_mounted)
        p->link_drops += (uint64_t)lr_drop_link_caches(kept_lr(p->kept), b->rootfd);
    return 0;
}

static int fu_end(struct backend *b)
{
    struct fpriv *p = b->priv;
    bk_close_root(b);
    if (p && p->has_image && b->cfg->remount && b->mounted)
        return f_unmount(b, p, "end", 0);
    return 0;
}

static struct saved_id *find_id(struct fpriv *p, uint64_t id)
{
    struct saved_id *s;
    HASH_FIND(hh, p->ids, &id, sizeof id, s);
    return s;
}

static int remember(struct backend *b, struct fpriv *p, uint64_t id)
{
    struct saved_id *s = find_id(p, id);
    if (s)
        return 0;
    if (!(s = calloc(1, sizeof *s)))
        return bk_err(b, "save", "out of memory");
    s->id = id;
    HASH_ADD(hh, p->ids, id, sizeof s->id, s);
    return 0;
}

/* One id, or all of them with UINT64_MAX (a discard per state: a scan would make it quadratic). */
static void forget(struct fpriv *p, uint64_t id)
{
    struct saved_id *s, *tmp;
    if (id != UINT64_MAX) {
        HASH_FIND(hh, p->ids, &id, sizeof id, s);
        if (s) {
            HASH_DEL(p->ids, s);
            free(s);
        }
        return;
    }
    HASH_ITER(hh, p->ids, s, tmp) {
        HASH_DEL(p->ids, s);
        free(s);
    }
}

static int fu_save(struct backend *b, uint64_t id)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up)
        return bk_err(b, "save", "not set up");
    if (p->kept)
        return kept_save(p->kept, b, id);
    if (p->mode == FM_SNAPSHOT && snapproto_save(p->ctlfd, id) < 0)
        return bk_err(b, "save", "state %llu: %s", (unsigned long long)id, strerror(errno));
    if (p->mode == FM_SNAPSHOT)
        return 0;
    if (p->mode == FM_LOGICAL && lr_save(p->lr, b, id) < 0)
        return -1;
    int kept = p->dck ? dck_saved(p->dck, b, id) : 0;
    if (kept < 0)
        return -1;
    if (kept)
        note_fresh(b, p, id);   /* mounted again on the kept directories: its history restarts */
    if (!p->has_image)
        return remember(b, p, id);   /* the engine's replay path is the state */
    return bimage_save(b, &p->im, id);
}

/* What a replay to id mounts: fresh directories, or those of the newest checkpoint on its way. */
static int replay_dirs(struct backend *b, struct fpriv *p, uint64_t id, uint64_t *from)
{
    *from = p->dck ? dck_nearest(p->dck, id) : BACKEND_REPLAY_INITIAL;
    if (*from == BACKEND_REPLAY_INITIAL)
        return fresh_dirs(b, p);
    return scratch_fresh(b, &p->scratch) < 0 ? -1 : dck_put_back(p->dck, b, *from);
}

static int replay(struct backend *b, struct fpriv *p, uint64_t id)
{
    struct saved_id *s;
    HASH_FIND(hh, p->ids, &id, sizeof id, s);
    if (!s)
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (!b->replay_fn)
        return bk_err(b, "restore", "state %llu: no image to restore and no replay hook",
                      (unsigned long long)id);
    uint64_t from;
    if ((b->mounted && f_unmount(b, p, "restore: unmount", 1) < 0) ||
        replay_dirs(b, p, id, &from) < 0 || f_mount(b, p, "restore: fresh mount") < 0)
        return -1;
    p->replays++;
    note_fresh(b, p, id);
    if (p->dck)
        dck_fresh(p->dck);
    return bk_replay(b, from, id);
}

/* The fallback of a logical restore that missed. */
static int replay_fallback(void *ctx, struct backend *b, uint64_t id)
{
    return replay(b, ctx, id);
}

/* A logical restore brings the tree back, not the layer that held an entry (what it remakes
 * lands in the upper layer): a populated fs goes back to its initial state on fresh
 * directories instead, so every search path from there meets the lower entries' copy-up. */
static int fresh_initial(struct backend *b, struct fpriv *p)
{
    if (replay(b, p, 0) < 0)
        return -1;
    p->fresh_restores++;
    lr_begin(p->lr);            /* the next read-back records what the fresh mount holds */
    return 0;
}

static int snapshot_restore(struct backend *b, struct fpriv *p, uint64_t id)
{
    p->snapshot_restores++;
    if (snapproto_restore(p->ctlfd, id) == 0)
        return 0;
    return bk_err(b, "restore", "state %llu: %s", (unsigned long long)id,
                  errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
}

/* A fs without an image restored logically or by replay; a {dir}-backed one's checkpoints
 * learn the live state. */
static int daemon_restore(struct backend *b, struct fpriv *p, uint64_t id)
{
    int rc;
    if (p->mode == FM_LOGICAL && b->populated && id == 0 && !lr_holds(p->lr, id))
        rc = fresh_initial(b, p);
    else if (p->mode == FM_LOGICAL)
        rc = lr_restore(p->lr, b, id, replay_fallback, p);
    else
        rc = replay(b, p, id);
    if (rc == 0 && p->dck)
        dck_restored(p->dck, id);
    return rc;
}

static int fu_restore(struct backend *b, uint64_t id)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up)
        return bk_err(b, "restore", "not set up");
    if (p->kept)
        return kept_restore(p->kept, b, id);
    if (p->mode == FM_SNAPSHOT)
        return snapshot_restore(b, p, id);
    if (!p->has_image)
        return daemon_restore(b, p, id);
    if (!imgstore_has(p->im.store, id))
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (b->mounted && f_unmount(b, p, "restore: unmount", 1) < 0)
        return -1;
    return bimage_restore(b, &p->im, id);
}

static void fu_discard(struct backend *b, uint64_t id)
{
    struct fpriv *p = b->priv;
    if (p && p->kept)
        kept_discard(p->kept, id);
    else if (p && p->has_image && p->im.store)
        imgstore_discard(p->im.store, id);
    else if (p && p->mode == FM_SNAPSHOT)
        snapproto_discard(p->ctlfd, id);
    if (p && !p->has_image && p->mode != FM_SNAPSHOT)
        forget(p, id);
    if (p && p->lr)
        lr_discard(p->lr, id);
    if (p)
        dck_discard(p->dck, id);
}

static int fu_export(struct backend *b, uint64_t id, const char *dir, char *out, size_t outlen)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up)
        return bk_err(b, "export", "not set up");
    if (p->dck)
        return dck_export(p->dck, b, id, dir, out, outlen);
    if (!p->has_image)
        return bk_err(b, "export", p->dirs.n ? "no image: this fs keeps its state in its {dir} "
                      "directories" : "no image: this fs keeps its state in its daemon (set size)");
    if (p->kept && !kept_has_image(p->kept, id))
        return bk_err(b, "export", "no image of state %llu: kept mounted (remount = 0), it has "
                      "images of its checkpoints only (every remount_every steps of a search "
                      "path)", (unsigned long long)id);
    return bimage_export(b, &p->im, id, dir, out, outlen);
}

static int fu_can_export(struct backend *b, uint64_t id)
{
    struct fpriv *p = b->priv;
    if (p && p->set_up && p->dck)
        return dck_has(p->dck, id);
    return p && p->set_up && p->has_image && (!p->kept || kept_has_image(p->kept, id));
}

/* The replayer's load of a {dir}-backed fs's exported checkpoint: its directories on a fresh
 * tmpfs, a fresh mount of them, state id. */
static int fu_import(struct backend *b, const char *path, uint64_t id)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up || !p->dck)
        return bk_err(b, "import", "only a {dir}-backed fs restored without snapshots loads "
                      "exported directories");
    if ((b->mounted && f_unmount(b, p, "import: unmount", 1) < 0) ||
        scratch_fresh(b, &p->scratch) < 0 || dck_import(p->dck, b, path, id) < 0 ||
        f_mount(b, p, "import: mount") < 0 || remember(b, p, id) < 0)
        return -1;
    if (p->lr)
        lr_begin(p->lr);        /* its next read-back records what the mount shows */
    if (p->lr && lr_save(p->lr, b, id) < 0)
        return -1;
    note_fresh(b, p, id);
    return 0;
}

static void fu_teardown(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (!p)
        return;
    bk_close_root(b);
    if (p->ctlfd >= 0)
        close(p->ctlfd);
    p->ctlfd = -1;
    if ((b->mounted || bk_is_mounted(b->mnt)) && f_unmount(b, p, "teardown", 1) < 0) {
        bk_unmount(b->mnt, 1.0);        /* lazy if still busy */
        b->mounted = 0;
    }
    if (p->pid > 0)
        spawn_stop(p->pid, 1.0);
    p->pid = 0;
    p->faulty = 0;
    faultdev_close(p->fault);           /* after the daemon: it may have had the device's file */
    p->fault = NULL;
    if (p->has_image)
        bimage_destroy(b, &p->im);
    scratch_unmount(&p->scratch);       /* after the daemon: it held the directories */
    dck_close(p->dck);
    p->dck = NULL;
    forget(p, UINT64_MAX);
    kept_close(p->kept);
    p->kept = NULL;
    lr_close(p->lr);
    p->lr = NULL;
    dumpback_free(&p->dump);
    p->by_dump = 0;
    if (p->log[0])
        unlink(p->log);
    p->set_up = 0;
    bk_remove_mnt(b);
}


/* A daemon that daemonized is not the mount command Metis started (p->pid 0): it is found by
 * its mount point and /dev/fuse. Killing it ends its FUSE connection, so calls blocked on the
 * mount return ENOTCONN. */
static void fu_kill_daemon(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (p && p->pid > 0)
        kill(-p->pid, SIGKILL);
    bk_kill_fuse_daemons(arg_is, b->mnt);
}

static uint64_t fu_held_bytes(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (p && p->mode == FM_SNAPSHOT && p->ctlfd >= 0)
        return snapproto_held_bytes(p->ctlfd);
    if (p && p->kept)
        return kept_held_bytes(p->kept);
    if (p && p->lr)
        return lr_held_bytes(p->lr) + dck_held_bytes(p->dck);
    return p && p->has_image && p->im.store ? imgstore_bytes(p->im.store) : 0;
}

static int fu_kept_read_back(struct backend *b, struct fpriv *p, const struct tree_opts *o,
                             unsigned char *out, FILE *listing, struct tree_index *index)
{
    enum kept_check check;
    char diff[700];
    /* An operation through one name of a hard-linked file leaves the others' cached pages
     * stale (copy_range reads its source's pages before it writes through another name):
     * the tree is read through the daemon, which the remount check compares with its image. */
    p->link_drops += (uint64_t)lr_drop_link_caches(kept_lr(p->kept), b->rootfd);
    int n = kept_read_back(p->kept, b, o, out, listing, index, &check, diff, sizeof diff);
    /* A daemon that shows another tree than it wrote is a target that cannot be read back
     * as it is: the run records its unreadable class. */
    if (n >= 0 && check == KEPT_DIFFERS)
        return bk_err(b, "read-back", "remount check: the tree after a remount is not the "
                      "live one: %s", diff);
    return n;
}

static int dir_unmount(struct backend *b)
{
    return f_unmount(b, b->priv, "read-back: checkpoint", 0);
}

static int dir_mount(struct backend *b)
{
    return f_mount(b, b->priv, "read-back: checkpoint") < 0 ? -1 : bk_open_root(b);
}

/* {dir}-backed and restored logically: every remount_every steps a checkpoint (dirckpt.h). */
static int dir_read_back(struct backend *b, struct fpriv *p, const struct tree_opts *o,
                         unsigned char *out, FILE *listing, struct tree_index *index)
{
    static const struct dck_mount around = { dir_unmount, dir_mount };
    int n = lr_read_back(p->lr, b, o, out, listing, index);
    return n < 0 || dck_after_read_back(p->dck, b, p->lr, &around) < 0 ? -1 : n;
}

/* Logical mode records the tree as it reads it back: the one walk serves both. */
static int fu_read_back(struct backend *b, const struct tree_opts *o, unsigned char *out,
                        FILE *listing, struct tree_index *index)
{
    struct fpriv *p = b->priv;
    if (p && p->kept)
        return fu_kept_read_back(b, p, o, out, listing, index);
    if (p && p->lr && p->dck)
        return dir_read_back(b, p, o, out, listing, index);
    if (p && p->lr)
        return lr_read_back(p->lr, b, o, out, listing, index);
    if (p && p->by_dump)
        return dumpback_read_back(&p->dump, b, o, out, listing, index);
    return bk_walk(b, o, out, listing, index);
}

static void fu_stats(struct backend *b, FILE *json)
{
    struct fpriv *p = b->priv;
    if (!p)
        return;
    const struct kept_counts *k = p->kept ? kept_counts(p->kept) : NULL;
    fprintf(json, "\"restore\":\"%s\",\"readback\":\"%s\",\"replays\":%llu,\"mounts\":%llu",
            mode_names[p->mode], p->by_dump ? "dump" : "vfs",
            (unsigned long long)(p->replays + (k ? k->replays : 0)), (unsigned long long)p->mounts);
    if (k)
        fprintf(json, ",\"kept\":{\"remount_checks\":%llu,\"link_cache_drops\":%llu,"
                "\"statfs_misses\":%llu}",
                (unsigned long long)k->remount_checks, (unsigned long long)p->link_drops,
                (unsigned long long)k->statfs_misses);
    if (p->mode == FM_SNAPSHOT)
        fprintf(json, ",\"snapshot_restores\":%llu", (unsigned long long)p->snapshot_restores);
    if (b->populated)
        fprintf(json, ",\"fresh_initial\":%llu", (unsigned long long)p->fresh_restores);
    if (b->lingering_killed)
        fprintf(json, ",\"lingering_killed\":%llu", (unsigned long long)b->lingering_killed);
    if (p->lr || p->kept)
        lr_print_stats(p->kept ? kept_lr(p->kept) : p->lr, json);
    if (p->dck)
        dck_stats(p->dck, json);
}

/* ---- fault steps: an image-backed fs, remounted around every step ---- */

/* No loop device: the daemon is given the faulty device's file as its image (a daemon that
 * needs a block device puts one over it in its mount command). A kept fs is refused: the
 * fault step must mount it from that file and again from the image (config.c says so). */
static struct faultdev *fu_faultdev(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (!p || !p->set_up || !p->has_image || p->kept) {
        bk_err(b, "faulty device", !p || !p->set_up ? "not set up"
               : p->kept ? "a fault step needs remount = 1"
                         : "no image: fault steps need a mount_cmd with {img} and a size");
        return NULL;
    }
    if (!p->fault)
        p->fault = faultdev_open(b, 0);
    return p->fault;
}

static int fu_begin_faulty(struct backend *b)
{
    struct fpriv *p = b->priv;
    if (!p || !p->fault)
        return bk_err(b, "begin", "no faulty device");
    if (b->mounted)
        return bk_err(b, "begin", "mounted already: a fault step needs remount = 1");
    p->faulty = 1;
    if (f_mount(b, p, "begin: mount from the faulty device") < 0) {
        p->faulty = 0;
        return -1;
    }
    return bk_open_root(b);
}

const struct backend_ops backend_fuse_ops = {
    .setup = fu_setup,
    .begin = fu_begin,
    .end = fu_end,
    .save = fu_save,
    .restore = fu_restore,
    .discard = fu_discard,
    .export_state = fu_export,
    .can_export = fu_can_export,
    .teardown = fu_teardown,
    .held_bytes = fu_held_bytes,
    .read_back = fu_read_back,
    .stats = fu_stats,
    .kill_daemon = fu_kill_daemon,
    .faultdev = fu_faultdev,
    .begin_faulty = fu_begin_faulty,
    .import_state = fu_import,
};
