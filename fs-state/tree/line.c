/* The one listing line of a tree entry (tree.h documents its fields), whether the entry was walked or handed over, and what [fs] ignore and exclude leave out. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tree.h"

/* ---- ignore and exclude ---- */

/* The next comma-separated name of *p: its start, length (trailing blanks trimmed) in *len. */
static const char *tree_next_name(const char **p, size_t *len)
{
    while (**p == ' ' || **p == ',')
        (*p)++;
    const char *name = *p;
    size_t k = strcspn(name, ",");
    *p += k;
    while (k && name[k - 1] == ' ')
        k--;
    *len = k;
    return name;
}

int tree_excluded(const char *exclude, const char *name)
{
    size_t n = strlen(name), len;
    for (const char *p = exclude; n && p && *p;) {
        const char *x = tree_next_name(&p, &len);
        if (len == n && strncmp(x, name, n) == 0)
            return 1;
    }
    return 0;
}

int tree_parse_ignore(const char *list, unsigned *out, char *err, size_t errlen)
{
    static const struct { const char *name; unsigned bit; } known[] = {
        { "dir_nlink", TREE_IGNORE_DIR_NLINK }, { "xattrs", TREE_IGNORE_XATTRS },
        { "mode", TREE_IGNORE_MODE }, { "owner", TREE_IGNORE_OWNER },
    };
    const size_t nknown = sizeof known / sizeof known[0];
    size_t t;
    *out = 0;
    for (const char *p = list; p && *p;) {
        const char *name = tree_next_name(&p, &t);
        if (t == 0)
            break;
        size_t i = 0;
        while (i < nknown && !(strlen(known[i].name) == t && strncmp(known[i].name, name, t) == 0))
            i++;
        if (i == nknown) {
            snprintf(err, errlen, "unknown ignore name '%.*s' (known: dir_nlink, xattrs, mode, owner)",
                     (int)(t > 40 ? 40 : t), name);
            return -1;
        }
        *out |= known[i].bit;
    }
    return 0;
}

/* ---- the reproducers' hash ---- */

static int tree_fnv_begin(void *ctx)
{
    *(uint64_t *)ctx = 0xcbf29ce484222325ull;
    return 0;
}

static int tree_fnv_update(void *ctx, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = *(uint64_t *)ctx;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    *(uint64_t *)ctx = h;
    return 0;
}

static int tree_fnv_hex(void *ctx, struct buf *out)
{
    return buf_printf(out, "%016llx", (unsigned long long)*(uint64_t *)ctx);
}

const struct tree_hash tree_fnv_hash = { NULL, tree_fnv_begin, tree_fnv_update, tree_fnv_hex };

static int tree_hash_hex(const struct tree_hash *h, const void *p, size_t n, struct buf *out)
{
    return h->begin(h->ctx) || h->update(h->ctx, p, n) || h->hex(h->ctx, out) ? -1 : 0;
}

/* ---- contents ---- */

static int tree_all_zero(const unsigned char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* A large file's bytes at base: each non-zero block with its offset. */
static int tree_hash_blocks(const struct tree_hash *h, const unsigned char *p, size_t n,
                            uint64_t base)
{
    for (size_t i = 0; i < n; i += TREE_BLOCK) {
        size_t len = n - i < TREE_BLOCK ? n - i : TREE_BLOCK;
        if (tree_all_zero(p + i, len))
            continue;
        uint64_t off = base + i;
        if (h->update(h->ctx, &off, sizeof off) || h->update(h->ctx, p + i, len))
            return -1;
    }
    return 0;
}

/* Reads [start, end) in chunks and hashes it; a short read ends the file early. */
static int tree_hash_range(struct tree_lister *l, int fd, uint64_t start, uint64_t end)
{
    while (start < end) {
        size_t want = end - start > TREE_SMALL_FILE ? TREE_SMALL_FILE : (size_t)(end - start);
        ssize_t n = pread(fd, l->data.p, want, (off_t)start);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        if (tree_hash_blocks(l->h, (unsigned char *)l->data.p, (size_t)n, start))
            return -1;
        start += (uint64_t)n;
    }
    return 0;
}

/* A large file's data regions only; holes are zero and would be skipped anyway. */
static int tree_hash_sparse(struct tree_lister *l, int fd, uint64_t size)
{
    uint64_t off = 0, cursor = 0;
    while (off < size) {
        off_t data = lseek(fd, (off_t)off, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break;
        off_t hole = data < 0 ? (off_t)size : lseek(fd, data, SEEK_HOLE);
        if (data < 0)
            data = (off_t)off;          /* no SEEK_DATA support: read it all */
        if (hole < 0 || (uint64_t)hole > size)
            hole = (off_t)size;
        uint64_t start = (uint64_t)data / TREE_BLOCK * TREE_BLOCK;
        uint64_t end = ((uint64_t)hole + TREE_BLOCK - 1) / TREE_BLOCK * TREE_BLOCK;
        if (start < cursor)
            start = cursor;
        if (end > size)
            end = size;
        if (tree_hash_range(l, fd, start, end))
            return -1;
        cursor = end;
        off = (uint64_t)hole > off ? (uint64_t)hole : off + TREE_BLOCK;
    }
    return 0;
}

/* Small files: the plain hash of their bytes (what md5sum prints); one pread. */
static int tree_hash_small(struct tree_lister *l, int fd, uint64_t size)
{
    size_t have = 0;
    while (have < size) {
        ssize_t n = pread(fd, l->data.p + have, size - have, (off_t)have);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        have += (size_t)n;
    }
    return l->h->update(l->h->ctx, l->data.p, have);
}

static int tree_contents_fd(struct tree_lister *l, int fd, uint64_t size, struct buf *b)
{
    if (buf_reserve(&l->data, size < TREE_SMALL_FILE ? size + 1 : TREE_SMALL_FILE) ||
        l->h->begin(l->h->ctx))
        return -1;
    int rc = size <= TREE_SMALL_FILE ? tree_hash_small(l, fd, size) : tree_hash_sparse(l, fd, size);
    return rc ? -1 : l->h->hex(l->h->ctx, b);
}

static int tree_hash_zeros(const struct tree_hash *h, uint64_t n)
{
    static const unsigned char zero[TREE_BLOCK];
    for (; n; n -= n < TREE_BLOCK ? n : TREE_BLOCK)
        if (h->update(h->ctx, zero, n < TREE_BLOCK ? n : TREE_BLOCK))
            return -1;
    return 0;
}

/* The hash tree_contents_fd makes by reading, from extents (ascending, block-aligned):
 * small files whole, holes as zeros; large ones per non-zero block. */
static int tree_contents_ext(const struct tree_hash *h, const struct tree_entry *e, struct buf *b)
{
    uint64_t size = (uint64_t)e->st.st_size, pos = 0;
    if (h->begin(h->ctx))
        return -1;
    for (size_t i = 0; i < e->next; i++) {
        const struct tree_extent *x = &e->ext[i];
        if (x->off >= size || x->off < pos)
            continue;
        size_t len = size - x->off < x->len ? (size_t)(size - x->off) : x->len;
        int rc = size <= TREE_SMALL_FILE
                     ? tree_hash_zeros(h, x->off - pos) || h->update(h->ctx, x->data, len)
                     : tree_hash_blocks(h, x->data, len, x->off);
        if (rc)
            return -1;
        pos = x->off + len;
    }
    if (size <= TREE_SMALL_FILE && tree_hash_zeros(h, size - pos))
        return -1;
    return h->hex(h->ctx, b);
}

/* ---- extended attributes ---- */

static int tree_cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

ssize_t tree_xattr_read(struct buf *b, int fd, const char *name)
{
    size_t ask = TREE_XATTR_FIRST_ASK;   /* never 0: a zero-size call only reports the length */
    for (;;) {
        if (buf_reserve(b, ask + 1))
            return -1;
        ssize_t n = name ? fgetxattr(fd, name, b->p, ask) : flistxattr(fd, b->p, ask);
        if (n >= 0 || errno != ERANGE)
            return n;
        ssize_t need = name ? fgetxattr(fd, name, NULL, 0) : flistxattr(fd, NULL, 0);
        if (need < 0)
            return -1;
        ask = (size_t)need > ask ? (size_t)need : ask * 2;
    }
}

/* The n bytes of names in l->xlist, sorted into l->xnames; their count or -1. */
static int tree_sort_xnames(struct tree_lister *l, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i += strlen(l->xlist.p + i) + 1)
        count++;
    if (array_reserve(&l->xnames, &l->xnames_cap, count, sizeof *l->xnames))
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i += strlen(l->xlist.p + i) + 1)
        l->xnames[k++] = l->xlist.p + i;
    if (count > 1)
        qsort(l->xnames, count, sizeof *l->xnames, tree_cmp_str);
    return (int)count;
}

static int tree_xattr_item(struct tree_lister *l, struct buf *b, int i, const char *name,
                           const void *value, size_t len)
{
    return buf_printf(b, "%s%s=%zu:", i ? "," : "", name, len) ||
           tree_hash_hex(l->h, value ? value : "", len, b);
}

/* "[name=len:hash,...]" of fd's xattrs, sorted by name. */
static int tree_xattrs_fd(struct tree_lister *l, int fd, struct buf *b)
{
    ssize_t n = tree_xattr_read(&l->xlist, fd, NULL);
    if (n < 0 && (errno == ENOTSUP || errno == ENODATA))
        n = 0;
    if (n < 0 || buf_reserve(&l->xlist, 1))
        return -1;
    l->xlist.p[n] = '\0';    /* a list without a final NUL stays one name */
    int count = tree_sort_xnames(l, (size_t)n);
    if (count < 0 || buf_add(b, "[", 1))
        return -1;
    for (int i = 0; i < count; i++) {
        ssize_t v = tree_xattr_read(&l->xval, fd, l->xnames[i]);
        if (v < 0 && errno == ENODATA)
            continue;           /* a name listed but not readable is absent */
        if (v < 0 || tree_xattr_item(l, b, i, l->xnames[i], l->xval.p, (size_t)v))
            return -1;
    }
    return buf_add(b, "]", 1);
}

static int tree_cmp_xattr(const void *a, const void *b)
{
    return strcmp((*(const struct tree_xattr *const *)a)->name,
                  (*(const struct tree_xattr *const *)b)->name);
}

/* The same text from a handed-over array. */
static int tree_xattrs_array(struct tree_lister *l, const struct tree_entry *e, struct buf *b)
{
    if (array_reserve(&l->xsorted, &l->xsorted_cap, e->nx, sizeof *l->xsorted))
        return -1;
    for (size_t i = 0; i < e->nx; i++)
        l->xsorted[i] = &e->xattrs[i];
    if (e->nx > 1)
        qsort(l->xsorted, e->nx, sizeof *l->xsorted, tree_cmp_xattr);
    int rc = buf_add(b, "[", 1);
    for (size_t i = 0; i < e->nx && !rc; i++)
        rc = tree_xattr_item(l, b, (int)i, l->xsorted[i]->name, l->xsorted[i]->value,
                             l->xsorted[i]->len);
    return rc || buf_add(b, "]", 1) ? -1 : 0;
}

/* ---- the line ---- */

static char tree_type_char(mode_t m)
{
    return S_ISREG(m) ? 'f' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISFIFO(m) ? 'p'
         : S_ISSOCK(m) ? 's' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : '?';
}

int tree_path_text(struct buf *b, const char *p)
{
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        int rc = (c <= ' ' || c == '\\' || c == 0x7f) ? buf_printf(b, "\\x%02x", c) : buf_add(b, p, 1);
        if (rc)
            return -1;
    }
    return 0;
}

/* A directory has no size here; a device node shows its number instead (mknod). */
static int tree_size_text(struct buf *b, const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return buf_add(b, " - ", 3);
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        return buf_printf(b, " %u:%u ", major(st->st_rdev), minor(st->st_rdev));
    return buf_printf(b, " %lld ", (long long)st->st_size);
}

/* Times are out of the state by default: a file system's clock stamps them, so they differ
 * between file systems and from run to run, and file systems differ legitimately in which
 * calls update them and how finely (seconds on 128-byte ext2/ext4 inodes). With compare_mtime,
 * an mtime before 2017-07-14 (1.5e9 s) can only have been set by utimes and is kept exactly;
 * a later one was stamped and reads "now": so a call that must (or must not) stamp it shows. */
#define TREE_MTIME_SET_BEFORE 1500000000
static int tree_mtime_text(struct buf *b, const struct stat *st)
{
    if (st->st_mtim.tv_sec >= TREE_MTIME_SET_BEFORE)
        return buf_add(b, "m=now ", 6);
    return buf_printf(b, "m=%lld.%09ld ", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

int tree_line_head(struct tree_lister *l, const struct tree_entry *e, struct buf *b)
{
    const struct stat *st = &e->st;
    unsigned ig = l->o->ignore;
    int rc = tree_path_text(b, e->path) || buf_printf(b, " %c ", tree_type_char(st->st_mode));
    unsigned mode_bits = (ig & TREE_IGNORE_SETID) ? 01777 : 07777;
    int root = e->path[0] == '/' && e->path[1] == '\0';
    rc = rc || ((ig & TREE_IGNORE_MODE) ? buf_add(b, "-", 1)
                                        : buf_printf(b, "%04o", (unsigned)(st->st_mode & mode_bits)));
    rc = rc || ((S_ISDIR(st->st_mode) && (ig & TREE_IGNORE_DIR_NLINK)) ||
                (root && (ig & TREE_IGNORE_ROOT_NLINK))
                    ? buf_add(b, " -", 2) : buf_printf(b, " %ld", (long)st->st_nlink - e->nlink_adj));
    rc = rc || ((ig & TREE_IGNORE_OWNER) ? buf_add(b, " - -", 4)
                : buf_printf(b, " %u %u", (unsigned)st->st_uid, (unsigned)st->st_gid));
    rc = rc || tree_size_text(b, st) || (l->o->mtime && tree_mtime_text(b, st));
    return rc ? -1 : 0;
}

int tree_line_tail(struct tree_lister *l, const struct tree_entry *e, struct buf *b)
{
    mode_t m = e->st.st_mode;
    int rc;
    if (S_ISREG(m))
        rc = e->fd >= 0 ? tree_contents_fd(l, e->fd, (uint64_t)e->st.st_size, b)
                        : tree_contents_ext(l->h, e, b);
    else if (S_ISLNK(m))
        rc = tree_hash_hex(l->h, e->target ? e->target : "", e->tlen, b);
    else
        rc = buf_add(b, "-", 1);
    rc = rc || buf_add(b, " ", 1);
    if (rc)
        return -1;
    if ((!S_ISREG(m) && !S_ISDIR(m)) || (l->o->ignore & TREE_IGNORE_XATTRS))
        return buf_add(b, "-", 1);
    return e->fd >= 0 ? tree_xattrs_fd(l, e->fd, b) : tree_xattrs_array(l, e, b);
}

int tree_line(struct tree_lister *l, const struct tree_entry *e, struct buf *b)
{
    return tree_line_head(l, e, b) || tree_line_tail(l, e, b) ? -1 : 0;
}

void tree_lister_free(struct tree_lister *l)
{
    buf_free(&l->data);
    buf_free(&l->xlist);
    buf_free(&l->xval);
    free(l->xnames);
    free(l->xsorted);
    l->xnames = NULL;
    l->xsorted = NULL;
    l->xnames_cap = l->xsorted_cap = 0;
}
