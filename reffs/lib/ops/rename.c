/* rename(2) with RENAME_NOREPLACE and RENAME_EXCHANGE, in the order Linux checks things. */
#include <stdio.h>
#include "lib/core/internal.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

struct rename_args {
    reffs_ino p1, p2;           /* source and target parents */
    const char *n1, *n2;
    unsigned flags;
    struct rinode *s, *t;       /* source and target inodes (t may be NULL) */
};

/* Is dir (or one of its ancestors) the inode anc? */
static int in_subtree(struct reffs *fs, reffs_ino dir, reffs_ino anc)
{
    for (uint64_t steps = 0; steps <= fs->live.ninodes; steps++) {
        if (dir == anc)
            return 1;
        struct rinode *dp = ino_get(fs, dir);
        if (!dp || dir == REFFS_ROOT_INO || dp->parent == dir)
            return 0;
        dir = dp->parent;
    }
    return 0;
}

static int rename_parent(struct reffs *fs, reffs_ino ino, const char *name, struct rinode **out)
{
    struct rinode *dp = ino_get(fs, ino);
    if (!dp)
        return -ENOENT;
    if (!S_ISDIR(dp->mode))
        return -ENOTDIR;
    int r = name_check(name);
    if (r)
        return r;
    if (is_dot_or_dotdot(name))
        return -EBUSY;
    *out = dp;
    return 0;
}

/* Everything that can fail, before anything changes. Returns 1 for a no-op success. */
static int rename_check(struct reffs *fs, struct rename_args *a)
{
    unsigned both = RENAME_NOREPLACE | RENAME_EXCHANGE;
    if ((a->flags & ~both) || (a->flags & both) == both)
        return -EINVAL;
    struct rinode *d1, *d2;
    int r = rename_parent(fs, a->p1, a->n1, &d1);
    if (r || (r = rename_parent(fs, a->p2, a->n2, &d2)))
        return r;
    struct rdent *e1 = dir_find(d1, a->n1), *e2 = dir_find(d2, a->n2);
    if (!e1 || (!e2 && (a->flags & RENAME_EXCHANGE)))
        return -ENOENT;
    if (e2 && (a->flags & RENAME_NOREPLACE))
        return -EEXIST;
    if (e2 && !(a->flags & RENAME_EXCHANGE) && e2->ino != e1->ino && mutated(MUT_RENAME_NO_REPLACE))
        return -EEXIST;
    a->s = ino_get(fs, e1->ino);
    a->t = e2 ? ino_get(fs, e2->ino) : NULL;
    if (S_ISDIR(a->s->mode) && in_subtree(fs, a->p2, a->s->ino))
        return -EINVAL;
    if (a->t && (a->flags & RENAME_EXCHANGE) && S_ISDIR(a->t->mode) && in_subtree(fs, a->p1, a->t->ino))
        return -EINVAL;
    if (a->t == a->s)
        return 1;
    if (a->t && !(a->flags & RENAME_EXCHANGE)) {
        if (S_ISDIR(a->s->mode) && !S_ISDIR(a->t->mode))
            return -ENOTDIR;
        if (!S_ISDIR(a->s->mode) && S_ISDIR(a->t->mode))
            return -EISDIR;
        if (S_ISDIR(a->t->mode) && a->t->dir->n > 0 && !mutated(MUT_RENAME_OVER_NONEMPTY))
            return mutated(MUT_RENAME_NONEMPTY_EEXIST) ? -EEXIST : -ENOTEMPTY;
    }
    if (S_ISDIR(a->s->mode) && a->p1 != a->p2 && !(a->t && S_ISDIR(a->t->mode))
        && d2->nlink >= REFFS_LINK_MAX)
        return -EMLINK;
    return 0;
}

/* A directory moving from one parent to another takes its ".." link along. */
static void move_dotdot(struct reffs *fs, struct rinode *dir, reffs_ino from, reffs_ino to)
{
    if (!S_ISDIR(dir->mode) || from == to)
        return;
    dir->parent = to;
    if (mutated(MUT_RENAME_DIR_NLINK))
        return;
    ino_get(fs, from)->nlink--;
    ino_get(fs, to)->nlink++;
}

static void rename_exchange(struct reffs *fs, struct rename_args *a, const struct timespec *now)
{
    struct rinode *s = ino_mut(fs, a->s->ino), *t = ino_mut(fs, a->t->ino);
    dir_set(ino_get(fs, a->p1), a->n1, t->ino);
    dir_set(ino_get(fs, a->p2), a->n2, s->ino);
    move_dotdot(fs, s, a->p1, a->p2);
    move_dotdot(fs, t, a->p2, a->p1);
    s->ctime = t->ctime = *now;
}

static void rename_move(struct reffs *fs, struct rename_args *a, const struct timespec *now)
{
    struct rinode *s = ino_mut(fs, a->s->ino);
    struct rinode *d2 = ino_get(fs, a->p2);
    dir_del(ino_get(fs, a->p1), a->n1);
    if (a->t) {
        struct rinode *t = ino_mut(fs, a->t->ino);
        dir_set(d2, a->n2, s->ino);
        if (S_ISDIR(t->mode)) {
            t->nlink = 0;
            d2->nlink--;
        } else if (!mutated(MUT_RENAME_TARGET_NLINK)) {
            t->nlink--;
        }
        t->ctime = *now;
    } else {
        dir_add(d2, a->n2, s->ino);
    }
    move_dotdot(fs, s, a->p1, a->p2);
    s->ctime = *now;
    if (a->t)
        ino_maybe_free(fs, a->t->ino);
}

static int do_rename(struct reffs *fs, struct rename_args *a)
{
    int r = rename_check(fs, a);
    if (r)
        return r < 0 ? r : 0;
    struct timespec now;
    time_now(&now);
    struct rinode *d1 = ino_mut(fs, a->p1), *d2 = ino_mut(fs, a->p2);
    d1->mtime = d1->ctime = d2->mtime = d2->ctime = now;
    if (a->flags & RENAME_EXCHANGE)
        rename_exchange(fs, a, &now);
    else
        rename_move(fs, a, &now);
    return 0;
}

int reffs_rename(struct reffs *fs, reffs_ino parent, const char *name,
                 reffs_ino newparent, const char *newname, unsigned flags)
{
    struct rename_args a = { .p1 = parent, .p2 = newparent, .n1 = name, .n2 = newname, .flags = flags };
    fs_lock(fs);
    int r = do_rename(fs, &a);
    fs_unlock(fs);
    return r;
}
