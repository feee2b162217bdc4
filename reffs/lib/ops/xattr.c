/* Extended attributes: set/get/list/remove in the user., trusted. and security. namespaces. */
#include <sys/xattr.h>
#include "lib/core/internal.h"

static const char *const xattr_prefixes[] = { "user.", "trusted.", "security." };

static struct rxattrs *rxattrs_mut(struct rinode *ip)
{
    if (!ip->xattrs) {
        ip->xattrs = xcalloc(1, sizeof *ip->xattrs);
        ip->xattrs->refs = 1;
    } else if (ip->xattrs->refs > 1) {
        struct rxattrs *c = rxattrs_clone(ip->xattrs);
        ip->xattrs->refs--;
        ip->xattrs = c;
    }
    return ip->xattrs;
}

/* Linux's rules: empty or over-long names are ERANGE, unknown namespaces EOPNOTSUPP,
 * a bare prefix EINVAL. Returns the namespace index. */
int xattr_name_check(const char *name)
{
    size_t len = name ? strnlen(name, REFFS_XATTR_NAME_MAX + 1) : 0;
    if (len == 0 || len > REFFS_XATTR_NAME_MAX)
        return -ERANGE;
    for (int i = 0; i < 3; i++) {
        size_t plen = strlen(xattr_prefixes[i]);
        if (!strncmp(name, xattr_prefixes[i], plen))
            return len == plen ? -EINVAL : i;
    }
    return -EOPNOTSUPP;
}

/* user.* attributes exist only on regular files and directories (Linux xattr_permission). */
static int user_ns_forbidden(const struct rinode *ip, int ns)
{
    return ns == 0 && !S_ISREG(ip->mode) && !S_ISDIR(ip->mode);
}

static ssize_t xattr_find(const struct rxattrs *x, const char *name)
{
    for (size_t i = 0; x && i < x->n; i++)
        if (!strcmp(x->v[i].name, name))
            return (ssize_t)i;
    return -1;
}

static int xattr_set_checks(struct reffs *fs, const struct rinode *ip, const char *name, size_t size,
                            int flags, ssize_t *idx)
{
    if (!ip)
        return -ENOENT;
    if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
        return -EINVAL;
    int ns = xattr_name_check(name);
    if (ns < 0)
        return ns;
    if (size > REFFS_XATTR_SIZE_MAX)
        return -E2BIG;
    if (user_ns_forbidden(ip, ns))
        return -EPERM;
    *idx = xattr_find(ip->xattrs, name);
    if (*idx >= 0 && (flags & XATTR_CREATE) && !mutated(MUT_XATTR_CREATE_IGNORED))
        return -EEXIST;
    if (*idx < 0 && (flags & XATTR_REPLACE) && !mutated(MUT_XATTR_REPLACE_IGNORED))
        return mutated(MUT_XATTR_REPLACE_ENOENT) ? -ENOENT : -ENODATA;
    uint64_t old = *idx >= 0 ? ip->xattrs->v[*idx].size : 0;
    uint64_t grow = *idx >= 0 ? 0 : strlen(name);
    int64_t delta = (int64_t)grow + (int64_t)size - (int64_t)old;
    if (delta > 0 && fs->live.used + (uint64_t)delta > fs->capacity && !mutated(MUT_XATTR_ENOSPC_IGNORED))
        return -ENOSPC;
    return 0;
}

static int do_setxattr(struct reffs *fs, reffs_ino ino, const char *name, const void *value,
                       size_t size, int flags)
{
    ssize_t idx;
    int r = xattr_set_checks(fs, ino_get(fs, ino), name, size, flags, &idx);
    if (r)
        return r;
    if (size == 0 && mutated(MUT_XATTR_EMPTY_VALUE))
        return 0;
    if (size > 1024 && mutated(MUT_XATTR_VALUE_TRUNC))
        size = 1024;
    struct rinode *ip = ino_mut(fs, ino);
    struct rxattrs *x = rxattrs_mut(ip);
    if (idx < 0) {
        if (x->n == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 4;
            x->v = xrealloc(x->v, x->cap * sizeof *x->v);
        }
        idx = (ssize_t)x->n++;
        x->v[idx] = (struct rxattr){ xstrdup(name), NULL, 0 };
        fs->live.used += strlen(name);
    }
    struct rxattr *a = &x->v[idx];
    fs->live.used = fs->live.used - a->size + size;
    free(a->value);
    a->value = xmalloc(size);
    if (size)
        memcpy(a->value, value, size);
    a->size = size;
    time_now(&ip->ctime);
    return 0;
}

int reffs_setxattr(struct reffs *fs, reffs_ino ino, const char *name, const void *value,
                   size_t size, int flags)
{
    fs_lock(fs);
    int r = do_setxattr(fs, ino, name, value, size, flags);
    fs_unlock(fs);
    return r;
}

static ssize_t do_getxattr(struct reffs *fs, reffs_ino ino, const char *name, void *buf, size_t size)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    int ns = xattr_name_check(name);
    if (ns < 0)
        return ns;
    if (user_ns_forbidden(ip, ns))
        return -ENODATA;
    ssize_t idx = xattr_find(ip->xattrs, name);
    if (idx < 0)
        return -ENODATA;
    const struct rxattr *a = &ip->xattrs->v[idx];
    if (size == 0)
        return (ssize_t)a->size;
    if (size < a->size)
        return -ERANGE;
    memcpy(buf, a->value, a->size);
    return (ssize_t)a->size;
}

ssize_t reffs_getxattr(struct reffs *fs, reffs_ino ino, const char *name, void *buf, size_t size)
{
    fs_lock(fs);
    ssize_t r = do_getxattr(fs, ino, name, buf, size);
    fs_unlock(fs);
    return r;
}

static ssize_t do_listxattr(struct reffs *fs, reffs_ino ino, char *buf, size_t size)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    const struct rxattrs *x = ip->xattrs;
    size_t total = 0;
    for (size_t i = 0; x && i < x->n; i++)
        total += strlen(x->v[i].name) + 1;
    if (size == 0)
        return (ssize_t)total;
    if (size < total)
        return -ERANGE;
    for (size_t i = 0, o = 0; x && i < x->n; i++) {
        size_t l = strlen(x->v[i].name) + 1;
        memcpy(buf + o, x->v[i].name, l);
        o += l;
    }
    return (ssize_t)total;
}

ssize_t reffs_listxattr(struct reffs *fs, reffs_ino ino, char *buf, size_t size)
{
    fs_lock(fs);
    ssize_t r = do_listxattr(fs, ino, buf, size);
    fs_unlock(fs);
    return r;
}

static int do_removexattr(struct reffs *fs, reffs_ino ino, const char *name)
{
    struct rinode *ip = ino_get(fs, ino);
    if (!ip)
        return -ENOENT;
    int ns = xattr_name_check(name);
    if (ns < 0)
        return ns;
    if (user_ns_forbidden(ip, ns))
        return -EPERM;
    ssize_t idx = xattr_find(ip->xattrs, name);
    if (idx < 0)
        return mutated(MUT_REMOVEXATTR_ENOENT) ? -ENOENT : -ENODATA;
    if (mutated(MUT_REMOVEXATTR_NOOP))
        return 0;
    ip = ino_mut(fs, ino);
    struct rxattrs *x = rxattrs_mut(ip);
    struct rxattr *a = &x->v[idx];
    fs->live.used -= strlen(a->name) + a->size;
    free(a->name);
    free(a->value);
    memmove(a, a + 1, (x->n - idx - 1) * sizeof *a);
    x->n--;
    time_now(&ip->ctime);
    return 0;
}

int reffs_removexattr(struct reffs *fs, reffs_ino ino, const char *name)
{
    fs_lock(fs);
    int r = do_removexattr(fs, ino, name);
    fs_unlock(fs);
    return r;
}
