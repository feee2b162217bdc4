/* Checkpoints of a {dir}-backed FUSE fs: its backing directories kept every remount_every steps it runs, put back for a replay, exported and imported. */
#include "backend/logical/states/dirckpt.h"
#include "backend/base/common.h"
#include "backend/logical/trees/treedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

/* A saved state: its parent on its search path, and its directories if it is a checkpoint. */
struct mark {
    UT_hash_handle hh;
    uint64_t id, parent;
    int has_parent;
    struct ft_tree *dirs;
};

struct dirckpt {
    struct ft_store st;         /* nothing excluded: every file of the directories is state */
    char root[1024];
    uint64_t every;
    struct mark *marks;
    struct ft_tree *pending;    /* taken at the last read-back; the save that follows names it */
    struct ft_tree *last;       /* the newest recording, which the next one shares entries with */
    uint64_t live;              /* the state last saved, restored or imported */
    int live_known;
    int stepped;                /* an operation may have run since */
    int counted;                /* the state read back counted as a step already */
    /* Steps the fs ran since its last mount of kept directories: the history a replay of a
     * class must redo (runlog.c), whatever path the restores between them took. */
    uint64_t since;
    uint64_t taken, put_back, imported;
};

struct dirckpt *dck_open(const char *root, uint64_t every)
{
    struct dirckpt *d = calloc(1, sizeof *d);
    if (!d || ft_store_init(&d->st, "md5", "", 0) < 0) {
        free(d);
        return NULL;
    }
    snprintf(d->root, sizeof d->root, "%s", root);
    d->every = every;
    return d;
}

static struct mark *find(struct dirckpt *d, uint64_t id)
{
    struct mark *m;
    HASH_FIND(hh, d->marks, &id, sizeof id, m);
    return m;
}

static void drop_mark(struct dirckpt *d, struct mark *m)
{
    HASH_DEL(d->marks, m);
    ft_unref(&d->st, m->dirs);
    free(m);
}

static void drop_pending(struct dirckpt *d)
{
    ft_unref(&d->st, d->pending);
    d->pending = NULL;
}

void dck_discard(struct dirckpt *d, uint64_t id)
{
    struct mark *m, *tmp;
    if (!d)
        return;
    if (id != UINT64_MAX) {
        if ((m = find(d, id)))
            drop_mark(d, m);
        return;
    }
    HASH_ITER(hh, d->marks, m, tmp)
        drop_mark(d, m);
}

void dck_close(struct dirckpt *d)
{
    if (!d)
        return;
    dck_discard(d, UINT64_MAX);
    drop_pending(d);
    ft_unref(&d->st, d->last);
    ft_store_free(&d->st);
    free(d);
}

void dck_fresh(struct dirckpt *d)
{
    d->since = 0;
}

void dck_begin(struct dirckpt *d)
{
    drop_pending(d);
    d->stepped = 1;
}

/* The directories as they are now (the daemon unmounted), shared with the newest recording. */
static struct ft_tree *record_dirs(struct dirckpt *d, struct backend *b, const char *step)
{
    int fd = open(d->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct ft_tree *t = fd < 0 ? NULL : ft_record(&d->st, fd, d->last);
    if (fd >= 0)
        close(fd);
    if (!t) {
        bk_err(b, step, "recording the directories in %s: %s", d->root, strerror(errno));
        return NULL;
    }
    ft_unref(&d->st, d->last);
    d->last = ft_ref(t);
    return t;
}

/* Unmount, keep the directories, mount again: the tree read then must be the live one, else
 * the daemon showed what it had not written (or the kernel showed stale caches). */
static int checkpoint(struct dirckpt *d, struct backend *b, struct lrestore *lr,
                      const struct dck_mount *mnt)
{
    char diff[700];
    d->taken++;
    if (mnt->unmount(b) < 0)
        return -1;
    drop_pending(d);
    if (!(d->pending = record_dirs(d, b, "read-back: checkpoint"))) {
        b->own_failure = 1;     /* Metis's recording, not the target */
        return -1;
    }
    if (mnt->mount(b) < 0)
        return -1;
    int same = lr_recheck(lr, b, diff, sizeof diff);
    if (same > 0)
        return 0;
    drop_pending(d);
    if (same == 0)
        return bk_err(b, "read-back", "remount check: the tree after a remount is not the "
                      "live one: %s", diff);
    return -1;
}

int dck_after_read_back(struct dirckpt *d, struct backend *b, struct lrestore *lr,
                        const struct dck_mount *m)
{
    /* Only the first read-back of a new state counts a step: a report reads a saved state
     * again for its listings, which is no step down the search path. */
    if ((d->live_known && !d->stepped) || d->counted)
        return 0;
    /* Only the read-back that follows an operation (b->read_step, set by the step core) is a
     * step: a listing of the state just saved (the engine's judge of a known delta, a report)
     * begins and reads back like one, and a checkpoint there would fail outside any step. */
    if (!b->read_step)
        return 0;
    d->counted = 1;
    if (!d->every || ++d->since < d->every)
        return 0;
    d->since = 0;
    return checkpoint(d, b, lr, m);
}

static void set_live(struct dirckpt *d, uint64_t id)
{
    d->live = id;
    d->live_known = 1;
    d->stepped = 0;
    d->counted = 0;
}

int dck_saved(struct dirckpt *d, struct backend *b, uint64_t id)
{
    struct mark *m = find(d, id);
    int kept = d->pending != NULL;
    /* A step run again on this fs saves its state once more: it keeps its place on the path. */
    if (!m) {
        if (!(m = calloc(1, sizeof *m)))
            return bk_err(b, "save", "out of memory");
        m->id = id;
        m->parent = d->live;
        m->has_parent = d->live_known;
        HASH_ADD(hh, d->marks, id, sizeof m->id, m);
    }
    if (d->pending) {
        ft_unref(&d->st, m->dirs);
        m->dirs = d->pending;
        d->pending = NULL;
    }
    set_live(d, id);
    return kept;
}

void dck_restored(struct dirckpt *d, uint64_t id)
{
    drop_pending(d);
    set_live(d, id);
}

uint64_t dck_nearest(struct dirckpt *d, uint64_t id)
{
    struct mark *m = find(d, id);
    for (size_t hops = 0; m && !m->dirs && hops < 100000000; hops++)
        m = m->has_parent && m->parent != m->id ? find(d, m->parent) : NULL;
    return m && m->dirs ? m->id : BACKEND_REPLAY_INITIAL;
}

int dck_has(struct dirckpt *d, uint64_t id)
{
    struct mark *m = d ? find(d, id) : NULL;
    return m && m->dirs;
}

/* The directories of t into the tmpfs at root, which the caller made empty. */
static int fill_root(struct dirckpt *d, struct backend *b, const struct ft_tree *t,
                     const char *step)
{
    char why[700];
    int fd = open(d->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return bk_err(b, step, "cannot open %s: %s", d->root, strerror(errno));
    int rc = td_fill(&d->st, fd, t, why, sizeof why);
    close(fd);
    return rc < 0 ? bk_err(b, step, "putting the directories back in %s: %s", d->root, why) : 0;
}

int dck_put_back(struct dirckpt *d, struct backend *b, uint64_t key)
{
    struct mark *m = find(d, key);
    if (!m || !m->dirs)
        return bk_err(b, "restore", "state %llu has no checkpoint", (unsigned long long)key);
    d->put_back++;
    return fill_root(d, b, m->dirs, "restore");
}

int dck_export(struct dirckpt *d, struct backend *b, uint64_t id, const char *dir, char *out,
               size_t outlen)
{
    struct mark *m = find(d, id);
    if (!m || !m->dirs)
        return bk_err(b, "export", "no checkpoint of state %llu: its directories are kept "
                      "every remount_every steps only", (unsigned long long)id);
    if (snprintf(out, outlen, "%s/%s-%llu.dirs", dir, b->cfg->name, (unsigned long long)id) >=
        (int)outlen)
        return bk_err(b, "export", "path too long under %s", dir);
    return td_export(b, &d->st, m->dirs, id, out);
}

int dck_import(struct dirckpt *d, struct backend *b, const char *path, uint64_t id)
{
    struct ft_tree *t = td_import(b, &d->st, path);
    if (!t)
        return -1;
    if (fill_root(d, b, t, "import") < 0) {
        ft_unref(&d->st, t);
        return -1;
    }
    dck_discard(d, id);
    struct mark *m = calloc(1, sizeof *m);
    if (!m) {
        ft_unref(&d->st, t);
        return bk_err(b, "import", "out of memory");
    }
    m->id = id;
    m->dirs = t;
    HASH_ADD(hh, d->marks, id, sizeof m->id, m);
    drop_pending(d);
    set_live(d, id);
    d->imported++;
    return 0;
}

uint64_t dck_held_bytes(const struct dirckpt *d)
{
    return d ? d->st.bytes : 0;
}

void dck_stats(const struct dirckpt *d, FILE *json)
{
    fprintf(json, ",\"dir_checkpoints\":{\"every\":%llu,\"taken\":%llu,\"put_back\":%llu,"
            "\"imported\":%llu}", (unsigned long long)d->every, (unsigned long long)d->taken,
            (unsigned long long)d->put_back, (unsigned long long)d->imported);
}
