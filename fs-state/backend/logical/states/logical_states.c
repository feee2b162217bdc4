/* Logical restore for a backend without snapshots: saved states are recorded trees; a restore applies their difference and checks the result's digest. */
#include "backend/logical/states/logical_states.h"
#include "backend/base/common.h"
#include "backend/base/testhook.h"
#include "backend/logical/states/equalize.h"
#include "backend/logical/trees/fstree.h"
#include "backend/logical/trees/logical_apply.h"
#include "backend/logical/trees/treedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

/* Fallbacks are rare and worth a look: the first few are told on stderr, all are counted. */
#define FALLBACKS_TOLD 3

struct saved {
    UT_hash_handle hh;
    uint64_t id;
    struct ft_tree *tree;
};

struct lrestore {
    struct ft_store st;
    struct saved *states;
    struct ft_tree *last;       /* the tree the mount held when last recorded */
    struct ft_tree *rechecked;  /* the tree the last lr_recheck held the mount to */
    int last_valid;             /* ... and still holds (no operation since) */
    unsigned ignore;            /* attributes the digest leaves out: their calls may fail */
    struct buf *journal;        /* not NULL: every restore's calls are recorded there */
    struct lr_counts n;
};

/* The digest the engine makes of this fs: its exclusions plus the fillers' directory. */
struct lrestore *lr_open(const struct backend *b)
{
    struct lrestore *lr = calloc(1, sizeof *lr);
    char exclude[600], msg[256];
    if (!lr)
        return NULL;
    snprintf(exclude, sizeof exclude, "%s%s%s", b->cfg->exclude, b->cfg->exclude[0] ? "," : "",
             FILLER_DIR);
    if (tree_parse_ignore(b->cfg->ignore, &lr->ignore, msg, sizeof msg) < 0)
        lr->ignore = 0;         /* config_load has refused it already */
    lr->ignore |= b->cfg->lacks_ignore;     /* as the engine's digest of this fs (step.c) */
    if (ft_store_init(&lr->st, "md5", exclude, lr->ignore) < 0) {
        lr_close(lr);
        return NULL;
    }
    return lr;
}

void lr_close(struct lrestore *lr)
{
    if (!lr)
        return;
    lr_discard(lr, UINT64_MAX);
    ft_unref(&lr->st, lr->last);
    ft_unref(&lr->st, lr->rechecked);
    ft_store_free(&lr->st);
    free(lr);
}

void lr_journal(struct lrestore *lr, struct buf *journal)
{
    lr->journal = journal;
}

void lr_begin(struct lrestore *lr)
{
    lr->last_valid = 0;
}

/* Records the mount below rootfd as lr->last, sharing what is unchanged with like (the tree
 * it most likely is: the last one, or the one a restore aims at). */
static int record(struct lrestore *lr, struct backend *b, int rootfd, const struct ft_tree *like,
                  const char *step)
{
    bk_test_kill_hook(b, step);
    struct ft_tree *t = ft_record(&lr->st, rootfd, like);
    /* Out of memory is Metis's; any other errno came from the mount. */
    b->tree_unreadable = !t && errno != ENOMEM;
    if (!t)
        return bk_err(b, step, "reading the tree of %s: %s", b->mnt, strerror(errno));
    ft_unref(&lr->st, lr->last);
    lr->last = t;
    lr->last_valid = 1;
    return 0;
}

int lr_read_back(struct lrestore *lr, struct backend *b, const struct tree_opts *o,
                 unsigned char *out, FILE *listing, struct tree_index *index)
{
    if (record(lr, b, b->rootfd, lr->last, "read-back") < 0)
        return -1;
    if (index && ft_index(lr->last, index) < 0)
        return bk_err(b, "read-back", "indexing the tree: %s", strerror(errno));
    if (!listing && ft_same_opts(o, &lr->st.opts)) {
        memcpy(out, lr->last->digest, (size_t)lr->last->dlen);
        return lr->last->dlen;
    }
    int n = ft_digest(&lr->st, lr->last, o, out, listing);
    return n < 0 ? bk_err(b, "read-back", "digesting the tree: %s", strerror(errno)) : n;
}

/* Records the mount through a root fd of its own (save and restore come outside begin/end). */
static int record_mount(struct lrestore *lr, struct backend *b, const char *step)
{
    int fd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return bk_err(b, step, "cannot open %s: %s", b->mnt, strerror(errno));
    int rc = record(lr, b, fd, lr->last, step);
    close(fd);
    return rc;
}

int lr_save(struct lrestore *lr, struct backend *b, uint64_t id)
{
    struct saved *s;
    if (!lr->last_valid && record_mount(lr, b, "save") < 0)
        return -1;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    if (!s) {
        if (!(s = calloc(1, sizeof *s)))
            return bk_err(b, "save", "out of memory");
        s->id = id;
        HASH_ADD(hh, lr->states, id, sizeof s->id, s);
    }
    ft_unref(&lr->st, s->tree);
    s->tree = ft_ref(lr->last);
    return 0;
}

static int reaches(const struct ft_tree *got, const struct ft_tree *want)
{
    return got->dlen == want->dlen && memcmp(got->digest, want->digest, (size_t)want->dlen) == 0 &&
           ft_same_links(got, want);
}

/* A mount that misses want may only look so through the kernel's attribute cache of a FUSE
 * daemon (another name of a linked file keeps its old size or link count for attr_timeout):
 * it is recorded once more past the cache. 1 when it reaches want, 0 not, -1 (b->err). */
static int reaches_past_cache(struct lrestore *lr, struct backend *b, int rootfd,
                              const struct ft_tree *want, const char *step)
{
    if (reaches(lr->last, want))
        return 1;
    tree_walk_fresh_attrs(1);
    int rc = record(lr, b, rootfd, want, step);
    tree_walk_fresh_attrs(0);
    return rc < 0 ? -1 : reaches(lr->last, want);
}

/* 1 if entry i of t is a regular file with another name in t. */
static int linked_file(const struct ft_tree *t, size_t i)
{
    return S_ISREG(t->ents[i]->mode) && (t->next[i] != -1 || t->leader[i] != (long)i);
}

/* A path-based FUSE daemon (libfuse's high-level API) gives each name of a hard-linked file
 * its own kernel inode and page cache, so data written through one name leaves the others'
 * cached pages stale when the size stays the same (a size change makes the kernel drop them).
 * Dropping the clean pages of every such name makes the next read ask the daemon, as on a
 * fresh mount. Returns how many names it dropped. */
static int drop_link_caches(int rootfd, const struct ft_tree *t)
{
    int n = 0;
    for (size_t i = 0; t && i < t->n; i++) {
        if (!linked_file(t, i))
            continue;
        /* The tree may be older than the mount (the read-back drops before recording): the
         * name may be a FIFO or a device now, which an open would block on or act upon. */
        struct stat st;
        if (fstatat(rootfd, t->ents[i]->path + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISREG(st.st_mode))
            continue;
        int fd = openat(rootfd, t->ents[i]->path + 1,
                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            n++;
        }
        close(fd);
    }
    return n;
}

int lr_drop_link_caches(struct lrestore *lr, int rootfd)
{
    return drop_link_caches(rootfd, lr->last);
}

/* Applies the difference and reads the result back; 0 if it is the saved state, else -1 with
 * why in msg (the mount is then in some state between the two). */
static int try_logical(struct lrestore *lr, struct backend *b, int fd, struct ft_tree *want,
                       char *msg, size_t msglen)
{
    struct lg_counts c = { 0, 0, 0, 0 };
    lr->n.logical++;
    int rc = logical_apply(fd, lr->last, want, lr->ignore, &c, lr->journal, msg, msglen);
    lr->n.removed += c.removed, lr->n.created += c.created;
    lr->n.rewritten += c.rewritten, lr->n.meta += c.meta;
    lr->last_valid = 0;         /* changed, whatever came of it */
    if (rc == 0)
        drop_link_caches(fd, want);    /* the data went through one name of each group */
    int got = rc < 0 ? -1 : record(lr, b, fd, want, "restore");
    if (got == 0)
        got = reaches_past_cache(lr, b, fd, want, "restore");
    if (got < 0) {
        if (rc == 0)
            snprintf(msg, msglen, "%.600s", b->err);
        return -1;
    }
    if (!got) {
        ft_first_difference(&lr->st, want, "the saved state has", lr->last, "the fs has", msg,
                            msglen);
        return -1;
    }
    lr->n.verified++;
    return 0;
}

/* After a verified restore the saved tree stands for the mount (its entries are shared). */
static void now_holds(struct lrestore *lr, struct ft_tree *t)
{
    ft_unref(&lr->st, lr->last);
    lr->last = ft_ref(t);
    lr->last_valid = 1;
}

/* The mount after a replay to want: recorded, and held to it (a replay is no more trusted than
 * a logical restore: what it ran on may not be what it was when the search went that way). */
static int replayed(struct lrestore *lr, struct backend *b, uint64_t id, struct ft_tree *want)
{
    char diff[700];
    lr->last_valid = 0;
    if (record_mount(lr, b, "restore: after replay") < 0)
        return -1;
    int fd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int got = fd < 0 ? 0 : reaches_past_cache(lr, b, fd, want, "restore: after replay");
    if (fd >= 0)
        close(fd);
    if (got < 0)
        return -1;
    if (got) {
        now_holds(lr, want);
        return 0;
    }
    ft_first_difference(&lr->st, want, "the saved state has", lr->last, "the fs has", diff,
                        sizeof diff);
    b->restore_unreachable = 1;
    return bk_err(b, "restore", "state %llu: neither logical restore nor replay reach it: %s",
                  (unsigned long long)id, diff);
}

static int fall_back(struct lrestore *lr, struct backend *b, uint64_t id, struct ft_tree *want,
                     lr_replay_fn replay, void *ctx, const char *why)
{
    if (++lr->n.fallbacks <= FALLBACKS_TOLD)
        fprintf(stderr, "metis: fs %s: logical restore of state %llu missed (%s); replaying "
                "instead\n", b->cfg->name, (unsigned long long)id, why);
    lr->last_valid = 0;
    if (replay(ctx, b, id) < 0)
        return -1;
    return replayed(lr, b, id, want);
}

int lr_replayed(struct lrestore *lr, struct backend *b, uint64_t id)
{
    struct saved *s;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    if (!s)
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    return replayed(lr, b, id, s->tree);
}

int lr_restore(struct lrestore *lr, struct backend *b, uint64_t id, lr_replay_fn replay,
               void *ctx)
{
    struct saved *s;
    char why[700];
    b->restore_unreachable = 0;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    if (!s)
        return bk_err(b, "restore", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    if (!lr->last_valid && record_mount(lr, b, "restore") < 0)
        return -1;
    /* Read back since its last change and already the saved state (an operation that failed
     * leaves it so): that read-back verified it. */
    if (reaches(lr->last, s->tree)) {
        lr->n.logical++, lr->n.verified++, lr->n.unchanged++;
        now_holds(lr, s->tree);
        return 0;
    }
    int fd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return bk_err(b, "restore", "cannot open %s: %s", b->mnt, strerror(errno));
    int rc = try_logical(lr, b, fd, s->tree, why, sizeof why);
    close(fd);
    if (rc == 0) {
        now_holds(lr, s->tree);
        return 0;
    }
    /* A daemon that died, or was killed because a call hung, is a target failure for the
     * engine to report and recover from: a replay would mount it afresh behind its back. */
    if (bk_connection_dead(b->mnt))
        return bk_err(b, "restore", "state %llu: the daemon is gone (%s)",
                      (unsigned long long)id, why);
    return fall_back(lr, b, id, s->tree, replay, ctx, why);
}

static void drop(struct lrestore *lr, struct saved *s)
{
    HASH_DEL(lr->states, s);
    ft_unref(&lr->st, s->tree);
    free(s);
}

void lr_discard(struct lrestore *lr, uint64_t id)
{
    struct saved *s, *tmp;
    if (id != UINT64_MAX) {
        HASH_FIND(hh, lr->states, &id, sizeof id, s);
        if (s)
            drop(lr, s);
        return;
    }
    HASH_ITER(hh, lr->states, s, tmp)
        drop(lr, s);
}

uint64_t lr_held_bytes(const struct lrestore *lr)
{
    return lr->st.bytes;
}

const struct lr_counts *lr_counts(const struct lrestore *lr)
{
    return &lr->n;
}

int lr_current(const struct lrestore *lr)
{
    return lr->last_valid;
}

int lr_holds(struct lrestore *lr, uint64_t id)
{
    struct saved *s;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    return s && lr->last_valid && reaches(lr->last, s->tree);
}

void lr_print_stats(const struct lrestore *lr, FILE *json)
{
    const struct lr_counts *n = &lr->n;
    fprintf(json, ",\"logical_restores\":%llu,\"verified\":%llu,\"fallbacks\":%llu,"
            "\"already_there\":%llu", (unsigned long long)n->logical,
            (unsigned long long)n->verified, (unsigned long long)n->fallbacks,
            (unsigned long long)n->unchanged);
    fprintf(json, ",\"logical_calls\":{\"removed\":%llu,\"created\":%llu,\"rewritten\":%llu,"
            "\"attributes\":%llu}", (unsigned long long)n->removed,
            (unsigned long long)n->created, (unsigned long long)n->rewritten,
            (unsigned long long)n->meta);
}

int lr_recheck(struct lrestore *lr, struct backend *b, char *msg, size_t msglen)
{
    return lr_recheck_at(lr, b, b->rootfd, "read-back after a remount", msg, msglen);
}

int lr_recheck_at(struct lrestore *lr, struct backend *b, int rootfd, const char *step,
                  char *msg, size_t msglen)
{
    struct ft_tree *live = lr->last ? ft_ref(lr->last) : NULL;
    if (!live)
        return bk_err(b, "read-back", "no tree recorded before the remount");
    ft_unref(&lr->st, lr->rechecked);
    lr->rechecked = live;
    if (record(lr, b, rootfd, live, step) < 0)
        return -1;
    int same = reaches(lr->last, live);
    if (!same)
        ft_first_difference(&lr->st, live, "live", lr->last, "after the remount", msg, msglen);
    return same;
}

int lr_has(struct lrestore *lr, uint64_t id)
{
    struct saved *s;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    return s != NULL;
}

int lr_export(struct lrestore *lr, struct backend *b, uint64_t id, const char *path)
{
    struct saved *s;
    HASH_FIND(hh, lr->states, &id, sizeof id, s);
    if (!s)
        return bk_err(b, "export", "state %llu was never saved (or was discarded)",
                      (unsigned long long)id);
    return td_export(b, &lr->st, s->tree, id, path);
}

int lr_import(struct lrestore *lr, struct backend *b, const char *path, uint64_t id)
{
    char why[700];
    struct ft_tree *t = td_import(b, &lr->st, path);
    if (!t)
        return -1;
    int fd = -1, rc = -1;
    if ((lr->last_valid || record_mount(lr, b, "import") == 0) &&
        (fd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        bk_err(b, "import", "cannot open %s: %s", b->mnt, strerror(errno));
    else if (fd >= 0 && try_logical(lr, b, fd, t, why, sizeof why) < 0)
        bk_err(b, "import", "%s: %s", path, why);
    else if (fd >= 0)
        rc = 0;
    if (fd >= 0)
        close(fd);
    if (rc == 0) {
        now_holds(lr, t);
        rc = lr_save(lr, b, id);
    }
    ft_unref(&lr->st, t);
    return rc;
}

int lr_recheck_listings(struct lrestore *lr, char **before, char **again)
{
    *before = lr->rechecked && lr->last ? ft_listing(&lr->st, lr->rechecked) : NULL;
    *again = *before ? ft_listing(&lr->st, lr->last) : NULL;
    if (*again)
        return 0;
    free(*before);
    *before = NULL;
    return -1;
}
