/* Crash check of one fs: sync what an operation touched, copy the device, recover the copy and hold it to what the sync promised. */
#include "engine/crash/crash_check.h"
#include "engine/config/crash_config.h"
#include "backend/crash_image.h"
#include "engine/crash/crash_listing.h"
#include "engine/crash/crash_oracle.h"
#include "engine/crash/crash_states.h"
#include "backend/device/faultdev.h"
#include "lib/system/helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* An operation touches at most two objects and two parent directories. */
#define MAX_PROMISES 4

/* An object fsync made durable: its path in the tree (symlinks resolved) and whether it is a
 * directory, whose names are then promised too. */
struct promise {
    char path[METIS_PATH_MAX];
    int dir;
};

/* A state of the step already recovered cleanly: its image's key and what recovery read. */
struct recovered {
    unsigned char key[CRASH_IMAGE_KEY];
    char *text;
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
};

struct crash_check {
    struct backend *b;
    const struct tree_opts *abs;
    enum crash_mode mode;
    int skip_op;                /* test hook: the operation whose sync is left out, or -1 */
    int journal;                /* the format keeps a journal (crash_image_has_journal) */
    const char *checker;
    struct crash_image *img;
    struct promise prom[MAX_PROMISES];
    int nprom, pending;
    FILE *live;                 /* the live read-back's listing while a capture is pending */
    char *live_text, *rec_text; /* the last live and recovered listings */
    size_t live_len, rec_len;
    enum crash_states states;   /* copy, or states of the recorded stream */
    int lie;                    /* test hook crash_test_lie: the recording device lies */
    size_t states_max;
    struct crash_state *st;     /* room for states_max states */
    struct faultdev *dev;       /* the recording device (the backend's) */
    int recording, data_op;
    char *pre_text;             /* the listing of the state the step started from */
    struct crash_named named;   /* the paths the step's operation names */
    size_t pre_len;
    struct recovered *seen;     /* the step's states recovered so far (room for states_max) */
    size_t nseen;
    struct crash_parts parts;
};

/* The marks the check puts in the block log: its syncs began, and they all returned. */
enum { MARK_SYNCING = 1, MARK_SYNCED = 2 };

static int cerr(struct crash_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int cerr(struct crash_check *c, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->b->err, sizeof c->b->err, "fs %s: crash check: %s", c->b->cfg->name, msg);
    return -1;
}

/* ---- life ---- */

struct crash_check *crash_open(const struct metis_config *cfg, int i, struct backend *b,
                               const struct tree_opts *abs, int *failed)
{
    const struct fs_config *fs = &cfg->fs[i];
    struct crash_check *c;
    *failed = 0;
    if (!crash_applies(cfg, fs))
        return NULL;
    if (!(c = calloc(1, sizeof *c))) {
        *failed = 1;
        return NULL;
    }
    c->b = b;
    c->abs = abs;
    c->mode = (enum crash_mode)crash_mode_parse(cfg->run.crash);
    c->skip_op = cfg->run.crash_test_skip[0] ? op_lookup(cfg->run.crash_test_skip) : -1;
    c->checker = crash_checker(fs->fstype);
    c->states = (enum crash_states)crash_states_parse(cfg->run.crash_states);
    c->lie = cfg->run.crash_test_lie;
    c->states_max = (size_t)cfg->run.crash_states_max;
    if (c->states != CRASH_STATES_COPY && (!(c->st = calloc(c->states_max, sizeof *c->st)) ||
                                           !(c->seen = calloc(c->states_max, sizeof *c->seen)))) {
        free(c->st);
        free(c);
        *failed = 1;
        return NULL;
    }
    return c;
}

/* The recording device: the backend's faulty device, which each step is then mounted from. */
static int setup_recording(struct crash_check *c)
{
    if (c->states == CRASH_STATES_COPY)
        return 0;
    if (!c->b->ops->faultdev)
        return cerr(c, "crash_states = %s needs a recording device, and this backend has none",
                    crash_states_name(c->states));
    if (!(c->dev = c->b->ops->faultdev(c->b)))
        return -1;
    c->b->mount_recorded = 1;
    return 0;
}

int crash_setup(struct crash_check *c)
{
    c->img = crash_image_open(c->b, c->states != CRASH_STATES_COPY);
    if (!c->img || (c->journal = crash_image_has_journal(c->img)) < 0 || setup_recording(c) < 0)
        return -1;
    if (c->journal || (c->mode != CRASH_ANY && c->states == CRASH_STATES_COPY))
        return 0;
    return cerr(c, "%s needs a journal, and the %s made here has none (mkfs.ext4 makes one from "
                "2 MiB, unless mkfs_opts say otherwise)", c->states == CRASH_STATES_COPY
                ? "crash = any" : "crash_states = flushes or stream", c->b->cfg->fstype);
}

static void free_text(char **text, size_t *len)
{
    free(*text);
    *text = NULL;
    *len = 0;
}

static void forget_recovered(struct crash_check *c)
{
    for (size_t k = 0; k < c->nseen; k++)
        free(c->seen[k].text);
    c->nseen = 0;
}

void crash_parts(const struct crash_check *c, struct crash_parts *p)
{
    if (c)
        *p = c->parts;
    else
        memset(p, 0, sizeof *p);
}

/* Adds the time since since to part; the time now. */
static double lap(double *part, double since)
{
    double t = now_seconds();
    *part += t - since;
    return t;
}

void crash_close(struct crash_check *c)
{
    if (!c)
        return;
    crash_image_close(c->img);
    if (c->live)
        fclose(c->live);
    free_text(&c->live_text, &c->live_len);
    free_text(&c->rec_text, &c->rec_len);
    free_text(&c->pre_text, &c->pre_len);
    forget_recovered(c);
    free(c->seen);
    free(c->st);
    free(c);                    /* the recording device is the backend's: its teardown closes it */
}

int crash_start(struct crash_check *c)
{
    if (!c || c->states == CRASH_STATES_COPY)
        return 0;
    if (crash_image_base(c->img) < 0 || faultdev_record(c->dev, crash_lie_record(c->lie)) < 0)
        return -1;
    c->recording = 1;
    return 0;
}

static int mark(struct crash_check *c, int which)
{
    char text[32];
    snprintf(text, sizeof text, "mark %d", which);
    return c->recording ? faultdev_record(c->dev, text) : 0;
}

/* ---- the sync ---- */

/* path ("/a/b", "/" for the root) opened beneath rootfd; a final symlink is followed, as the
 * operations follow it. */
static int open_below(int rootfd, const char *path, int flags)
{
    struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    return (int)syscall(SYS_openat2, rootfd, path[1] ? path + 1 : ".", &how, sizeof how);
}

/* Where fd sits in the tree: its path below the mount point, from /proc. */
static int tree_path(const struct crash_check *c, int fd, char *out, size_t len)
{
    char link[64], full[METIS_PATH_MAX + 1100];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, full, sizeof full - 1);
    size_t m = strlen(c->b->mnt);
    if (n < 0 || (size_t)n < m || strncmp(full, c->b->mnt, m) != 0 || (n > (ssize_t)m && full[m] != '/'))
        return -1;
    full[n] = 0;
    snprintf(out, len, "%s", n == (ssize_t)m ? "/" : full + m);
    return 0;
}

static void add_promise(struct crash_check *c, const char *path, int dir)
{
    for (int k = 0; k < c->nprom; k++)
        if (strcmp(c->prom[k].path, path) == 0)
            return;
    if (c->nprom < MAX_PROMISES) {
        snprintf(c->prom[c->nprom].path, sizeof c->prom[0].path, "%s", path);
        c->prom[c->nprom++].dir = dir;
    }
}

/* Fsyncs what path names (a missing one is no failure: the operation may have failed), unless
 * skip; it becomes a promise either way, so the test hook shows what a missing fsync loses. */
static int sync_one(struct crash_check *c, int rootfd, const char *path, int dir, int skip)
{
    struct stat st;
    char where[METIS_PATH_MAX];
    int fd = open_below(rootfd, path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return 0;
    /* A FIFO, socket or device node has no data to make durable (fsync says EINVAL): its
     * name is the directory's promise. */
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        close(fd);
        return 0;
    }
    int rc = 0;
    if (!skip && fsync(fd) < 0)
        rc = cerr(c, "fsync %s: %s", path, strerror(errno));
    if (rc == 0 && fstat(fd, &st) == 0 && tree_path(c, fd, where, sizeof where) == 0)
        add_promise(c, where, S_ISDIR(st.st_mode));
    close(fd);
    return rc;
}

static void parent_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, len, "%.*s", slash && slash != path ? (int)(slash - path) : 1, path);
}

/* The objects an operation changed (the file, the directory made, the name linked or moved to)
 * and the directories whose names it changed. */
static int sync_touched(struct crash_check *c, int rootfd, const struct op_args *a, int skip)
{
    const char *obj[2] = { NULL, NULL };
    char dir[2][METIS_PATH_MAX];
    int two = a->op == OP_rename || a->op == OP_link;
    if (two)
        obj[0] = a->path2;
    else if (a->op != OP_unlink && a->op != OP_rmdir && a->op != OP_symlink)
        obj[0] = a->path;
    if (a->op == OP_rename && (a->flags & RENAME_EXCHANGE))
        obj[1] = a->path;
    parent_of(a->path, dir[0], sizeof dir[0]);
    parent_of(a->path2, dir[1], sizeof dir[1]);
    for (int k = 0; k < 2; k++)
        if (obj[k] && sync_one(c, rootfd, obj[k], 0, skip) < 0)
            return -1;
    for (int k = 0; k < 1 + two; k++)
        if (sync_one(c, rootfd, dir[k], 1, skip) < 0)
            return -1;
    return 0;
}

static void describe_sync(struct crash_check *c, int skip, int whole, struct crash_result *r)
{
    size_t used = (size_t)snprintf(r->synced, sizeof r->synced, "%s%s",
                                   c->mode == CRASH_ANY ? "none" : whole ? "syncfs"
                                   : crash_mode_name(c->mode), skip ? "-skipped-by-test-hook" : "");
    for (int k = 0; k < c->nprom && used < sizeof r->synced; k++)
        used += (size_t)snprintf(r->synced + used, sizeof r->synced - used, "%c%s",
                                 k ? ',' : ':', c->prom[k].path);
}

static int open_live_listing(struct crash_check *c)
{
    if (c->live)
        fclose(c->live);
    free_text(&c->live_text, &c->live_len);
    c->live = open_memstream(&c->live_text, &c->live_len);
    return c->live ? 0 : cerr(c, "out of memory for the live listing");
}

/* A new symlink, FIFO, socket or device node cannot be fsynced (an O_PATH fd refuses a
 * symlink, fsync refuses the others with EINVAL). With a journal the fsync of its directory
 * commits its creation too; without one (ext2, ext4 below 2 MiB) that fsync writes the entry
 * but not the new inode, so the copy would hold a name for an unwritten inode (seen: a FIFO's
 * read gave "Structure needs cleaning"): there the only sync an application has for such an
 * inode, syncfs, is what the check makes. */
static int creates_unsyncable_inode(const struct op_args *a)
{
    return a->op == OP_symlink || (a->op == OP_mknod && (a->flags & S_IFMT) != S_IFREG);
}

static int syncfs_instead(const struct crash_check *c, const struct op_args *a)
{
    return c->mode == CRASH_FSYNC && !c->journal && creates_unsyncable_inode(a);
}

int crash_capture(struct crash_check *c, int rootfd, const struct op_args *a,
                  struct crash_result *r)
{
    int skip = (int)a->op == c->skip_op, whole = c->mode == CRASH_SYNCFS || syncfs_instead(c, a);
    memset(r, 0, sizeof *r);
    r->checked = 1;
    c->nprom = 0;
    c->pending = 0;
    c->data_op = crash_data_op(op_name(a->op));
    crash_oracle_names(a->path, a->op == OP_symlink ? NULL : a->path2, &c->named);
    if (mark(c, MARK_SYNCING) < 0)
        return -1;
    if (c->mode == CRASH_FSYNC && sync_touched(c, rootfd, a, skip || whole) < 0)
        return -1;
    if (whole && !skip && syncfs(rootfd) < 0)
        return cerr(c, "syncfs: %s", strerror(errno));
    if (mark(c, MARK_SYNCED) < 0)
        return -1;
    describe_sync(c, skip && c->mode != CRASH_ANY, whole, r);
    double t = now_seconds();
    if ((!c->recording && crash_image_copy(c->img) < 0) || open_live_listing(c) < 0)
        return -1;
    lap(&c->parts.copy, t);
    c->pending = 1;
    return 0;
}

FILE *crash_live_listing(struct crash_check *c)
{
    return c && c->pending ? c->live : NULL;
}

/* ---- listings: one line per entry, "PATH TYPE MODE NLINK UID GID SIZE CONTENTS XATTRS" ---- */

/* The listing's form of a path (tree_path_text); "" when out of memory. */
static void escape_path(const char *p, char *out, size_t len)
{
    struct buf b = { 0 };
    int rc = tree_path_text(&b, p);
    snprintf(out, len, "%.*s", rc || !b.p ? 0 : (int)b.len, b.p ? b.p : "");
    buf_free(&b);
}

static void finding(struct crash_result *r, const char *path, const char *live, const char *rec)
{
    snprintf(r->detail, sizeof r->detail, "%s: live '%.*s', recovered '%.*s'", path,
             live ? (int)listing_line_len(live) : 6, live ? live : "absent",
             rec ? (int)listing_line_len(rec) : 6, rec ? rec : "absent");
    r->kinds |= CRASH_LOST;
}

/* 1 when line l names a direct child of the directory whose children start with prefix. */
static int child_of(const char *l, const char *prefix, size_t plen)
{
    size_t n = strcspn(l, " \n");
    return n > plen && strncmp(l, prefix, plen) == 0 && !memchr(l + plen, '/', n - plen);
}

/* Every name directly in dir in one listing is in the other with the same type. */
static int names_kept(const char *from, const char *to, const char *dir, int lost,
                      struct crash_result *r)
{
    char prefix[METIS_PATH_MAX + 8], path[METIS_PATH_MAX + 8];
    snprintf(prefix, sizeof prefix, "%s/", strcmp(dir, "/") ? dir : "");
    size_t plen = strlen(prefix);
    for (const char *l = from && *from ? from : NULL; l; l = listing_next(l)) {
        if (!child_of(l, prefix, plen))
            continue;
        size_t n = strcspn(l, " ");
        snprintf(path, sizeof path, "%.*s", (int)n, l);
        const char *o = listing_find(to, path);
        if (o && o[n + 1] == l[n + 1])
            continue;
        snprintf(r->detail, sizeof r->detail, "%s: the name %s (%c) %s in the fsynced directory",
                 dir, path + plen, l[n + 1], !o ? (lost ? "is lost" : "appeared")
                 : "changed its type");
        r->kinds |= CRASH_LOST;
        return 0;
    }
    return 1;
}

/* fsync: each fsynced object's line, and each fsynced directory's names, as they were live. */
static void judge_fsync(struct crash_check *c, struct crash_result *r)
{
    char path[METIS_PATH_MAX * 4 + 8];
    for (int k = 0; k < c->nprom && !r->kinds; k++) {
        const struct promise *p = &c->prom[k];
        escape_path(p->path, path, sizeof path);
        const char *live = listing_find(c->live_text, path), *rec = listing_find(c->rec_text, path);
        if (!listing_same(live, rec))
            finding(r, p->path, live, rec);
        else if (p->dir && names_kept(c->live_text, c->rec_text, path, 1, r))
            names_kept(c->rec_text, c->live_text, path, 0, r);
    }
}

/* syncfs: the whole tree as it was live; the detail names the first entry that is not. */
static void judge_syncfs(struct crash_check *c, const unsigned char *digest, int dlen,
                         const unsigned char *rdigest, int rlen, struct crash_result *r)
{
    char path[METIS_PATH_MAX * 4 + 8];
    if (dlen == rlen && memcmp(digest, rdigest, (size_t)dlen) == 0)
        return;
    r->kinds |= CRASH_LOST;
    snprintf(r->detail, sizeof r->detail, "the recovered tree's digest differs");
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass ? c->rec_text : c->live_text, *to = pass ? c->live_text : c->rec_text;
        for (const char *l = from && *from ? from : NULL; l; l = listing_next(l)) {
            snprintf(path, sizeof path, "%.*s", (int)strcspn(l, " \n"), l);
            const char *o = listing_find(to, path);
            if (!listing_same(l, o)) {
                finding(r, path, pass ? o : l, pass ? l : o);
                return;
            }
        }
    }
}

/* ---- the verification ---- */

/* Reads the mounted copy back into rec_text; 0, or 1 with the reason in r (a finding). */
static int read_copy(struct crash_check *c, int rootfd, unsigned char *digest, int *dlen,
                     struct crash_result *r)
{
    free_text(&c->rec_text, &c->rec_len);
    FILE *f = open_memstream(&c->rec_text, &c->rec_len);
    if (!f)
        return cerr(c, "out of memory for the recovered listing");
    *dlen = tree_digest(rootfd, c->abs, digest, f, NULL);
    int err = errno;
    fclose(f);
    if (*dlen >= 0)
        return 0;
    snprintf(r->detail, sizeof r->detail, "reading the recovered tree: %s", strerror(err));
    r->kinds |= CRASH_MOUNT;
    return 1;
}

/* The copy mounted (journal recovered; read-only if ro), read back into rec_text and unmounted:
 * 0, 1 when it did not mount or read (r says why), 2 when its unmount stayed busy (detached
 * lazily: the copy goes unjudged, as a loaded host can keep a last close pending), -1 on
 * Metis's own failure. */
static int recover(struct crash_check *c, int ro, unsigned char *rdigest, int *rlen,
                   struct crash_result *r)
{
    int rootfd;
    double t = now_seconds();
    if (crash_image_store(c->img) < 0)
        return -1;
    t = lap(&c->parts.store, t);
    int rc = crash_image_mount(c->img, ro, &rootfd, r->detail, sizeof r->detail);
    t = lap(&c->parts.mount, t);
    if (rc != 0) {
        r->kinds |= rc > 0 ? CRASH_MOUNT : 0;
        return rc;
    }
    rc = read_copy(c, rootfd, rdigest, rlen, r);
    t = lap(&c->parts.read, t);
    int busy = crash_image_umount(c->img, rootfd) < 0;
    lap(&c->parts.umount, t);
    return busy && rc == 0 ? 2 : rc;
}

/* ---- the states of a recorded stream ---- */

/* What state st of s must hold: the untouched entries and nothing from nowhere; the operation
 * all there or not at all while its syncs had not begun (with crash = any, which syncs
 * nothing, in every state: the unmount's commit too); what they promised once returned. */
static void judge_state(struct crash_check *c, const struct stream *s, const struct crash_state *st,
                        const unsigned char *digest, int dlen, const unsigned char *rdigest,
                        int rlen, struct crash_result *r)
{
    int syncing = stream_marked_before(s, st->crash_at, MARK_SYNCING);
    int synced = stream_marked_before(s, st->crash_at, MARK_SYNCED);
    if (crash_oracle_kept(c->pre_text, c->live_text, c->rec_text, &c->named, r->detail,
                          sizeof r->detail) ||
        ((!syncing || c->mode == CRASH_ANY) &&
         crash_oracle_atomic(c->pre_text, c->live_text, c->rec_text, &c->named, c->data_op,
                             r->detail, sizeof r->detail)))
        r->kinds |= CRASH_LOST;
    else if (synced && c->mode == CRASH_FSYNC)
        judge_fsync(c, r);
    else if (synced && c->mode == CRASH_SYNCFS)
        judge_syncfs(c, digest, dlen, rdigest, rlen, r);
}

/* The state of the step recovered before whose image has this key, or NULL. */
static const struct recovered *recovered_as(const struct crash_check *c, const unsigned char *key)
{
    for (size_t k = 0; k < c->nseen; k++)
        if (memcmp(c->seen[k].key, key, CRASH_IMAGE_KEY) == 0)
            return &c->seen[k];
    return NULL;
}

static int remember(struct crash_check *c, const unsigned char *key, const unsigned char *digest,
                    int dlen)
{
    struct recovered *v = &c->seen[c->nseen];
    if (c->nseen == c->states_max || !(v->text = strdup(c->rec_text ? c->rec_text : "")))
        return cerr(c, "out of memory for a recovered listing");
    memcpy(v->key, key, CRASH_IMAGE_KEY);
    memcpy(v->digest, digest, (size_t)dlen);
    v->dlen = dlen;
    c->nseen++;
    return 0;
}

/* A state recovered cleanly whose checker still runs, in a thread, on the slot it was mounted
 * from, while the next state is recovered from the other slot (the checker and the mount then
 * use both cores). */
struct pending {
    int slot;                   /* -1: none */
    size_t k;                   /* the state's index */
    size_t seen;                /* its recovered listing: c->seen[seen] */
    unsigned distinct;          /* states_distinct once it was recovered */
};

/* Waits for the pending state's checker: 0 when it passed (or none ran), 1 when it refused the
 * state (r then holds that finding and its recovered tree is rec_text again, as if the step's
 * states had ended there), -1 on Metis's own failure. */
static int settle(struct crash_check *c, struct pending *p, struct crash_result *r)
{
    char why[sizeof r->detail];
    double ran = 0, t = now_seconds();
    if (p->slot < 0)
        return 0;
    int rc = crash_image_fsck_wait(c->img, p->slot, why, sizeof why, &ran);
    lap(&c->parts.fsck, t);
    c->parts.fsck_run += ran;
    p->slot = -1;
    if (rc <= 0)
        return rc;
    r->kinds = CRASH_FSCK;
    snprintf(r->detail, sizeof r->detail, "%s", why);
    r->states_checked = (unsigned)p->k + 1;
    r->states_distinct = p->distinct;
    free_text(&c->rec_text, &c->rec_len);
    if (!(c->rec_text = strdup(c->seen[p->seen].text)))
        return cerr(c, "out of memory for a recovered listing");
    c->rec_len = strlen(c->rec_text);
    return 1;
}

/* The built state k recovered (mounted writable, as at a reboot) and read back, the checker of
 * the state before it collected, its own started: 0 with its tree in rec_text and rdigest (or
 * its mount's finding in r), 1 when the state before failed its checker (settle), 2 when its
 * unmount stayed busy, -1 on Metis's own failure. */
static int recover_state(struct crash_check *c, size_t k, const unsigned char *key,
                         unsigned char *rdigest, int *rlen, struct pending *p,
                         struct crash_result *r)
{
    int rc = recover(c, 0, rdigest, rlen, r);
    if (rc < 0)
        return -1;
    r->states_distinct++;
    c->parts.distinct++;
    if (rc != 0 || r->kinds)
        return rc;
    if (remember(c, key, rdigest, *rlen) < 0 || (rc = settle(c, p, r)) != 0)
        return rc ? rc : -1;
    int slot = crash_image_fsck_start(c->img, c->checker);
    if (slot < 0)
        return -1;
    *p = (struct pending){ slot, k, c->nseen - 1, r->states_distinct };
    return 0;
}

/* State k (built, its image's key given) recovered, unless a state of the step with the same
 * image was (its recovered tree is then this one's: the same bytes mount alike), and judged;
 * its checker may still run (p). As recover_state: 0 (r holds k's finding, if any), 1, 2
 * (unjudged: the step's other states would meet the lazily detached mount) or -1. */
static int check_state(struct crash_check *c, const struct stream *s, size_t k,
                       const unsigned char *key, const unsigned char *digest, int dlen,
                       struct pending *p, struct crash_result *r)
{
    const struct crash_state *st = &c->st[k];
    unsigned char rdigest[TREE_MAX_DIGEST];
    int rlen = 0;
    const struct recovered *same = recovered_as(c, key);
    if (same) {
        free_text(&c->rec_text, &c->rec_len);
        if (!(c->rec_text = strdup(same->text)))
            return cerr(c, "out of memory for a recovered listing");
        c->rec_len = strlen(c->rec_text);
        memcpy(rdigest, same->digest, (size_t)same->dlen);
        rlen = same->dlen;
    } else {
        int rc = recover_state(c, k, key, rdigest, &rlen, p, r);
        if (rc != 0 || r->kinds)
            return rc;
    }
    if (st->kind == STATE_BASE) {
        free_text(&c->pre_text, &c->pre_len);
        if (!(c->pre_text = strdup(c->rec_text ? c->rec_text : "")))
            return cerr(c, "out of memory for the base listing");
    }
    double t = now_seconds();
    judge_state(c, s, st, digest, dlen, rdigest, rlen, r);
    lap(&c->parts.judge, t);
    c->parts.states++;
    return 0;
}

/* Which state a finding was made on, ahead of the finding. */
static void name_state(const struct stream *s, const struct crash_state *st, size_t k,
                       size_t n, struct crash_result *r)
{
    char detail[sizeof r->detail], but[32] = "";
    snprintf(detail, sizeof detail, "%s", r->detail);
    if (st->skip >= 0)
        snprintf(but, sizeof but, " but %ld", st->skip);
    snprintf(r->detail, sizeof r->detail, "state %zu of %zu (%s: the writes of records 0 to %zu "
             "of %zu%s, power cut before record %zu, syncs %s): %.400s", k + 1, n,
             crash_state_kind_name(st->kind), st->end, s->n, but, st->crash_at,
             stream_marked_before(s, st->crash_at, MARK_SYNCED) ? "returned"
             : stream_marked_before(s, st->crash_at, MARK_SYNCING) ? "begun" : "not begun", detail);
}

/* A step's recorded stream, its states (n of them) and the blocks its writes touched. */
struct step_stream {
    const struct stream *s;
    size_t n;
    const size_t *touched;
    size_t ntouched;
};

static void build(struct crash_check *c, const struct step_stream *ss, size_t k)
{
    stream_build(ss->s, &c->st[k], c->img, ss->touched, ss->ntouched);
}

/* The state of a finding named, and built again: crash_report saves its image. */
static void found_in(struct crash_check *c, const struct step_stream *ss, size_t k,
                     struct crash_result *r)
{
    name_state(ss->s, &c->st[k], k, ss->n, r);
    build(c, ss, k);
}

/* The step's states (at most states_max) checked in order, up to the first finding: a checker
 * that refuses a state comes first, ahead of what the states after it showed. */
static int check_states(struct crash_check *c, const struct step_stream *ss,
                        const unsigned char *digest, int dlen, struct crash_result *r)
{
    struct pending p = { .slot = -1 };
    unsigned char key[CRASH_IMAGE_KEY];
    int rc = 0;
    size_t k;
    for (k = 0; k < ss->n && k < c->states_max; k++) {
        double t = now_seconds();
        build(c, ss, k);
        if (crash_image_key(c->img, ss->touched, ss->ntouched, key) < 0) {
            rc = -1;
            break;
        }
        lap(&c->parts.build, t);
        if ((rc = check_state(c, ss->s, k, key, digest, dlen, &p, r)) != 0)
            break;
        r->states_checked++;
        if (r->kinds)
            break;
    }
    if (rc < 0) {
        crash_image_fsck_wait(c->img, p.slot, NULL, 0, NULL);
        return -1;
    }
    int last = rc == 1 ? 1 : settle(c, &p, r);
    if (last < 0)
        return -1;
    if (last == 1)
        found_in(c, ss, p.k, r);
    else if (r->kinds && rc == 0)
        found_in(c, ss, k, r);
    return 0;
}

static int verify_stream(struct crash_check *c, const unsigned char *digest, int dlen,
                         struct crash_result *r)
{
    char *log = NULL;
    size_t len = 0, *touched = NULL, ntouched = 0;
    struct stream s;
    int rc = 0;
    c->recording = 0;
    if (faultdev_read_log(c->dev, &log, &len) < 0 || faultdev_record(c->dev, "off") < 0) {
        free(log);
        return -1;
    }
    if (stream_parse(log, len, &s) < 0) {
        free(log);
        return cerr(c, "the recording device's block log (%zu bytes) is %s", len,
                    errno == ENOMEM ? "too large for memory" : "malformed");
    }
    size_t n = stream_states(&s, c->states == CRASH_STATES_STREAM, c->st, c->states_max);
    r->states = (unsigned)n;
    forget_recovered(c);
    if (stream_touched(&s, CRASH_IMAGE_BLOCK, &touched, &ntouched) < 0)
        rc = cerr(c, "out of memory for the blocks the step wrote");
    else
        rc = check_states(c, &(struct step_stream){ &s, n, touched, ntouched }, digest, dlen, r);
    forget_recovered(c);
    free(touched);
    stream_free(&s);
    free(log);
    return rc;
}

int crash_verify(struct crash_check *c, const unsigned char *digest, int dlen,
                 struct crash_result *r)
{
    unsigned char rdigest[TREE_MAX_DIGEST];
    int rlen = 0;
    if (!c || !c->pending)
        return 0;
    c->pending = 0;
    fclose(c->live);
    c->live = NULL;
    free_text(&c->rec_text, &c->rec_len);
    if (c->recording)
        return verify_stream(c, digest, dlen, r);
    /* Read-only, the copy's journal is recovered all the same and its unmount costs 0.4-0.6 ms
     * instead of 1.5-2.9 (ext4 4 MiB, crash = fsync, alternating 15-s runs); crash = any
     * mounts it writable, as a reboot would, so that the checker sees what recovery left. */
    int rc = recover(c, c->mode != CRASH_ANY, rdigest, &rlen, r);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    c->parts.states++;
    c->parts.distinct++;
    double t = now_seconds();
    if (c->mode == CRASH_FSYNC)
        judge_fsync(c, r);
    else if (c->mode == CRASH_SYNCFS)
        judge_syncfs(c, digest, dlen, rdigest, rlen, r);
    else if ((rc = crash_image_fsck(c->img, c->checker, r->detail, sizeof r->detail)) != 0)
        r->kinds |= rc > 0 ? CRASH_FSCK : 0;
    if (c->mode == CRASH_ANY)
        c->parts.fsck_run += lap(&c->parts.fsck, t) - t;
    else
        lap(&c->parts.judge, t);
    return rc < 0 ? -1 : 0;
}

/* ---- report ---- */

void crash_report(struct crash_check *c, const struct crash_result *r, FILE *f, const char *dir,
                  uint64_t seq)
{
    char path[1400];
    const char *name = c->b->cfg->name;
    fprintf(f, "\n## crash check of %s (crash = %s): %s\n", name, crash_mode_name(c->mode),
            crash_kind_name(r->kinds));
    fprintf(f, "synced: %s\n", r->synced);
    if (r->detail[0])
        fprintf(f, "finding: %s\n", r->detail);
    snprintf(path, sizeof path, "%s/%s-crash-%llu.img", dir, name, (unsigned long long)seq);
    if (crash_image_save(c->img, path) == 0)
        fprintf(f, "crash image (the device as the power cut left it, before recovery%s): %s\n",
                c->states != CRASH_STATES_COPY ? ": the state named in the finding" : "", path);
    else
        fprintf(f, "crash image not saved: %s\n", c->b->err);
    if (c->states != CRASH_STATES_COPY)
        fprintf(f, "\n### tree before the operation (the recorded stream's base)\n%s",
                c->pre_text ? c->pre_text : "(none)\n");
    fprintf(f, "\n### live tree after the sync\n%s", c->live_text ? c->live_text : "(none)\n");
    fprintf(f, "\n### tree of the recovered copy\n%s",
            r->kinds & CRASH_MOUNT && !c->rec_text ? "(none: it did not mount)\n"
            : c->rec_text ? c->rec_text : "(none)\n");
}
