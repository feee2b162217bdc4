/* Read-back by dump: the daemon hands its whole tree over in one ioctl instead of a walk's round trip per entry and xattr; a walk still checks it now and then. */
#include "backend/kinds/dump_readback.h"
#include "lib/text/buf.h"
#include "backend/base/common.h"
#include "backend/kinds/reffs_dump.h"
#include "reffs_ioctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Beside where an image would be (in /dev/shm, swept with the run): the dump is written and
 * read once per operation, and tmpfs keeps that off any disk. */
int dumpback_init(struct dumpback *d, struct backend *b, int ctlfd, const char *who)
{
    char dir[sizeof b->image];
    memset(d, 0, sizeof *d);
    d->ctlfd = ctlfd;
    d->who = who;
    snprintf(dir, sizeof dir, "%s", b->image);
    *strrchr(dir, '/') = '\0';
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return bk_err(b, "setup", "cannot make %s: %s", dir, strerror(errno));
    snprintf(d->path, sizeof d->path, "%s/%s.dump", dir, b->cfg->name);
    return 0;
}

/* Has the daemon write its dump; its length in *len. -1 with errno. */
static int dump_ioctl(struct dumpback *d, size_t *len)
{
    struct reffs_ioc_file f;
    memset(&f, 0, sizeof f);
    memcpy(f.path, d->path, strlen(d->path) + 1);
    if (ioctl(d->ctlfd, REFFS_IOC_DUMP, &f) < 0)
        return -1;
    *len = f.key;
    return 0;
}

int dumpback_probe(struct dumpback *d)
{
    size_t len;
    return dump_ioctl(d, &len) == 0;
}

static int read_dump(struct dumpback *d, struct backend *b, size_t *len)
{
    if (dump_ioctl(d, len) < 0)
        return bk_err(b, "read-back", "dump to %s: %s", d->path, strerror(errno));
    if (array_reserve(&d->buf, &d->cap, *len, 1))
        return bk_err(b, "read-back", "out of memory for a %zu-byte dump", *len);
    if (!d->fd_open && (d->fd = open(d->path, O_RDONLY | O_CLOEXEC)) >= 0)
        d->fd_open = 1;
    ssize_t n = d->fd_open ? pread(d->fd, d->buf, *len, 0) : -1;
    if (n != (ssize_t)*len)
        return bk_err(b, "read-back", "reading %s: %s", d->path, n < 0 ? strerror(errno) : "short");
    return 0;
}

static int dump_digest(struct dumpback *d, struct backend *b, const struct tree_opts *o,
                       unsigned char *out, FILE *listing, struct tree_index *index)
{
    size_t len;
    if (read_dump(d, b, &len) < 0)
        return -1;
    int n = reffs_dump_digest(d->buf, len, o, out, listing, index);
    if (n < 0)
        return bk_err(b, "read-back", "digesting the dump: %s", strerror(errno));
    return n;
}

struct listing_job {
    struct dumpback *d;
    struct backend *b;
    const struct tree_opts *o;
    int walk;
};

static int list_by_walk_or_dump(void *ctx, FILE *f)
{
    struct listing_job *j = ctx;
    unsigned char dg[TREE_MAX_DIGEST];
    return j->walk ? bk_walk(j->b, j->o, dg, f, NULL) : dump_digest(j->d, j->b, j->o, dg, f, NULL);
}

static char *listing_of(struct dumpback *d, struct backend *b, const struct tree_opts *o,
                        int walk)
{
    struct listing_job j = { d, b, o, walk };
    return tree_listing_text(list_by_walk_or_dump, &j);
}

/* The daemon's state and what the kernel shows of it must agree; if they do not, restores
 * left a stale kernel cache or the daemon answers wrongly, and every comparison is suspect. */
static int cross_check(struct dumpback *d, struct backend *b, const struct tree_opts *o,
                       const unsigned char *dg, int n)
{
    unsigned char w[TREE_MAX_DIGEST];
    char label[64], diff[600];
    int wn = bk_walk(b, o, w, NULL, NULL);
    if (wn < 0)
        return -1;
    if (wn == n && memcmp(w, dg, (size_t)n) == 0)
        return n;
    char *dumped = listing_of(d, b, o, 0), *walked = listing_of(d, b, o, 1);
    snprintf(label, sizeof label, "%s has", d->who);
    bk_first_difference(dumped ? dumped : "", label, walked ? walked : "", "the mount shows",
                        diff, sizeof diff);
    free(dumped);
    free(walked);
    return bk_err(b, "read-back", "%s's own tree and the kernel's view of it differ (%s): a bug "
                  "of %s; set readback = vfs to compare the kernel's view only", d->who, diff,
                  d->who);
}

int dumpback_read_back(struct dumpback *d, struct backend *b, const struct tree_opts *o,
                       unsigned char *out, FILE *listing, struct tree_index *index)
{
    int n = dump_digest(d, b, o, out, listing, index);
    int every = b->cfg->readback_check;
    if (n >= 0 && (listing || (every > 0 && ++d->reads % (uint64_t)every == 0)))
        return cross_check(d, b, o, out, n);
    return n;
}

void dumpback_free(struct dumpback *d)
{
    if (d->fd_open)
        close(d->fd);
    d->fd_open = 0;
    if (d->path[0])
        unlink(d->path);
    d->path[0] = '\0';
    free(d->buf);
    d->buf = NULL;
    d->cap = 0;
}
