/* Snapshots: whole states sharing inodes and blocks copy-on-write; save, restore, discard, stats. */
#include "lib/core/internal.h"

void state_clone(const struct rstate *src, struct rstate *dst)
{
    dst->tabsz = src->tabsz;
    dst->tab = xmalloc(src->tabsz * sizeof *dst->tab);
    memcpy(dst->tab, src->tab, src->tabsz * sizeof *dst->tab);
    for (size_t i = 0; i < dst->tabsz; i++)
        if (dst->tab[i])
            dst->tab[i]->refs++;
    dst->used = src->used;
    dst->ninodes = src->ninodes;
}

void state_drop(struct rstate *st)
{
    for (size_t i = 0; i < st->tabsz; i++)
        ino_put(st->tab[i]);
    free(st->tab);
    memset(st, 0, sizeof *st);
}

static struct rsnap *snap_find(struct reffs *fs, uint64_t key)
{
    struct rsnap *s = NULL;
    HASH_FIND(hh, fs->snaps, &key, sizeof key, s);
    return s;
}

/* Puts st (taken over) into the pool under key, replacing what was there. */
void snap_put_in_pool(struct reffs *fs, uint64_t key, struct rstate *st)
{
    struct rsnap *s = snap_find(fs, key);
    if (s) {
        state_drop(&s->st);
    } else {
        s = xcalloc(1, sizeof *s);
        s->key = key;
        HASH_ADD(hh, fs->snaps, key, sizeof s->key, s);
    }
    s->st = *st;
}

int reffs_snapshot_save(struct reffs *fs, uint64_t key)
{
    fs_lock(fs);
    struct rstate st;
    state_clone(&fs->live, &st);
    snap_put_in_pool(fs, key, &st);
    fs_unlock(fs);
    return 0;
}

/* ---- invalidation: what differs between the old live state and the new one ---- */

static const struct rinode *st_get(const struct rstate *st, reffs_ino ino)
{
    return ino < st->tabsz ? st->tab[ino] : NULL;
}

/* An entry is unchanged if it names the same inode number with the same generation. */
static int same_target(const struct rstate *a, const struct rstate *b, reffs_ino ia, reffs_ino ib)
{
    const struct rinode *x = st_get(a, ia), *y = st_get(b, ib);
    return ia == ib && x && y && x->gen == y->gen;
}

/* Tells about every entry of dir a that dir b lacks or points elsewhere. */
static void inval_entries_missing(const struct rstate *sa, const struct rinode *a,
                                  const struct rstate *sb, const struct rinode *b,
                                  const struct reffs_inval *inval)
{
    for (const struct rdent *e = a->dir->byname; e; e = e->hh.next) {
        const struct rdent *f = NULL;
        if (b && S_ISDIR(b->mode))
            HASH_FIND(hh, b->dir->byname, e->name, strlen(e->name), f);
        if (!f || !same_target(sa, sb, e->ino, f->ino))
            inval->entry(inval->ctx, a->ino, e->name);
    }
}

static void inval_dir(const struct rstate *old, const struct rinode *a,
                      const struct rstate *new, const struct rinode *b,
                      const struct reffs_inval *inval)
{
    if (!inval->entry)
        return;
    if (a && S_ISDIR(a->mode))
        inval_entries_missing(old, a, new, b, inval);
    /* Entries only in the new directory (same-named ones were told about above). */
    if (b && S_ISDIR(b->mode))
        for (const struct rdent *e = b->dir->byname; e; e = e->hh.next) {
            const struct rdent *f = NULL;
            if (a && S_ISDIR(a->mode))
                HASH_FIND(hh, a->dir->byname, e->name, strlen(e->name), f);
            if (!f)
                inval->entry(inval->ctx, b->ino, e->name);
        }
}

/* The same inode (number and generation) whose owner the restore changed. */
static int owner_changed(const struct rinode *a, const struct rinode *b)
{
    return a && b && a != b && a->gen == b->gen && (a->uid != b->uid || a->gid != b->gid);
}

/* An inode invalidation only marks the kernel's attributes stale: the VFS reads an inode's
 * owner without refreshing it where it checks a sticky directory (may_create_in_sticky), so an
 * open(O_CREAT) of a name whose owner a restore changed failed with EACCES against the old
 * owner (seen in a soak: EACCES on RefFS, ENXIO on ext4, for a socket in a sticky o+w
 * directory). Dropping the names of such an inode makes the next lookup fetch its attributes. */
static void inval_names_of_changed(const struct rstate *old, const struct rstate *new,
                                   const struct reffs_inval *inval)
{
    for (size_t i = 1; i < new->tabsz; i++) {
        const struct rinode *d = new->tab[i];
        if (!d || !S_ISDIR(d->mode) || !d->dir)
            continue;
        for (const struct rdent *e = d->dir->byname; e; e = e->hh.next)
            if (owner_changed(st_get(old, e->ino), st_get(new, e->ino)))
                inval->entry(inval->ctx, d->ino, e->name);
    }
}

static void inval_diff(const struct rstate *old, const struct rstate *new,
                       const struct reffs_inval *inval)
{
    if (!inval)
        return;
    size_t n = old->tabsz > new->tabsz ? old->tabsz : new->tabsz;
    int owners = 0;
    for (size_t i = 1; i < n; i++) {
        const struct rinode *a = st_get(old, i), *b = st_get(new, i);
        if (a == b)
            continue;   /* shared objects are never changed in place */
        if (inval->inode)
            inval->inode(inval->ctx, i);
        inval_dir(old, a, new, b, inval);
        owners |= owner_changed(a, b);
    }
    if (owners && inval->entry)
        inval_names_of_changed(old, new, inval);
}

/* Makes nst (taken over) the live state and tells inval what changed. */
void state_install(struct reffs *fs, struct rstate *nst, const struct reffs_inval *inval)
{
    struct rstate old = fs->live;
    fs->live = *nst;
    fs->free_hint = REFFS_ROOT_INO + 1;
    /* Inodes that were open-but-unlinked (or held for the kernel) when saved are orphans
     * unless open now: no call is under way across a restore, and the kernel may know their
     * numbers as other inodes by now. */
    for (size_t i = 0; i < fs->live.tabsz; i++)
        if (fs->live.tab[i] && fs->live.tab[i]->nlink == 0)
            ino_drop_orphan(fs, i);
    for (size_t i = 0; i < fs->live.tabsz; i++)
        if (fs->live.tab[i] && fs->gen_counter < fs->live.tab[i]->gen)
            fs->gen_counter = fs->live.tab[i]->gen;
    inval_diff(&old, &fs->live, inval);
    state_drop(&old);
}

int reffs_snapshot_restore(struct reffs *fs, uint64_t key, const struct reffs_inval *inval)
{
    fs_lock(fs);
    struct rsnap *s = snap_find(fs, key);
    if (s) {
        struct rstate nst;
        state_clone(&s->st, &nst);
        state_install(fs, &nst, inval);
    }
    fs_unlock(fs);
    return s ? 0 : -ENOENT;
}

int reffs_snapshot_discard(struct reffs *fs, uint64_t key)
{
    fs_lock(fs);
    struct rsnap *s = snap_find(fs, key);
    if (s) {
        HASH_DEL(fs->snaps, s);
        state_drop(&s->st);
        free(s);
    }
    fs_unlock(fs);
    return s ? 0 : -ENOENT;
}

/* ---- stats: bytes of objects reachable from the pool but not from the live state ---- */

/* Returns the bytes of ip and its parts not yet marked with epoch, and marks them. */
static uint64_t mark_inode(struct rinode *ip, uint64_t epoch)
{
    uint64_t bytes = 0;
    if (ip->mark != epoch) {
        ip->mark = epoch;
        bytes += sizeof *ip + (ip->target ? strlen(ip->target) + 1 : 0);
    }
    struct rextmap *m = ip->data;
    if (m && m->mark != epoch) {
        m->mark = epoch;
        bytes += sizeof *m + m->cap * sizeof *m->v;
    }
    for (size_t i = 0; m && i < m->n; i++)
        if (m->v[i].blk->mark != epoch) {
            m->v[i].blk->mark = epoch;
            bytes += sizeof *m->v[i].blk;
        }
    if (ip->dir && ip->dir->mark != epoch) {
        ip->dir->mark = epoch;
        bytes += sizeof *ip->dir;
        for (const struct rdent *e = ip->dir->byname; e; e = e->hh.next)
            bytes += sizeof *e + strlen(e->name) + 1;
    }
    if (ip->xattrs && ip->xattrs->mark != epoch) {
        ip->xattrs->mark = epoch;
        bytes += sizeof *ip->xattrs + ip->xattrs->cap * sizeof(struct rxattr)
                 + xattrs_charge(ip->xattrs) + ip->xattrs->n;
    }
    return bytes;
}

static uint64_t mark_state(const struct rstate *st, uint64_t epoch)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < st->tabsz; i++)
        if (st->tab[i])
            bytes += mark_inode(st->tab[i], epoch);
    return bytes;
}

int reffs_snapshot_stats(struct reffs *fs, struct reffs_snap_stats *out)
{
    fs_lock(fs);
    uint64_t epoch = ++fs->mark_epoch;
    mark_state(&fs->live, epoch);
    out->count = HASH_COUNT(fs->snaps);
    out->bytes = 0;
    for (struct rsnap *s = fs->snaps; s; s = s->hh.next)
        out->bytes += sizeof *s + s->st.tabsz * sizeof *s->st.tab + mark_state(&s->st, epoch);
    fs_unlock(fs);
    return 0;
}
