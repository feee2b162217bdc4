/* Inodes: allocation, copy-on-write sharing with snapshots, accounting and freeing. */
#include "internal.h"

struct rblock *blk_new(void)
{
    struct rblock *b = xcalloc(1, sizeof *b);
    b->refs = 1;
    return b;
}

void blk_put(struct rblock *b)
{
    if (b && --b->refs == 0)
        free(b);
}

void extmap_put(struct rextmap *m)
{
    if (!m || --m->refs)
        return;
    for (size_t i = 0; i < m->n; i++)
        blk_put(m->v[i].blk);
    free(m->v);
    free(m);
}

static struct rextmap *extmap_clone(const struct rextmap *m)
{
    struct rextmap *c = xcalloc(1, sizeof *c);
    c->refs = 1;
    c->n = c->cap = m->n;
    c->v = xmalloc(m->n * sizeof *c->v);
    if (m->n)
        memcpy(c->v, m->v, m->n * sizeof *c->v);
    for (size_t i = 0; i < c->n; i++)
        c->v[i].blk->refs++;
    return c;
}

/* The block map of a writable inode, itself made private to that inode. */
struct rextmap *extmap_mut(struct rinode *ip)
{
    if (!ip->data) {
        ip->data = xcalloc(1, sizeof *ip->data);
        ip->data->refs = 1;
    } else if (ip->data->refs > 1) {
        struct rextmap *c = extmap_clone(ip->data);
        ip->data->refs--;
        ip->data = c;
    }
    return ip->data;
}

uint64_t ino_blocks(const struct rinode *ip)
{
    return ip->data ? ip->data->n : 0;
}

/* Bytes this inode charges against the capacity. */
uint64_t ino_charge(const struct rinode *ip)
{
    uint64_t c = ino_blocks(ip) * REFFS_BLOCK_SIZE + xattrs_charge(ip->xattrs);
    if (ip->target)
        c += strlen(ip->target);
    return c;
}

struct rinode *ino_get(struct reffs *fs, reffs_ino ino)
{
    if (ino >= fs->live.tabsz)
        return NULL;
    return fs->live.tab[ino];
}

static struct rinode *ino_clone(const struct rinode *ip)
{
    struct rinode *c = xmalloc(sizeof *c);
    *c = *ip;
    c->refs = 1;
    c->mark = 0;
    if (c->data)
        c->data->refs++;
    if (c->dir)
        c->dir->refs++;
    if (c->xattrs)
        c->xattrs->refs++;
    if (c->target)
        c->target = xstrdup(c->target);
    return c;
}

/* The live inode, made private to the live state so it may be changed in place. */
struct rinode *ino_mut(struct reffs *fs, reffs_ino ino)
{
    struct rinode *ip = ino_get(fs, ino);
    if (ip && ip->refs > 1) {
        struct rinode *c = ino_clone(ip);
        ip->refs--;
        fs->live.tab[ino] = c;
        ip = c;
    }
    return ip;
}

void ino_put(struct rinode *ip)
{
    if (!ip || --ip->refs)
        return;
    extmap_put(ip->data);
    rdir_put(ip->dir);
    rxattrs_put(ip->xattrs);
    free(ip->target);
    free(ip);
}

/* The kernel may still hold a freed inode under its number: if that number came back
 * with another inode, the kernel's next GETATTR on it would see a foreign inode (EIO
 * when the type differs). So a number is reused only once the kernel has forgotten it. */
static int number_in_use(const struct reffs *fs, size_t i)
{
    return (i < fs->live.tabsz && fs->live.tab[i]) ||
           (i < fs->npins && fs->pins[i].lookups > 0);
}

static reffs_ino ino_pick_number(struct reffs *fs)
{
    struct rstate *st = &fs->live;
    size_t i = fs->free_hint > REFFS_ROOT_INO ? fs->free_hint : REFFS_ROOT_INO + 1;
    while (number_in_use(fs, i))
        i++;
    if (i >= st->tabsz) {
        size_t nsz = st->tabsz * 2 > i + 1 ? st->tabsz * 2 : i + 1;
        st->tab = xrealloc(st->tab, nsz * sizeof *st->tab);
        memset(st->tab + st->tabsz, 0, (nsz - st->tabsz) * sizeof *st->tab);
        st->tabsz = nsz;
    }
    fs->free_hint = i + 1;
    return i;
}

/* MUT_RACE_INODE_LIMIT: the window a daemon opens when it lets its lock go between a check
 * and the change the check allows; another thread's request fits in (the kernel locks only
 * the directory a name is made in, so creations in two directories reach the daemon at once). */
static void race_window(struct reffs *fs)
{
    const struct timespec window = { 0, 2 * 1000 * 1000 };
    fs_unlock(fs);
    nanosleep(&window, NULL);
    fs_lock(fs);
}

/* A new live inode with nlink 0; the caller links it. -ENOSPC past the inode limit. */
int ino_alloc(struct reffs *fs, mode_t mode, uid_t uid, gid_t gid, struct rinode **out)
{
    if (fs->live.ninodes >= fs->max_inodes && !mutated(MUT_INODE_LIMIT_IGNORED))
        return -ENOSPC;
    if (mutated(MUT_RACE_INODE_LIMIT))
        race_window(fs);
    struct rinode *ip = xcalloc(1, sizeof *ip);
    ip->refs = 1;
    ip->ino = ino_pick_number(fs);
    ip->gen = ++fs->gen_counter;
    ip->mode = mode;
    ip->uid = uid;
    ip->gid = gid;
    time_now(&ip->atime);
    ip->mtime = ip->ctime = ip->atime;
    fs->live.tab[ip->ino] = ip;
    fs->live.ninodes++;
    *out = ip;
    return 0;
}

struct rpin *pin_get(struct reffs *fs, reffs_ino ino)
{
    if (ino >= fs->npins) {
        size_t n = ino + 1 > fs->npins * 2 ? ino + 1 : fs->npins * 2;
        fs->pins = xrealloc(fs->pins, n * sizeof *fs->pins);
        memset(fs->pins + fs->npins, 0, (n - fs->npins) * sizeof *fs->pins);
        fs->npins = n;
    }
    return &fs->pins[ino];
}

static void uncharge(struct reffs *fs, uint64_t bytes)
{
    fs->live.used -= bytes < fs->live.used ? bytes : fs->live.used;
}

/* The kernel still holds the inode's number (a lookup it has not forgotten): an inode it
 * may act on yet, in a call that found the name before the last link went (a concurrent
 * one). Linux keeps such an orphan usable until its last reference; so does RefFS, but free
 * space and inodes count it as gone at once, since FORGET comes whenever the kernel likes. */
static int held_by_kernel(const struct reffs *fs, reffs_ino ino)
{
    return ino < fs->npins && fs->pins[ino].lookups > 0 && !mutated(MUT_UNLINK_OPEN_FREES);
}

static void hold(struct reffs *fs, reffs_ino ino)
{
    struct rinode *ip = ino_mut(fs, ino);
    if (ip->held)
        return;
    ip->held = 1;
    ip->held_charge = ino_charge(ip);
    if (!mutated(MUT_UNLINK_LEAKS_SPACE))
        uncharge(fs, ip->held_charge);
    fs->live.ninodes--;
}

static void free_now(struct reffs *fs, reffs_ino ino, struct rinode *ip)
{
    uint64_t charge = ino_charge(ip);
    if (!ip->held) {
        if (!mutated(MUT_UNLINK_LEAKS_SPACE))
            uncharge(fs, charge);
        fs->live.ninodes--;
    } else if (charge > ip->held_charge) {     /* counted as gone already: what changed since */
        uncharge(fs, charge - ip->held_charge);
    } else {
        fs->live.used += ip->held_charge - charge;
    }
    fs->live.tab[ino] = NULL;
    if (ino < fs->free_hint)
        fs->free_hint = ino;
    ino_put(ip);
}

/* An unlinked inode nobody has open: 1 (Linux keeps an open one until its last close). */
static int unused_orphan(const struct reffs *fs, reffs_ino ino, const struct rinode *ip)
{
    if (!ip || ip->nlink > 0 || ino == REFFS_ROOT_INO)
        return 0;
    return !(ino < fs->npins && fs->pins[ino].opens > 0 && !mutated(MUT_UNLINK_OPEN_FREES));
}

/* Frees a live inode that no name, no open file and no kernel reference refer to any more. */
void ino_maybe_free(struct reffs *fs, reffs_ino ino)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!unused_orphan(fs, ino, ip))
        return;
    if (held_by_kernel(fs, ino))
        hold(fs, ino);
    else
        free_now(fs, ino, ip);
}

void ino_drop_orphan(struct reffs *fs, reffs_ino ino)
{
    struct rinode *ip = ino_get(fs, ino);
    if (unused_orphan(fs, ino, ip))
        free_now(fs, ino, ip);
}

int reffs_open(struct reffs *fs, reffs_ino ino)
{
    fs_lock(fs);
    int r = -ENOENT;
    if (ino_get(fs, ino)) {
        pin_get(fs, ino)->opens++;
        r = 0;
    }
    fs_unlock(fs);
    return r;
}

int reffs_release(struct reffs *fs, reffs_ino ino)
{
    fs_lock(fs);
    if (ino < fs->npins && fs->pins[ino].opens > 0)
        fs->pins[ino].opens--;
    ino_maybe_free(fs, ino);
    fs_unlock(fs);
    return 0;
}

/* Lookup counts keep only the number, not the inode: FUSE forgets asynchronously, and
 * free space and free inodes must not depend on when the kernel gets round to it. */
void reffs_forget(struct reffs *fs, reffs_ino ino, uint64_t nlookup)
{
    fs_lock(fs);
    if (ino < fs->npins) {
        struct rpin *p = &fs->pins[ino];
        p->lookups -= nlookup < p->lookups ? nlookup : p->lookups;
        if (p->lookups == 0 && ino < fs->free_hint && ino > REFFS_ROOT_INO)
            fs->free_hint = ino;
    }
    ino_maybe_free(fs, ino);
    fs_unlock(fs);
}
