/* Logical restore: the difference of two recorded trees applied to a mount, so a restore costs what changed, not the search depth. */
#include "logical_apply.h"
#include "lib/helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* What happens to an entry of the target tree. */
enum { ACT_SAME, ACT_UPDATE, ACT_CREATE };

struct apply {
    int rootfd;
    const struct ft_tree *from, *to;
    unsigned ignore;
    unsigned char *remove;      /* per entry of from: 1 if it goes */
    unsigned char *act;         /* per entry of to: ACT_* */
    long *old;                  /* per entry of to: its entry in from (ACT_UPDATE) or -1 */
    struct lg_counts *n;
    char *err;
    size_t errlen;
};

static int fail(struct apply *ap, const char *call, const char *path)
{
    snprintf(ap->err, ap->errlen, "%s %s: %s", call, path, strerror(errno));
    return -1;
}

/* Paths are relative to the root fd; the root itself is ".". */
static const char *rel(const struct ft_entry *e)
{
    return e->path[1] ? e->path + 1 : ".";
}

/* ---- the plan ---- */

/* 1 if entry i of a and entry j of b are hard-linked to the same set of paths. */
static int same_links(const struct ft_tree *a, long i, const struct ft_tree *b, long j)
{
    long x = a->leader[i], y = b->leader[j];
    for (; x >= 0 && y >= 0; x = a->next[x], y = b->next[y])
        if (strcmp(a->ents[x]->path, b->ents[y]->path) != 0)
            return 0;
    return x < 0 && y < 0;
}

/* A symlink's target cannot be changed in place. */
static int same_target(const struct ft_entry *a, const struct ft_entry *b)
{
    return a->tlen == b->tlen && (!a->tlen || memcmp(a->target, b->target, a->tlen) == 0);
}

/* A path in both trees keeps its inode if its type, its hard links and a symlink's target are
 * the same; else it is removed and made again (so a link group is kept whole or made whole). */
static void plan_pair(struct apply *ap, long i, long j)
{
    const struct ft_entry *a = ap->from->ents[i], *b = ap->to->ents[j];
    int keep = (a->mode & S_IFMT) == (b->mode & S_IFMT) && same_target(a, b) &&
               (S_ISDIR(b->mode) || same_links(ap->from, i, ap->to, j));
    ap->remove[i] = !keep;
    ap->act[j] = !keep ? ACT_CREATE : a == b ? ACT_SAME : ACT_UPDATE;
    ap->old[j] = keep ? i : -1;
}

/* Both trees are sorted by path: one merge pass classifies every path. */
static void make_plan(struct apply *ap)
{
    size_t i = 0, j = 0, nf = ap->from->n, nt = ap->to->n;
    while (i < nf || j < nt) {
        int c = i == nf ? 1 : j == nt ? -1
              : strcmp(ap->from->ents[i]->path, ap->to->ents[j]->path);
        if (c < 0) {
            ap->remove[i++] = 1;
        } else if (c > 0) {
            ap->act[j] = ACT_CREATE;
            ap->old[j++] = -1;
        } else {
            plan_pair(ap, (long)i++, (long)j++);
        }
    }
}

/* ---- file data ---- */

static int write_block(struct apply *ap, int fd, const struct ft_entry *e, size_t k, off_t *cur)
{
    uint64_t off = e->blocks[k].idx * FT_BLOCK, left = (uint64_t)e->size - off;
    size_t len = left < FT_BLOCK ? (size_t)left : FT_BLOCK;
    if (pwrite_all(fd, e->blocks[k].blk->data, len, (off_t)off) < 0)
        return fail(ap, "write", e->path);
    if ((off_t)(off + len) > *cur)
        *cur = (off_t)(off + len);
    return 0;
}

static int set_size(struct apply *ap, int fd, const struct ft_entry *e, off_t cur)
{
    if (cur != e->size && ftruncate(fd, e->size) < 0)
        return fail(ap, "truncate", e->path);
    return 0;
}

/* Every data block of e, into an empty file. */
static int write_all(struct apply *ap, int fd, const struct ft_entry *e)
{
    off_t cur = 0;
    for (size_t k = 0; k < e->nblocks; k++)
        if (write_block(ap, fd, e, k, &cur) < 0)
            return -1;
    return set_size(ap, fd, e, cur);
}

/* Makes holes where a had data below b's end and b has none; -1 if the fs cannot punch. */
static int punch_holes(int fd, const struct ft_entry *a, const struct ft_entry *b)
{
    size_t k = 0;
    for (size_t i = 0; i < a->nblocks; i++) {
        uint64_t idx = a->blocks[i].idx;
        while (k < b->nblocks && b->blocks[k].idx < idx)
            k++;
        if (idx * FT_BLOCK >= (uint64_t)b->size || (k < b->nblocks && b->blocks[k].idx == idx))
            continue;
        if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(idx * FT_BLOCK),
                      FT_BLOCK) < 0)
            return -1;
    }
    return 0;
}

/* Writes the blocks of b that a does not have with the same bytes. */
static int write_changed(struct apply *ap, int fd, const struct ft_entry *a,
                         const struct ft_entry *b, off_t *cur)
{
    size_t i = 0;
    for (size_t k = 0; k < b->nblocks; k++) {
        while (i < a->nblocks && a->blocks[i].idx < b->blocks[k].idx)
            i++;
        int same = i < a->nblocks && a->blocks[i].idx == b->blocks[k].idx &&
                   a->blocks[i].blk == b->blocks[k].blk;
        if (!same && write_block(ap, fd, b, k, cur) < 0)
            return -1;
    }
    return 0;
}

static int blocks_equal(const struct ft_entry *a, const struct ft_entry *b)
{
    if (a->size != b->size || a->nblocks != b->nblocks)
        return 0;
    for (size_t i = 0; i < a->nblocks; i++)
        if (a->blocks[i].idx != b->blocks[i].idx || a->blocks[i].blk != b->blocks[i].blk)
            return 0;
    return 1;
}

/* a's contents into b's: cut what b does not reach, punch b's holes (or, where the fs cannot,
 * rewrite the file whole), write the blocks that differ, set the size. 1 if it wrote. */
static int update_data(struct apply *ap, const struct ft_entry *a, const struct ft_entry *b)
{
    if (blocks_equal(a, b))
        return 0;
    int fd = openat(ap->rootfd, rel(b), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return fail(ap, "open", b->path);
    off_t cur = a->size < b->size ? a->size : b->size;
    int rc = set_size(ap, fd, b, a->size > b->size ? a->size : b->size);   /* cuts a longer one */
    if (rc == 0 && punch_holes(fd, a, b) < 0)
        rc = ftruncate(fd, 0) < 0 ? fail(ap, "truncate", b->path) : write_all(ap, fd, b);
    else if (rc == 0 && write_changed(ap, fd, a, b, &cur) < 0)
        rc = -1;
    else if (rc == 0)
        rc = set_size(ap, fd, b, cur);
    close(fd);
    ap->n->rewritten++;
    return rc < 0 ? -1 : 1;
}

/* ---- attributes ---- */

static int xattr_same(const struct ft_entry *e, const struct ft_xattr *x)
{
    for (size_t i = 0; e && i < e->nx; i++)
        if (strcmp(e->xattrs[i].name, x->name) == 0)
            return e->xattrs[i].len == x->len && memcmp(e->xattrs[i].value, x->value, x->len) == 0;
    return 0;
}

static int xattr_named(const struct ft_entry *e, const char *name)
{
    for (size_t i = 0; i < e->nx; i++)
        if (strcmp(e->xattrs[i].name, name) == 0)
            return 1;
    return 0;
}

/* Removes the xattrs of old that e lacks and sets those of e that old lacks or has otherwise. */
static int set_xattrs(struct apply *ap, const struct ft_entry *e, const struct ft_entry *old)
{
    int fd = openat(ap->rootfd, rel(e), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
                                        (S_ISDIR(e->mode) ? O_DIRECTORY : 0));
    int rc = fd < 0 ? fail(ap, "open", e->path) : 0;
    for (size_t i = 0; !rc && old && i < old->nx; i++)
        if (!xattr_named(e, old->xattrs[i].name) && fremovexattr(fd, old->xattrs[i].name) < 0)
            rc = fail(ap, "removexattr", e->path);
    for (size_t i = 0; !rc && i < e->nx; i++) {
        const struct ft_xattr *x = &e->xattrs[i];
        if (!xattr_same(old, x) && fsetxattr(fd, x->name, x->value, x->len, 0) < 0)
            rc = fail(ap, "setxattr", e->path);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

static int xattrs_differ(const struct ft_entry *e, const struct ft_entry *old)
{
    if (!old)
        return e->nx > 0;
    if (e->nx != old->nx)
        return 1;
    for (size_t i = 0; i < e->nx; i++)
        if (!xattr_same(old, &e->xattrs[i]))
            return 1;
    return 0;
}

/* Owner, then mode (a chown or a write clears set-id bits), then xattrs. old is NULL for an
 * entry just made. A call for an ignored attribute may fail: the digest does not see it. */
static int set_meta(struct apply *ap, const struct ft_entry *e, const struct ft_entry *old,
                    int wrote)
{
    const char *p = rel(e);
    int chowned = 0;
    if (!old || e->uid != old->uid || e->gid != old->gid) {
        if (fchownat(ap->rootfd, p, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0 &&
            !(ap->ignore & TREE_IGNORE_OWNER))
            return fail(ap, "chown", e->path);
        chowned = 1;
    }
    if (!S_ISLNK(e->mode) && (!old || chowned || wrote || (e->mode ^ old->mode) & 07777) &&
        fchmodat(ap->rootfd, p, e->mode & 07777, 0) < 0 && !(ap->ignore & TREE_IGNORE_MODE))
        return fail(ap, "chmod", e->path);
    if ((S_ISREG(e->mode) || S_ISDIR(e->mode)) && xattrs_differ(e, old) &&
        set_xattrs(ap, e, old) < 0 && !(ap->ignore & TREE_IGNORE_XATTRS))
        return -1;
    ap->n->meta++;
    return 0;
}

/* ---- the passes ---- */

/* Children before parents: in reverse path order. */
static int remove_pass(struct apply *ap)
{
    for (size_t i = ap->from->n; i-- > 0;) {
        const struct ft_entry *e = ap->from->ents[i];
        if (!ap->remove[i])
            continue;
        if (unlinkat(ap->rootfd, rel(e), S_ISDIR(e->mode) ? AT_REMOVEDIR : 0) < 0)
            return fail(ap, S_ISDIR(e->mode) ? "rmdir" : "unlink", e->path);
        ap->n->removed++;
    }
    return 0;
}

static int create_file(struct apply *ap, const struct ft_entry *e)
{
    int fd = openat(ap->rootfd, rel(e), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(ap, "create", e->path);
    int rc = write_all(ap, fd, e);
    close(fd);
    return rc;
}

/* Makes entry j of the target; a hard link to its group's first path if it is not that. */
static int create_one(struct apply *ap, size_t j)
{
    const struct ft_entry *e = ap->to->ents[j];
    const char *p = rel(e);
    long lead = ap->to->leader[j];
    int rc;
    if (lead != (long)j)
        return linkat(ap->rootfd, rel(ap->to->ents[lead]), ap->rootfd, p, 0) < 0
                   ? fail(ap, "link", e->path) : 0;
    if (S_ISDIR(e->mode))
        rc = mkdirat(ap->rootfd, p, 0700) < 0 ? fail(ap, "mkdir", e->path) : 0;
    else if (S_ISREG(e->mode))
        rc = create_file(ap, e);
    else if (S_ISLNK(e->mode))
        rc = symlinkat(e->target ? e->target : "", ap->rootfd, p) < 0
                 ? fail(ap, "symlink", e->path) : 0;
    else
        rc = mknodat(ap->rootfd, p, (e->mode & S_IFMT) | 0600, 0) < 0
                 ? fail(ap, "mknod", e->path) : 0;
    ap->n->created++;
    return rc < 0 ? -1 : set_meta(ap, e, NULL, 1);
}

/* Parents before children: in path order. */
static int create_pass(struct apply *ap)
{
    for (size_t j = 0; j < ap->to->n; j++)
        if (ap->act[j] == ACT_CREATE && create_one(ap, j) < 0)
            return -1;
    return 0;
}

/* Entries kept in place: one inode per link group, changed through its first path. */
static int update_pass(struct apply *ap)
{
    for (size_t j = 0; j < ap->to->n; j++) {
        if (ap->act[j] != ACT_UPDATE || ap->to->leader[j] != (long)j)
            continue;
        const struct ft_entry *e = ap->to->ents[j], *old = ap->from->ents[ap->old[j]];
        int wrote = S_ISREG(e->mode) ? update_data(ap, old, e) : 0;
        if (wrote < 0 || set_meta(ap, e, old, wrote) < 0)
            return -1;
    }
    return 0;
}

int logical_apply(int rootfd, const struct ft_tree *from, const struct ft_tree *to,
                  unsigned ignore, struct lg_counts *n, char *err, size_t errlen)
{
    struct apply ap = { rootfd, from, to, ignore, calloc(from->n + 1, 1), calloc(to->n + 1, 1),
                        calloc(to->n + 1, sizeof(long)), n, err, errlen };
    int rc = -1;
    if (!ap.remove || !ap.act || !ap.old) {
        snprintf(err, errlen, "out of memory");
    } else {
        make_plan(&ap);
        rc = remove_pass(&ap) < 0 || create_pass(&ap) < 0 || update_pass(&ap) < 0 ? -1 : 0;
    }
    free(ap.remove);
    free(ap.act);
    free(ap.old);
    return rc;
}
