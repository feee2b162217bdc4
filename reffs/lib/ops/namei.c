/* Name-space operations: lookup, create (mknod/mkdir/symlink/link), unlink, rmdir, readlink, readdir. */
#include "lib/core/internal.h"

/* The directory an operation works in: -ENOENT if missing, -ENOTDIR if not a directory. */
static int get_dir(struct reffs *fs, reffs_ino ino, struct rinode **out)
{
    struct rinode *dp = ino_get(fs, ino);
    if (!dp)
        return -ENOENT;
    if (!S_ISDIR(dp->mode))
        return -ENOTDIR;
    *out = dp;
    return 0;
}

/* Common checks before a name is created in parent. */
static int can_create(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct rinode *dp;
    int r = get_dir(fs, parent, &dp);
    if (r)
        return r;
    if ((r = name_check(name)))
        return r;
    if (is_dot_or_dotdot(name) || dir_find(dp, name))
        return -EEXIST;
    if (dp->nlink == 0)
        return -ENOENT;   /* the directory was removed while open */
    return 0;
}

static void touch_mc(struct rinode *ip, const struct timespec *now)
{
    ip->mtime = ip->ctime = *now;
}

/* Links a freshly allocated inode under name; sgid directories hand down their group. */
static void link_new(struct reffs *fs, reffs_ino parent, const char *name, struct rinode *ip)
{
    struct rinode *dp = ino_mut(fs, parent);
    if (dp->mode & S_ISGID) {
        if (!mutated(MUT_SETGID_DIR_GID))
            ip->gid = dp->gid;
        if (S_ISDIR(ip->mode) && !mutated(MUT_SETGID_SUBDIR_MODE))
            ip->mode |= S_ISGID;
    }
    dir_add(dp, name, ip->ino);
    touch_mc(dp, &ip->ctime);
}

static int do_lookup(struct reffs *fs, reffs_ino parent, const char *name, struct reffs_entry *out)
{
    struct rinode *dp;
    int r = get_dir(fs, parent, &dp);
    if (r || (r = name_check(name)))
        return r;
    reffs_ino ino;
    if (!strcmp(name, "."))
        ino = parent;
    else if (!strcmp(name, ".."))
        ino = dp->parent;
    else {
        struct rdent *e = dir_find(dp, name);
        if (!e)
            return mutated(MUT_LOOKUP_EACCES) && dp->dir->n > 0 ? -EACCES : -ENOENT;
        ino = e->ino;
    }
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;   /* ".." of a removed directory whose parent is gone too */
    fill_entry(fs, ip, out);
    return 0;
}

int reffs_lookup(struct reffs *fs, reffs_ino parent, const char *name, struct reffs_entry *out)
{
    fs_lock(fs);
    int r = do_lookup(fs, parent, name, out);
    fs_unlock(fs);
    return r;
}

static int mknod_type_check(mode_t mode)
{
    switch (mode & S_IFMT) {
    case 0: case S_IFREG: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
        return 0;
    case S_IFDIR:
        return -EPERM;
    default:
        return -EINVAL;
    }
}

static int do_mknod(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode, dev_t rdev,
                    uid_t uid, gid_t gid, struct reffs_entry *out)
{
    int r = can_create(fs, parent, name);
    if (r || (r = mknod_type_check(mode)))
        return r;
    mode_t type = (mode & S_IFMT) ? (mode & S_IFMT) : S_IFREG;
    mode_t perm = mode & (mutated(MUT_MKNOD_DROP_SUID) ? 07777 & ~S_ISUID : 07777);
    if (mutated(MUT_MKNOD_SPECIAL_MODE) && (S_ISFIFO(type) || S_ISSOCK(type)))
        perm &= ~(mode_t)(S_IWGRP | S_IWOTH);
    if (mutated(MUT_NEW_MODE_OX))
        perm ^= S_IXOTH;
    struct rinode *ip;
    if ((r = ino_alloc(fs, type | perm, uid, gid, &ip)))
        return r;
    if (S_ISCHR(type) || S_ISBLK(type))
        ip->rdev = rdev;
    ip->nlink = 1;
    link_new(fs, parent, name, ip);
    fill_entry(fs, ip, out);
    return 0;
}

int reffs_mknod(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode, dev_t rdev,
                uid_t uid, gid_t gid, struct reffs_entry *out)
{
    fs_lock(fs);
    int r = do_mknod(fs, parent, name, mode, rdev, uid, gid, out);
    fs_unlock(fs);
    return r;
}

static int do_mkdir(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode,
                    uid_t uid, gid_t gid, struct reffs_entry *out)
{
    int r = can_create(fs, parent, name);
    if (r)
        return r;
    if (ino_get(fs, parent)->nlink >= REFFS_LINK_MAX)
        return -EMLINK;
    struct rinode *ip;
    /* Linux's vfs_mkdir drops setuid/setgid from the mode argument. */
    mode_t perm = (mode & (0777 | S_ISVTX)) ^ (mutated(MUT_NEW_MODE_OX) ? S_IXOTH : 0);
    if ((r = ino_alloc(fs, S_IFDIR | perm, uid, gid, &ip)))
        return r;
    ip->nlink = 2;
    ip->parent = parent;
    ip->dir = rdir_new();
    ip->size = 2 * REFFS_DIRENT_SIZE;
    link_new(fs, parent, name, ip);
    if (!(mutated(MUT_MKDIR_PARENT_NLINK) && parent != REFFS_ROOT_INO))
        ino_get(fs, parent)->nlink++;
    fill_entry(fs, ip, out);
    return 0;
}

int reffs_mkdir(struct reffs *fs, reffs_ino parent, const char *name, mode_t mode,
                uid_t uid, gid_t gid, struct reffs_entry *out)
{
    fs_lock(fs);
    int r = do_mkdir(fs, parent, name, mode, uid, gid, out);
    fs_unlock(fs);
    return r;
}

static int do_symlink(struct reffs *fs, reffs_ino parent, const char *name, const char *target,
                      uid_t uid, gid_t gid, struct reffs_entry *out)
{
    int r = can_create(fs, parent, name);
    if (r)
        return r;
    if (!target || !*target)
        return -ENOENT;
    size_t len = strnlen(target, REFFS_SYMLINK_MAX + 1);
    if (len > (mutated(MUT_SYMLINK_TARGET_MAX) ? 255 : REFFS_SYMLINK_MAX))
        return -ENAMETOOLONG;
    if (fs->live.used + len > fs->capacity && !mutated(MUT_SYMLINK_ENOSPC_IGNORED))
        return -ENOSPC;
    struct rinode *ip;
    if ((r = ino_alloc(fs, S_IFLNK | 0777, uid, gid, &ip)))
        return r;
    ip->target = xstrdup(target);
    ip->size = len;
    ip->nlink = 1;
    fs->live.used += len;
    link_new(fs, parent, name, ip);
    fill_entry(fs, ip, out);
    return 0;
}

int reffs_symlink(struct reffs *fs, reffs_ino parent, const char *name, const char *target,
                  uid_t uid, gid_t gid, struct reffs_entry *out)
{
    fs_lock(fs);
    int r = do_symlink(fs, parent, name, target, uid, gid, out);
    fs_unlock(fs);
    return r;
}

static int do_link(struct reffs *fs, reffs_ino ino, reffs_ino newparent, const char *newname,
                   struct reffs_entry *out)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    int r = can_create(fs, newparent, newname);
    if (r)
        return r;
    if (S_ISDIR(ip->mode))
        return -EPERM;
    if (mutated(MUT_LINK_SPECIAL_EPERM) && (S_ISFIFO(ip->mode) || S_ISSOCK(ip->mode)))
        return -EPERM;
    if (ip->nlink == 0)
        return -ENOENT;
    if (ip->nlink >= REFFS_LINK_MAX)
        return -EMLINK;
    ip = ino_mut(fs, ino);
    struct timespec now;
    time_now(&now);
    ip->nlink += 1 + mutated(MUT_LINK_NLINK_TWICE);
    ip->ctime = now;
    struct rinode *dp = ino_mut(fs, newparent);
    dir_add(dp, newname, ino);
    touch_mc(dp, &now);
    fill_entry(fs, ip, out);
    return 0;
}

int reffs_link(struct reffs *fs, reffs_ino ino, reffs_ino newparent, const char *newname,
               struct reffs_entry *out)
{
    fs_lock(fs);
    int r = do_link(fs, ino, newparent, newname, out);
    fs_unlock(fs);
    return r;
}

/* Finds the victim of unlink/rmdir. */
static int find_victim(struct reffs *fs, reffs_ino parent, const char *name, struct rinode **out)
{
    struct rinode *dp;
    int r = get_dir(fs, parent, &dp);
    if (r || (r = name_check(name)))
        return r;
    struct rdent *e = dir_find(dp, name);
    if (!e)
        return -ENOENT;
    *out = ino_get(fs, e->ino);
    return 0;
}

/* Removes the entry and drops one link of its inode (all of a directory's). */
static void remove_entry(struct reffs *fs, reffs_ino parent, const char *name, reffs_ino ino)
{
    struct timespec now;
    time_now(&now);
    struct rinode *dp = ino_mut(fs, parent);
    dir_del(dp, name);
    touch_mc(dp, &now);
    struct rinode *ip = ino_mut(fs, ino);
    if (S_ISDIR(ip->mode)) {
        if (!mutated(MUT_RMDIR_PARENT_NLINK))
            dp->nlink--;
        ip->nlink = 0;
    } else if (!(mutated(MUT_UNLINK_NLINK) && ip->nlink > 1)) {
        ip->nlink -= 1 + (mutated(MUT_UNLINK_NLINK_MANY) && ip->nlink >= 3);
    }
    ip->ctime = now;
    ino_maybe_free(fs, ino);
}

static int do_unlink(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct rinode *ip;
    if (name && is_dot_or_dotdot(name) && ino_get(fs, parent))
        return S_ISDIR(ino_get(fs, parent)->mode) ? -EISDIR : -ENOTDIR;
    int r = find_victim(fs, parent, name, &ip);
    if (r)
        return r;
    if (S_ISDIR(ip->mode))
        return -EISDIR;
    remove_entry(fs, parent, name, ip->ino);
    return 0;
}

int reffs_unlink(struct reffs *fs, reffs_ino parent, const char *name)
{
    fs_lock(fs);
    int r = do_unlink(fs, parent, name);
    fs_unlock(fs);
    return r;
}

static int do_rmdir(struct reffs *fs, reffs_ino parent, const char *name)
{
    struct rinode *ip;
    if (name && is_dot_or_dotdot(name) && ino_get(fs, parent)) {
        if (!S_ISDIR(ino_get(fs, parent)->mode))
            return -ENOTDIR;
        return name[1] ? -ENOTEMPTY : -EINVAL;
    }
    int r = find_victim(fs, parent, name, &ip);
    if (r)
        return r;
    if (!S_ISDIR(ip->mode))
        return -ENOTDIR;
    if (ip->dir->n > 0 && !mutated(MUT_RMDIR_NONEMPTY))
        return mutated(MUT_RMDIR_NONEMPTY_EEXIST) ? -EEXIST : -ENOTEMPTY;
    remove_entry(fs, parent, name, ip->ino);
    return 0;
}

int reffs_rmdir(struct reffs *fs, reffs_ino parent, const char *name)
{
    fs_lock(fs);
    int r = do_rmdir(fs, parent, name);
    fs_unlock(fs);
    return r;
}

static int do_readlink(struct reffs *fs, reffs_ino ino, char *buf, size_t size)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    if (!S_ISLNK(ip->mode))
        return -EINVAL;
    size_t len = strlen(ip->target);
    if (size)
        memcpy(buf, ip->target, len < size ? len : size);
    return (int)len;
}

int reffs_readlink(struct reffs *fs, reffs_ino ino, char *buf, size_t size)
{
    fs_lock(fs);
    int r = do_readlink(fs, ino, buf, size);
    fs_unlock(fs);
    return r;
}

static int emit(struct reffs *fs, reffs_ino ino, const char *name, off_t next,
                reffs_filldir_fn fn, void *ctx)
{
    struct stat st;
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return 0;   /* ".." of a removed directory whose parent is gone too */
    fill_stat(ip, &st);
    return fn(ctx, name, &st, next);
}

static int do_readdir(struct reffs *fs, reffs_ino ino, off_t off, reffs_filldir_fn fn, void *ctx)
{
    struct rinode *dp;
    int r = get_dir(fs, ino, &dp);
    if (r)
        return r;
    if (off < 0)
        return -EINVAL;
    if (off < 1 && emit(fs, ino, ".", 1, fn, ctx))
        return 0;
    if (off < 2 && emit(fs, dp->parent, "..", 2, fn, ctx))
        return 0;
    int skip = mutated(MUT_READDIR_RESUME_SKIP) && off > 2;
    for (struct rdent *e = dp->dir->byname; e; e = e->hh.next) {
        if ((off_t)e->cookie < off)
            continue;
        if (skip) {
            skip = 0;
            continue;
        }
        if (emit(fs, e->ino, e->name, (off_t)e->cookie + 1, fn, ctx))
            break;
    }
    return 0;
}

int reffs_readdir(struct reffs *fs, reffs_ino ino, off_t off, reffs_filldir_fn fn, void *ctx)
{
    fs_lock(fs);
    int r = do_readdir(fs, ino, off, fn, ctx);
    fs_unlock(fs);
    return r;
}
