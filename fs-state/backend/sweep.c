/* The sweep of what runs left behind: one run's after it ended (backend_sweep), and every dead run's on this host (sweep_dead_runs). */
#include "backend/sweep.h"
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/base/runlock.h"
#include "backend/device/write_trace.h"
#include "lib/text/buf.h"
#include "lib/system/claims.h"
#include "tree/tree.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the sweep of one run removed, and the first thing it could not. */
struct sweep_counts {
    int daemons, mounts, loops, files, dirs;
    char failed[512];
};

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void note_failure(struct sweep_counts *c, const char *what, const char *path)
{
    if (!c->failed[0])
        snprintf(c->failed, sizeof c->failed, "cannot %s %s: %s", what, path, strerror(errno));
}

/* ---- one run ---- */

/* A daemon given a path of the run (its mount point, image or backing directory) is the run's. */
static int names_run(const char *arg, const void *needle)
{
    return strstr(arg, needle) != NULL;
}

/* A mount command the dead engine started may still be starting its daemon (not yet holding
 * /dev/fuse, so not found as one): while a process named for the run lives (2 s at most), the
 * daemons are looked for again, and the mounts swept after each kill. Seen: SIGKILL of the
 * engine during fuse2fs's fault steps left a fuse2fs mount made after the sweep. */
static void sweep_mounts(const char *run_id, struct sweep_counts *c);

static void sweep_daemons(const char *run_id, struct sweep_counts *c)
{
    char needle[128];
    snprintf(needle, sizeof needle, "/metis-%s/", run_id);
    double end = now_seconds() + 2.0;
    for (;;) {
        int killed = bk_kill_fuse_daemons(names_run, needle);
        c->daemons += killed;
        if (killed)
            sweep_mounts(run_id, c);
        if (!bk_process_given(names_run, needle) || now_seconds() > end)
            return;
        bk_sleep(0.02);
    }
}

struct run_mounts {
    char needle[128];
    char found[64][1024];
    int n;
};

static int collect_run_mounts(const char *mp, void *ctx)
{
    struct run_mounts *s = ctx;
    if (strstr(mp, s->needle) && s->n < 64)
        snprintf(s->found[s->n++], sizeof s->found[0], "%s", mp);
    return 0;
}

/* A mount still in use is detached lazily: it goes once its last user lets go. */
static int unmount_now(const char *mp)
{
    return umount2(mp, UMOUNT_NOFOLLOW) == 0 ? 0 : umount2(mp, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/* The mount point, and its parent (the run's work directory) once that is empty. */
static void remove_mount_point(char *mp, struct sweep_counts *c)
{
    c->dirs += rmdir(mp) == 0;
    *strrchr(mp, '/') = 0;
    c->dirs += rmdir(mp) == 0;
}

static void sweep_mounts(const char *run_id, struct sweep_counts *c)
{
    static struct run_mounts s;
    snprintf(s.needle, sizeof s.needle, "/metis-%s/mnt-", run_id);
    for (int pass = 0; pass < 4; pass++) {
        s.n = 0;
        bk_each_mount(collect_run_mounts, &s);
        if (s.n == 0)
            break;
        for (int i = s.n - 1; i >= 0; i--) {   /* the latest mounts (deepest) first */
            if (unmount_now(s.found[i]) == 0)
                c->mounts++;
            else
                note_failure(c, "unmount", s.found[i]);
        }
        for (int i = 0; i < s.n; i++)
            remove_mount_point(s.found[i], c);
    }
}

struct dir_sweep {
    const char *dir, *keep;
    struct sweep_counts *c;
};

static int remove_dir_entry(void *ctx, const char *name)
{
    struct dir_sweep *d = ctx;
    char path[PATH_MAX];
    if ((d->keep && strcmp(name, d->keep) == 0) ||
        snprintf(path, sizeof path, "%s/%s", d->dir, name) >= (int)sizeof path)
        return 0;
    if (unlink(path) == 0)
        d->c->files++;
    else if (rmdir(path) == 0)
        d->c->dirs++;
    return 0;
}

/* Removes the files and empty directories in dir, but the one named keep (NULL: none). */
static void empty_dir(const char *dir, const char *keep, struct sweep_counts *c)
{
    struct dir_sweep d = { dir, keep, c };
    tree_dir_names(dir, remove_dir_entry, &d);
}

static void remove_dir(const char *dir, struct sweep_counts *c)
{
    if (rmdir(dir) == 0)
        c->dirs++;
    else if (errno != ENOENT)
        note_failure(c, "remove", dir);
}

/* Everything of run_id but its lock file and the directory that holds it. The loop devices
 * first, while their backing files still have their paths: a faulty device's loop device sits
 * on a file in a FUSE mount, which a busy unmount detaches lazily, after which the file's path
 * is "/img" and names no run (one still in use is marked to detach at its last close, the
 * unmount of what is on it). Then the daemons, so that no mount hangs on one; the mounts, and
 * the loop devices they freed. */
static void sweep_run(const char *run_id, struct sweep_counts *c)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, BK_SHM_DIR "/metis-%s/", run_id);
    c->loops += bk_loop_sweep(dir, c->failed, sizeof c->failed);
    sweep_daemons(run_id, c);
    sweep_mounts(run_id, c);
    c->loops += bk_loop_sweep(dir, c->failed, sizeof c->failed);
    c->dirs += write_trace_sweep(run_id);
    dir[strlen(dir) - 1] = 0;
    empty_dir(dir, "lock", c);
    snprintf(dir, sizeof dir, "/tmp/metis-%s", run_id);
    empty_dir(dir, NULL, c);   /* the replayer's mount points */
    remove_dir(dir, c);
}

void backend_sweep(const char *run_id)
{
    struct sweep_counts c;
    char dir[PATH_MAX];
    if (!run_id || !bk_safe_name(run_id))
        return;
    memset(&c, 0, sizeof c);
    sweep_run(run_id, &c);
    runlock_remove_if_free(run_id);
    snprintf(dir, sizeof dir, BK_SHM_DIR "/metis-%s", run_id);
    rmdir(dir);   /* the lock, while held, keeps it */
}

/* ---- every dead run ---- */

/* The id that starts at s and ends at the next '/', into id; 0, or -1 when it is empty, not
 * followed by a '/', too long or no safe name. */
static int id_before_slash(const char *s, char *id, size_t len)
{
    const char *end = strchr(s, '/');
    char cand[256];
    if (!end || end == s || (size_t)(end - s) >= len || (size_t)(end - s) >= sizeof cand)
        return -1;
    memcpy(cand, s, (size_t)(end - s));
    cand[end - s] = 0;
    if (!bk_safe_name(cand))
        return -1;
    memcpy(id, cand, (size_t)(end - s) + 1);
    return 0;
}

int sweep_run_of_mount(const char *mp, char *id, size_t len)
{
    int found = -1;
    for (const char *p = strstr(mp, "/metis-"); p; p = strstr(p + 1, "/metis-")) {
        const char *end = strchr(p + 7, '/');
        if (end && strncmp(end, "/mnt-", 5) == 0 && id_before_slash(p + 7, id, len) == 0)
            found = 0;
    }
    return found;
}

int sweep_run_of_backing_file(const char *file, char *id, size_t len)
{
    static const char dir[] = BK_SHM_DIR "/metis-";
    if (strncmp(file, dir, strlen(dir)) != 0)
        return -1;
    return id_before_slash(file + strlen(dir), id, len);
}

struct run_ids {
    char (*id)[64];
    size_t n, cap;
};

/* A run missing from the list (no memory) is left for the next sweep. */
static void add_run_id(struct run_ids *l, const char *id)
{
    if (strlen(id) >= sizeof *l->id || !bk_safe_name(id))
        return;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->id[i], id) == 0)
            return;
    if (array_reserve(&l->id, &l->cap, l->n + 1, sizeof *l->id) == 0)
        snprintf(l->id[l->n++], sizeof *l->id, "%s", id);
}

static int run_of_shm_entry(void *ctx, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, BK_SHM_DIR "/%s", name);
    if (strncmp(name, "metis-", 6) == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        add_run_id(ctx, name + 6);
    return 0;
}

static int run_of_mount(const char *mp, void *ctx)
{
    char id[64];
    if (sweep_run_of_mount(mp, id, sizeof id) == 0)
        add_run_id(ctx, id);
    return 0;
}

static int run_of_loop_device(void *ctx, const char *name)
{
    char file[4096], id[64];
    if (bk_loop_backing_file(name, file, sizeof file) >= 0 &&
        sweep_run_of_backing_file(file, id, sizeof id) == 0)
        add_run_id(ctx, id);
    return 0;
}

static void run_of_trace(void *ctx, const char *id)
{
    add_run_id(ctx, id);
}

/* Runs are found by what they leave: their directory in /dev/shm, a mount, a loop device, a
 * tracing instance. */
static void find_runs(struct run_ids *l)
{
    tree_dir_names(BK_SHM_DIR, run_of_shm_entry, l);
    bk_each_mount(run_of_mount, l);
    tree_dir_names("/sys/block", run_of_loop_device, l);
    write_trace_each_run(run_of_trace, l);
}

/* "1 daemon, 2 mounts, ..." of what c counts; "" when nothing. */
static void describe_counts(const struct sweep_counts *c, char *out, size_t len)
{
    const struct {
        int n;
        const char *one, *many;
    } part[] = {
        { c->daemons, "daemon", "daemons" },
        { c->mounts, "mount", "mounts" },
        { c->loops, "loop device", "loop devices" },
        { c->files, "file", "files" },
        { c->dirs, "directory", "directories" },
    };
    out[0] = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        if (part[i].n > 0)
            append(out, len, "%s%d %s", out[0] ? ", " : "", part[i].n,
                   part[i].n == 1 ? part[i].one : part[i].many);
}

static void sweep_dead_run(const char *run_id, int claim, struct sweep_report *r)
{
    struct sweep_counts c;
    char dir[PATH_MAX], what[200];
    memset(&c, 0, sizeof c);
    sweep_run(run_id, &c);
    /* Only now: while the claim is held, no other sweep takes the run, and a new run that
     * got its id (its pid came round) waits before it makes anything. */
    runlock_drop_claim(claim, run_id);
    snprintf(dir, sizeof dir, BK_SHM_DIR "/metis-%s", run_id);
    remove_dir(dir, &c);
    describe_counts(&c, what, sizeof what);
    if (what[0]) {
        append(r->removed, sizeof r->removed, "%s%s (%s)", r->removed[0] ? ", " : "", run_id,
               what);
        r->runs++;
    }
    if (c.failed[0] && !r->failed[0])
        snprintf(r->failed, sizeof r->failed, "run %s: %s", run_id, c.failed);
}

int sweep_dead_runs(struct sweep_report *r)
{
    struct run_ids l = { NULL, 0, 0 };
    memset(r, 0, sizeof *r);
    find_runs(&l);
    for (size_t i = 0; i < l.n; i++) {
        int claim;
        enum run_liveness live = runlock_probe(l.id[i], &claim);
        if (live == RUN_DEAD)
            sweep_dead_run(l.id[i], claim, r);
        else if (live == RUN_UNKNOWN)
            append(r->kept, sizeof r->kept, "%smetis-%s", r->kept[0] ? ", " : "", l.id[i]);
    }
    free(l.id);
    /* A bounded swarm's claim tables: the last VT removes its own, but not when killed. */
    int tables = claims_sweep(BK_SHM_DIR);
    if (tables)
        append(r->removed, sizeof r->removed, "%s%d claim table%s nobody held", r->removed[0] ?
               ", " : "", tables, tables == 1 ? "" : "s");
    return r->failed[0] ? -1 : 0;
}
