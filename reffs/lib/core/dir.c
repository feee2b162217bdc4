/* Directory entry tables: name lookup, insertion-ordered listing, copy-on-write sharing. */
#include "internal.h"

struct rdir *rdir_new(void)
{
    struct rdir *d = xcalloc(1, sizeof *d);
    d->refs = 1;
    d->next_cookie = 3;   /* positions 0..2 are the start, "." and ".." */
    return d;
}

static void rdir_free_entries(struct rdir *d)
{
    struct rdent *e, *tmp;
    HASH_ITER(hh, d->byname, e, tmp) {
        HASH_DEL(d->byname, e);
        free(e->name);
        free(e);
    }
}

void rdir_put(struct rdir *d)
{
    if (!d || --d->refs)
        return;
    rdir_free_entries(d);
    free(d);
}

void dir_add_cookie(struct rdir *d, const char *name, reffs_ino ino, uint64_t cookie)
{
    struct rdent *e = xcalloc(1, sizeof *e);
    e->name = xstrdup(name);
    e->ino = ino;
    e->cookie = cookie;
    HASH_ADD_KEYPTR(hh, d->byname, e->name, strlen(e->name), e);
    d->n++;
    if (cookie >= d->next_cookie)
        d->next_cookie = cookie + 1;
}

static struct rdir *rdir_clone(const struct rdir *d)
{
    struct rdir *c = rdir_new();
    for (const struct rdent *e = d->byname; e; e = e->hh.next)
        dir_add_cookie(c, e->name, e->ino, e->cookie);
    c->next_cookie = d->next_cookie;
    return c;
}

/* The entry table of a writable directory inode, made private to it. */
struct rdir *rdir_mut(struct rinode *ip)
{
    if (ip->dir->refs > 1) {
        struct rdir *c = rdir_clone(ip->dir);
        ip->dir->refs--;
        ip->dir = c;
    }
    return ip->dir;
}

struct rdent *dir_find(const struct rinode *dp, const char *name)
{
    struct rdent *e = NULL;
    HASH_FIND(hh, dp->dir->byname, name, strlen(name), e);
    return e;
}

void dir_add(struct rinode *dp, const char *name, reffs_ino ino)
{
    struct rdir *d = rdir_mut(dp);
    dir_add_cookie(d, name, ino, d->next_cookie);
    dp->size += REFFS_DIRENT_SIZE;
}

void dir_del(struct rinode *dp, const char *name)
{
    struct rdir *d = rdir_mut(dp);
    struct rdent *e = dir_find(dp, name);
    if (!e)
        return;
    HASH_DEL(d->byname, e);
    free(e->name);
    free(e);
    d->n--;
    dp->size -= REFFS_DIRENT_SIZE;
}

void dir_set(struct rinode *dp, const char *name, reffs_ino ino)
{
    rdir_mut(dp);
    struct rdent *e = dir_find(dp, name);
    if (e)
        e->ino = ino;
}
