/* Attributes: getattr, setattr (chmod, chown, truncate, utimens), access. */
#include <unistd.h>
#include "lib/core/internal.h"

int reffs_getattr(struct reffs *fs, reffs_ino ino, struct stat *out)
{
    fs_lock(fs);
    struct rinode *ip = ino_get(fs, ino);
    if (ip)
        fill_stat(ip, out);
    fs_unlock(fs);
    return ip ? 0 : -ENOENT;
}

static int setattr_check(const struct rinode *ip, const struct reffs_setattr *sa)
{
    if (!ip)
        return -ENOENT;
    if (!(sa->valid & REFFS_SET_SIZE))
        return 0;
    if (S_ISDIR(ip->mode))
        return -EISDIR;
    if (!S_ISREG(ip->mode))
        return -EINVAL;
    if (sa->size < 0)
        return -EINVAL;
    if (sa->size > REFFS_MAX_FILE_SIZE)
        return -EFBIG;
    return 0;
}

static void set_time(struct timespec *dst, const struct timespec *src, const struct timespec *now)
{
    if (src->tv_nsec == UTIME_OMIT)
        return;
    *dst = src->tv_nsec == UTIME_NOW ? *now : *src;
}

static void set_owner(struct rinode *ip, const struct reffs_setattr *sa)
{
    unsigned uid_bits = REFFS_SET_UID | (mutated(MUT_CHGRP_CLOBBERS_UID) ? REFFS_SET_GID : 0);
    if ((sa->valid & uid_bits) && sa->uid != (uid_t)-1)
        ip->uid = sa->uid;
    if (!(sa->valid & REFFS_SET_UID) && (sa->valid & REFFS_SET_GID) && sa->gid != (gid_t)-1 &&
        sa->gid != ip->gid && mutated(MUT_CHOWN_GID_UID0))
        ip->uid = 0;
    if (!(sa->valid & REFFS_SET_UID) && (sa->valid & REFFS_SET_GID) &&
        mutated(MUT_CHGRP_STORES_MINUS_ONE))
        ip->uid = (uid_t)-1;
    if ((sa->valid & REFFS_SET_GID) && sa->gid != (gid_t)-1)
        ip->gid = sa->gid;
    /* Linux's chown kills setuid, and setgid when group-exec makes it a real setgid, on
     * non-directories; with SET_MODE the kernel already sent the mode it wants. */
    if ((sa->valid & (REFFS_SET_UID | REFFS_SET_GID)) && !(sa->valid & REFFS_SET_MODE)
        && !S_ISDIR(ip->mode)) {
        ip->mode &= ~S_ISUID;
        if (ip->mode & S_IXGRP)
            ip->mode &= ~S_ISGID;
    }
}

/* Whether fallocate KEEP_SIZE left blocks past the one holding EOF. */
static int blocks_past_eof(const struct rinode *ip)
{
    uint64_t keep = ((uint64_t)ip->size + REFFS_BLOCK_SIZE - 1) / REFFS_BLOCK_SIZE;
    return ip->data && ip->data->n && ip->data->v[ip->data->n - 1].idx >= keep;
}

static int do_setattr(struct reffs *fs, reffs_ino ino, const struct reffs_setattr *sa)
{
    int r = setattr_check(ino_get(fs, ino), sa);
    if (r)
        return r;
    if (mutated(MUT_ROOT_CHOWN_ENOSYS) && (sa->valid & (REFFS_SET_UID | REFFS_SET_GID)))
        return -ENOSYS;
    struct rinode *ip = ino_mut(fs, ino);
    struct timespec now;
    time_now(&now);
    int changed = (sa->valid & (REFFS_SET_MODE | REFFS_SET_UID | REFFS_SET_GID)) != 0;
    if ((sa->valid & REFFS_SET_MODE) && !(mutated(MUT_ROOT_KEEPS_0700) && ip->ino == REFFS_ROOT_INO)) {
        mode_t perm = sa->mode & 07777;
        if (mutated(MUT_CHMOD_DROP_STICKY))
            perm &= ~S_ISVTX;
        if (mutated(MUT_CHMOD_DROP_SETGID))
            perm &= ~S_ISGID;
        ip->mode = (ip->mode & S_IFMT) | perm;
    }
    set_owner(ip, sa);
    if ((sa->valid & REFFS_SET_SIZE) && sa->size != ip->size) {
        if (sa->size < ip->size)
            data_shrink(fs, ip, sa->size);
        else if (mutated(MUT_EXTEND_TRUNC_GARBAGE))
            mut_soil_extend(fs, ip, sa->size);
        ip->size = sa->size;
        ip->mtime = now;
        changed = 1;
    } else if ((sa->valid & REFFS_SET_SIZE) && blocks_past_eof(ip)) {
        data_shrink(fs, ip, ip->size);   /* ext4 and tmpfs free them on a same-size truncate too */
    }
    if ((sa->valid & REFFS_SET_ATIME) && sa->atime.tv_nsec != UTIME_OMIT) {
        set_time(&ip->atime, &sa->atime, &now);
        changed = 1;
    }
    if ((sa->valid & REFFS_SET_MTIME) && sa->mtime.tv_nsec != UTIME_OMIT &&
        !mutated(MUT_UTIMES_IGNORED)) {
        set_time(&ip->mtime, &sa->mtime, &now);
        changed = 1;
    }
    if (sa->valid & REFFS_SET_CTIME)
        set_time(&ip->ctime, &sa->ctime, &now);
    else if (changed)
        ip->ctime = now;
    return 0;
}

int reffs_setattr(struct reffs *fs, reffs_ino ino, const struct reffs_setattr *sa, struct stat *out)
{
    fs_lock(fs);
    int r = do_setattr(fs, ino, sa);
    if (!r && out)
        fill_stat(ino_get(fs, ino), out);
    fs_unlock(fs);
    return r;
}

static int do_access(struct reffs *fs, reffs_ino ino, int mask)
{
    if (mask & ~(F_OK | R_OK | W_OK | X_OK))
        return -EINVAL;
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    /* Root may read and write anything, and execute what has at least one x bit. */
    if ((mask & X_OK) && !S_ISDIR(ip->mode) && !(ip->mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
        return -EACCES;
    return 0;
}

int reffs_access(struct reffs *fs, reffs_ino ino, int mask)
{
    fs_lock(fs);
    int r = do_access(fs, ino, mask);
    fs_unlock(fs);
    return r;
}
