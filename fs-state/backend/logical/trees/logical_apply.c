/* Logical restore: the difference of two recorded trees applied to a mount, so a restore costs what changed, not the search depth. */
#include "backend/logical/trees/logical_apply.h"
#include "backend/logical/calls/rcalls_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    struct buf *journal;        /* not NULL: every call is recorded (rcalls.h) */
    char *err;
    size_t errlen;
};

static int fail(struct apply *ap, const char *call, const char *path)
{
    snprintf(ap->err, ap->errlen, "%s %s: %s", call, path, strerror(errno));
    return -1;
}

/* Runs one call, recorded in the journal with its outcome: what a replay of the fs's history
 * repeats. A call that cannot be recorded is not made (ENOMEM): the restore then misses and
 * is replayed on a fresh mount, where the history starts again. */
static long call(struct apply *ap, const struct rcall *c)
{
    size_t mark = ap->journal ? ap->journal->len : 0;
    if (ap->journal && buf_printf(ap->journal, "call ") < 0) {
        errno = ENOMEM;
        return -1;
    }
    long r = rcall_exec(ap->rootfd, c);
    int err = r < 0 ? errno : 0;
    if (ap->journal && (rcall_format_outcome(c, r, err, ap->journal) < 0 ||
                        buf_add(ap->journal, "\n", 1) < 0)) {
        ap->journal->len = mark;
        err = ENOMEM, r = -1;
    }
    errno = err;
    return r;
}

/* A call on entry e's path. */
static struct rcall on(enum rcall_kind kind, const struct ft_entry *e)
{
    return (struct rcall){ .kind = kind, .path = e->path };
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

static int write_block(struct apply *ap, const struct ft_entry *e, size_t k, off_t *cur)
{
    uint64_t off = e->blocks[k].idx * FT_BLOCK, left = (uint64_t)e->size - off;
    struct rcall c = on(RC_WRITE, e);
    c.off = off;
    c.data = e->blocks[k].blk->data;
    c.len = left < FT_BLOCK ? (size_t)left : FT_BLOCK;
    if (call(ap, &c) < 0)
        return fail(ap, "write", e->path);
    if ((off_t)(off + c.len) > *cur)
        *cur = (off_t)(off + c.len);
    return 0;
}

static int truncate_to(struct apply *ap, const struct ft_entry *e, off_t size)
{
    struct rcall c = on(RC_TRUNCATE, e);
    c.size = (uint64_t)size;
    return call(ap, &c) < 0 ? fail(ap, "truncate", e->path) : 0;
}

static int set_size(struct apply *ap, const struct ft_entry *e, off_t cur)
{
    return cur != e->size ? truncate_to(ap, e, e->size) : 0;
}

/* Every data block of e, into an empty file. */
static int write_all(struct apply *ap, const struct ft_entry *e)
{
    off_t cur = 0;
    for (size_t k = 0; k < e->nblocks; k++)
        if (write_block(ap, e, k, &cur) < 0)
            return -1;
    return set_size(ap, e, cur);
}

static int punch_block(struct apply *ap, const struct ft_entry *e, uint64_t idx)
{
    struct rcall c = on(RC_PUNCH, e);
    c.off = idx * FT_BLOCK;
    c.size = FT_BLOCK;
    return call(ap, &c) < 0 ? -1 : 0;
}

/* Makes holes where a had data below b's end and b has none; -1 if the fs cannot punch. */
static int punch_holes(struct apply *ap, const struct ft_entry *a, const struct ft_entry *b)
{
    size_t k = 0;
    for (size_t i = 0; i < a->nblocks; i++) {
        uint64_t idx = a->blocks[i].idx;
        while (k < b->nblocks && b->blocks[k].idx < idx)
            k++;
        if (idx * FT_BLOCK >= (uint64_t)b->size || (k < b->nblocks && b->blocks[k].idx == idx))
            continue;
        if (punch_block(ap, b, idx) < 0)
            return -1;
    }
    return 0;
}

/* Writes the blocks of b that a does not have with the same bytes. */
static int write_changed(struct apply *ap, const struct ft_entry *a, const struct ft_entry *b,
                         off_t *cur)
{
    size_t i = 0;
    for (size_t k = 0; k < b->nblocks; k++) {
        while (i < a->nblocks && a->blocks[i].idx < b->blocks[k].idx)
            i++;
        int same = i < a->nblocks && a->blocks[i].idx == b->blocks[k].idx &&
                   a->blocks[i].blk == b->blocks[k].blk;
        if (!same && write_block(ap, b, k, cur) < 0)
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
    off_t cur = a->size < b->size ? a->size : b->size;
    int rc = set_size(ap, b, a->size > b->size ? a->size : b->size);   /* cuts a longer one */
    if (rc == 0 && punch_holes(ap, a, b) < 0)
        rc = truncate_to(ap, b, 0) < 0 ? -1 : write_all(ap, b);
    else if (rc == 0 && write_changed(ap, a, b, &cur) < 0)
        rc = -1;
    else if (rc == 0)
        rc = set_size(ap, b, cur);
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
static int remove_xattr(struct apply *ap, const struct ft_entry *e, const char *name)
{
    struct rcall c = on(RC_REMOVEXATTR, e);
    c.xname = name;
    return call(ap, &c) < 0 ? fail(ap, "removexattr", e->path) : 0;
}

static int set_xattr(struct apply *ap, const struct ft_entry *e, const struct ft_xattr *x)
{
    struct rcall c = on(RC_SETXATTR, e);
    c.xname = x->name;
    c.data = (const unsigned char *)x->value;
    c.len = x->len;
    return call(ap, &c) < 0 ? fail(ap, "setxattr", e->path) : 0;
}

static int set_xattrs(struct apply *ap, const struct ft_entry *e, const struct ft_entry *old)
{
    int rc = 0;
    for (size_t i = 0; !rc && old && i < old->nx; i++)
        if (!xattr_named(e, old->xattrs[i].name))
            rc = remove_xattr(ap, e, old->xattrs[i].name);
    for (size_t i = 0; !rc && i < e->nx; i++)
        if (!xattr_same(old, &e->xattrs[i]))
            rc = set_xattr(ap, e, &e->xattrs[i]);
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
    struct rcall own = on(RC_CHOWN, e), mod = on(RC_CHMOD, e);
    int chowned = 0;
    own.uid = e->uid;
    own.gid = e->gid;
    mod.mode = e->mode & 07777;
    if (!old || e->uid != old->uid || e->gid != old->gid) {
        if (call(ap, &own) < 0 && !(ap->ignore & TREE_IGNORE_OWNER))
            return fail(ap, "chown", e->path);
        chowned = 1;
    }
    if (!S_ISLNK(e->mode) && (!old || chowned || wrote || (e->mode ^ old->mode) & 07777) &&
        call(ap, &mod) < 0 && !(ap->ignore & TREE_IGNORE_MODE))
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
        struct rcall c = on(S_ISDIR(e->mode) ? RC_RMDIR : RC_UNLINK, e);
        if (call(ap, &c) < 0)
            return fail(ap, S_ISDIR(e->mode) ? "rmdir" : "unlink", e->path);
        ap->n->removed++;
    }
    return 0;
}

static int create_file(struct apply *ap, const struct ft_entry *e)
{
    struct rcall c = on(RC_CREATE, e);
    c.mode = 0600;
    return call(ap, &c) < 0 ? fail(ap, "create", e->path) : write_all(ap, e);
}

/* The call that makes e, if it is not a file, with the name of what it does. */
static struct rcall maker(const struct ft_entry *e, const char **what)
{
    struct rcall c = on(RC_MKNOD, e);
    c.mode = (e->mode & S_IFMT) | 0600;
    *what = "mknod";
    if (S_ISDIR(e->mode))
        c.kind = RC_MKDIR, c.mode = 0700, *what = "mkdir";
    else if (S_ISLNK(e->mode))
        c.kind = RC_SYMLINK, c.path2 = e->target ? e->target : "", *what = "symlink";
    return c;
}

/* Makes entry j of the target; a hard link to its group's first path if it is not that. */
static int create_one(struct apply *ap, size_t j)
{
    const struct ft_entry *e = ap->to->ents[j];
    long lead = ap->to->leader[j];
    const char *what;
    int rc;
    if (lead != (long)j) {
        struct rcall c = on(RC_LINK, e);
        c.path2 = ap->to->ents[lead]->path;
        return call(ap, &c) < 0 ? fail(ap, "link", e->path) : 0;
    }
    if (S_ISREG(e->mode)) {
        rc = create_file(ap, e);
    } else {
        struct rcall c = maker(e, &what);
        rc = call(ap, &c) < 0 ? fail(ap, what, e->path) : 0;
    }
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
                  unsigned ignore, struct lg_counts *n, struct buf *journal, char *err,
                  size_t errlen)
{
    struct apply ap = { rootfd, from, to, ignore, calloc(from->n + 1, 1), calloc(to->n + 1, 1),
                        calloc(to->n + 1, sizeof(long)), n, journal, err, errlen };
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
