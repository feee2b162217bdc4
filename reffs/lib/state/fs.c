/* RefFS life cycle (create/destroy, statfs) and the stat records it hands out. */
#include <stdio.h>
#include "lib/core/internal.h"

void fill_stat(const struct rinode *ip, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = ip->ino;
    st->st_mode = ip->mode;
    st->st_nlink = reported_nlink(ip);
    st->st_uid = ip->uid;
    st->st_gid = ip->gid;
    st->st_rdev = ip->rdev;
    st->st_size = ip->size;
    st->st_blksize = REFFS_BLOCK_SIZE;
    st->st_blocks = ino_blocks(ip) * (REFFS_BLOCK_SIZE / 512);
    st->st_atim = ip->atime;
    st->st_mtim = ip->mtime;
    st->st_ctim = ip->ctime;
}

void fill_entry(struct reffs *fs, const struct rinode *ip, struct reffs_entry *out)
{
    if (!out)
        return;
    pin_get(fs, ip->ino)->lookups++;
    fill_stat(ip, &out->st);
    out->generation = ip->gen;
}

static int make_root(struct reffs *fs)
{
    fs->live.tabsz = 16;
    fs->live.tab = xcalloc(fs->live.tabsz, sizeof *fs->live.tab);
    struct rinode *root = xcalloc(1, sizeof *root);
    root->refs = 1;
    root->ino = REFFS_ROOT_INO;
    root->gen = ++fs->gen_counter;
    root->mode = S_IFDIR | 0755;
    root->nlink = 2;
    root->parent = REFFS_ROOT_INO;
    root->size = 2 * REFFS_DIRENT_SIZE;
    root->dir = rdir_new();
    time_now(&root->atime);
    root->mtime = root->ctime = root->atime;
    fs->live.tab[REFFS_ROOT_INO] = root;
    fs->live.ninodes = 1;
    fs->free_hint = REFFS_ROOT_INO + 1;
    return 0;
}

struct reffs *reffs_create(const struct reffs_limits *limits)
{
    struct reffs_limits lim = { 0 };
    if (limits)
        lim = *limits;
    unsigned long long mut;
    if (reffs_mutation_mask(lim.mutation, &mut) < 0) {
        errno = EINVAL;
        return NULL;
    }
#ifndef REFFS_MUTANT
    if (mut != 0) {
        errno = ENOTSUP;   /* only libreffs-mutant can plant mutations */
        return NULL;
    }
#endif
    struct reffs *fs = xcalloc(1, sizeof *fs);
    pthread_mutex_init(&fs->lock, NULL);
    fs->capacity = lim.capacity ? lim.capacity : REFFS_DEFAULT_CAPACITY;
    fs->max_inodes = lim.inodes ? lim.inodes : REFFS_DEFAULT_INODES;
    fs->mutation = mut;
    make_root(fs);
    if ((mut >> MUT_ROOT_KEEPS_0700) & 1ULL)   /* mut is 0 outside the mutant build */
        fs->live.tab[REFFS_ROOT_INO]->mode = S_IFDIR | 0700;
    if ((mut >> MUT_ROOT_CHOWN_ENOSYS) & 1ULL)
        fs->live.tab[REFFS_ROOT_INO]->uid = fs->live.tab[REFFS_ROOT_INO]->gid = 1;
    return fs;
}

void reffs_destroy(struct reffs *fs)
{
    if (!fs)
        return;
    struct rsnap *s, *tmp;
    HASH_ITER(hh, fs->snaps, s, tmp) {
        HASH_DEL(fs->snaps, s);
        state_drop(&s->st);
        free(s);
    }
    state_drop(&fs->live);
    free(fs->pins);
    pthread_mutex_destroy(&fs->lock);
    free(fs);
}

int reffs_statfs(struct reffs *fs, struct statvfs *out)
{
    fs_lock(fs);
    memset(out, 0, sizeof *out);
    uint64_t used = fs->live.used;
    uint64_t free_bytes = used < fs->capacity ? fs->capacity - used : 0;
    out->f_bsize = REFFS_BLOCK_SIZE;
    out->f_frsize = REFFS_BLOCK_SIZE;
    out->f_blocks = fs->capacity / REFFS_BLOCK_SIZE;
    out->f_bfree = free_bytes / REFFS_BLOCK_SIZE;
    out->f_bavail = out->f_bfree;
    out->f_files = fs->max_inodes;
    out->f_ffree = fs->live.ninodes < fs->max_inodes ? fs->max_inodes - fs->live.ninodes : 0;
    out->f_favail = out->f_ffree;
    out->f_namemax = REFFS_NAME_MAX;
    fs_unlock(fs);
    return 0;
}
