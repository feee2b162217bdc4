/* RefFS tree dumps: parses reffs_dump's format (reffs/reffs.h) and feeds each entry to the tree model's digest. */
#include "backend/kinds/reffs_dump.h"
#include "lib/text/buf.h"
#include "reffs.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
    const unsigned char *p, *end;
    int bad;
};

static const void *take(struct cursor *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return NULL;
    }
    const void *r = c->p;
    c->p += n;
    return r;
}

/* Little-endian, as RefFS writes it; zeros once the dump is cut short. */
static uint32_t get32(struct cursor *c)
{
    const void *p = take(c, 4);
    uint32_t v = 0;
    if (p)
        memcpy(&v, p, 4);
    return le32toh(v);
}

static uint64_t get64(struct cursor *c)
{
    const void *p = take(c, 8);
    uint64_t v = 0;
    if (p)
        memcpy(&v, p, 8);
    return le64toh(v);
}

static const char *get_bytes(struct cursor *c, size_t *len)
{
    *len = get32(c);
    return take(c, *len);
}

/* A string of the dump: its bytes end in their only NUL. */
static const char *get_str(struct cursor *c)
{
    size_t len;
    const char *s = get_bytes(c, &len);
    if (!s || len == 0 || memchr(s, '\0', len) != s + len - 1) {
        c->bad = 1;
        return NULL;
    }
    return s;
}

/* Growable arrays reused from one dump to the next (the engine reads back once per step). */
static __thread struct {
    struct tree_xattr *x;
    size_t xcap;
    struct tree_extent *ext;
    size_t extcap;
} T;

static int read_xattrs(struct cursor *c, struct tree_entry *e)
{
    size_t n = get32(c);
    if (c->bad || n > (size_t)(c->end - c->p) || array_reserve(&T.x, &T.xcap, n, sizeof *T.x))
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t vlen;
        const char *name = get_str(c);
        const char *value = get_bytes(c, &vlen);
        if (c->bad)
            return -1;
        T.x[i] = (struct tree_xattr){ name, value, vlen };
    }
    e->xattrs = T.x;
    e->nx = n;
    return 0;
}

static int read_blocks(struct cursor *c, struct tree_entry *e)
{
    size_t n = get32(c);
    if (c->bad || n > (size_t)(c->end - c->p) ||
        array_reserve(&T.ext, &T.extcap, n, sizeof *T.ext))
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = get64(c);
        size_t len;
        const char *data = get_bytes(c, &len);
        if (!data)
            return -1;
        T.ext[i] = (struct tree_extent){ off, data, len };
    }
    e->ext = T.ext;
    e->next = n;
    return 0;
}

/* One entry into e, pointing into the dump; -1 if the dump is malformed. */
static int read_entry(struct cursor *c, struct tree_entry *e)
{
    memset(e, 0, sizeof *e);
    e->fd = -1;                 /* contents and xattrs come with the entry */
    e->path = get_str(c);
    e->st.st_mode = get32(c);
    e->st.st_nlink = get32(c);
    e->st.st_uid = get32(c);
    e->st.st_gid = get32(c);
    e->st.st_size = (off_t)get64(c);
    e->target = get_bytes(c, &e->tlen);
    if (c->bad || e->path[0] != '/')
        return -1;
    return read_xattrs(c, e) || read_blocks(c, e) || c->bad ? -1 : 0;
}

/* The excluded root entry path falls under, if any: "/x" and "/x/..." for an excluded x. */
static int under_excluded(const char *path, const struct tree_opts *o, int *is_top)
{
    char top[256 + 1];
    size_t n = strcspn(path + 1, "/");
    *is_top = path[1 + n] == '\0';
    if (n == 0 || n >= sizeof top)
        return 0;
    memcpy(top, path + 1, n);
    top[n] = '\0';
    return tree_excluded(o->exclude, top);
}

static int malformed(void)
{
    errno = EBADMSG;
    return -1;
}

/* The root's entry, read again at rawp (the arrays of a later entry's xattrs and blocks took
 * its own), with the excluded directories its nlink counts taken off. */
static int add_root(const unsigned char *rawp, const unsigned char *end, long excluded_dirs)
{
    struct cursor c = { rawp, end, 0 };
    struct tree_entry e;
    if (read_entry(&c, &e))
        return malformed();
    e.nlink_adj = excluded_dirs;
    return tree_digest_add_raw(&e, rawp, (size_t)(c.p - rawp));
}

/* One pass over the dump: excluded directories at the root still count in the root's nlink on
 * a walk's file system, so the walk subtracts them (tree_walk); the root is added last, once
 * they are counted (the digest sorts its lines). */
static int add_all(struct cursor c, uint64_t count, const struct tree_opts *o)
{
    struct tree_entry e;
    const unsigned char *root = NULL;
    long excluded_dirs = 0;
    int is_top, rc = 0;
    for (uint64_t i = 0; i < count && rc == 0; i++) {
        const unsigned char *raw = c.p;
        if (read_entry(&c, &e))
            return malformed();
        if (strcmp(e.path, "/") == 0) {
            root = raw;
            continue;
        }
        if (under_excluded(e.path, o, &is_top)) {
            excluded_dirs += is_top && S_ISDIR(e.st.st_mode);
            continue;
        }
        rc = tree_digest_add_raw(&e, raw, (size_t)(c.p - raw));
    }
    return rc == 0 && root ? add_root(root, c.end, excluded_dirs) : rc;
}

int reffs_dump_digest(const void *buf, size_t len, const struct tree_opts *o,
                      unsigned char *out, FILE *listing, struct tree_index *index)
{
    struct cursor c = { buf, (const unsigned char *)buf + len, 0 };
    const void *magic = take(&c, 8);
    uint64_t count = get64(&c);
    if (!magic || memcmp(magic, REFFS_DUMP_MAGIC, 8) != 0 || c.bad || count == 0)
        return malformed();
    int rc = tree_digest_begin(o);
    if (rc == 0)
        rc = add_all(c, count, o);
    return rc < 0 ? -1 : tree_digest_end(out, listing, index);
}
