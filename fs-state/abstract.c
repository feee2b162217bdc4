/* Abstract state: walks a mounted tree without following symlinks and digests what two file systems must agree on. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "abstract.h"
#include "ops.h"

/* Files up to this size are digested whole with one pread. Larger ones skip holes with
 * SEEK_DATA and are digested per block, all-zero blocks left out, so holes equal written zeros. */
#define SMALL_FILE (1u << 20)
#define BLOCK 4096
#define MD_CACHE 4

/* One tree entry: its raw path (sort key) and its listing line, both in the arena. A regular
 * file's line ends in a tail (contents, xattrs) written once its deferred read is done. */
struct entry {
    size_t path_off, line_off, line_len, tail_off, tail_len;
    mode_t mode;                /* type, nlink and size: for abstract_collect_next */
    uint64_t nlink, size;
};

/* A regular file whose contents are read at the end of the walk (see defer_contents). */
struct pending { size_t ent; int fd; uint64_t size; };
#define MAX_PENDING 256

struct buf { char *p; size_t len, cap; };

/* Everything reused from one call to the next, so a walk does no per-entry allocation;
 * per thread, because the engine reads every file system back in its own thread. */
static __thread struct {
    struct { char name[64]; EVP_MD *md; } mds[MD_CACHE];
    int md_next;
    EVP_MD_CTX *ctx, *ectx;
    const EVP_MD *md;
    const struct abstract_opts *o;
    struct buf arena, names, data, xlist, xval;
    struct entry *ents;
    size_t nents, ents_cap;
    struct pending pend[MAX_PENDING];
    size_t npend;
    const char **xnames;
    size_t xnames_cap;
    const struct abs_xattr **xsorted;
    size_t xsorted_cap;
    char path[METIS_PATH_MAX];
    struct abs_tree *collect;       /* abstract_collect_next's target */
} S;

/* ---------- small helpers ---------- */

static int buf_reserve(struct buf *b, size_t need)
{
    if (b->len + need <= b->cap)
        return 0;
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap < b->len + need)
        ncap *= 2;
    char *n = realloc(b->p, ncap);
    if (!n)
        return -1;
    b->p = n;
    b->cap = ncap;
    return 0;
}

static int buf_printf(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return 0;
        }
        if (buf_reserve(b, (size_t)n + 1))
            return -1;
    }
}

static int buf_add(struct buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static const EVP_MD *get_md(const char *name)
{
    if (!name || !*name)
        name = "md5";
    for (int i = 0; i < MD_CACHE; i++)
        if (S.mds[i].md && strcmp(S.mds[i].name, name) == 0)
            return S.mds[i].md;
    if (strlen(name) >= sizeof S.mds[0].name)
        return NULL;
    EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);
    if (!md)
        return NULL;
    int slot = S.md_next++ % MD_CACHE;
    EVP_MD_free(S.mds[slot].md);
    S.mds[slot].md = md;
    snprintf(S.mds[slot].name, sizeof S.mds[slot].name, "%s", name);
    return md;
}

int abstract_digest_len(const char *hash)
{
    const EVP_MD *md = get_md(hash);
    return md ? EVP_MD_get_size(md) : -1;
}

/* Finishes the per-entry digest in S.ectx as lowercase hex appended to b. */
static int finish_hex(struct buf *b)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex(S.ectx, d, &n) || buf_reserve(b, 2 * n + 1))
        return -1;
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < n; i++) {
        b->p[b->len++] = hex[d[i] >> 4];
        b->p[b->len++] = hex[d[i] & 15];
    }
    return 0;
}

static int digest_hex(const void *p, size_t n, struct buf *b)
{
    if (!EVP_DigestInit_ex(S.ectx, S.md, NULL) || !EVP_DigestUpdate(S.ectx, p, n))
        return -1;
    return finish_hex(b);
}

static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t k = strcspn(p, ",");
        size_t t = k;
        while (t && p[t - 1] == ' ')
            t--;
        if (t == n && n && strncmp(p, name, n) == 0)
            return 1;
        p += k;
    }
    return 0;
}

int abstract_parse_ignore(const char *list, unsigned *out, char *err, size_t errlen)
{
    static const struct { const char *name; unsigned bit; } known[] = {
        { "dir_nlink", ABS_IGNORE_DIR_NLINK }, { "xattrs", ABS_IGNORE_XATTRS },
        { "mode", ABS_IGNORE_MODE }, { "owner", ABS_IGNORE_OWNER },
    };
    *out = 0;
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t k = strcspn(p, ",");
        size_t t = k;
        while (t && p[t - 1] == ' ')
            t--;
        if (t == 0)
            break;
        size_t i = 0;
        while (i < sizeof known / sizeof known[0] &&
               !(strlen(known[i].name) == t && strncmp(known[i].name, p, t) == 0))
            i++;
        if (i == sizeof known / sizeof known[0]) {
            snprintf(err, errlen, "unknown ignore name '%.*s' (known: dir_nlink, xattrs, mode, owner)",
                     (int)(t > 40 ? 40 : t), p);
            return -1;
        }
        *out |= known[i].bit;
        p += k;
    }
    return 0;
}

/* ---------- file contents ---------- */

static int all_zero(const unsigned char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static int digest_blocks(const unsigned char *p, size_t n, uint64_t base)
{
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t len = n - i < BLOCK ? n - i : BLOCK;
        if (all_zero(p + i, len))
            continue;
        uint64_t off = base + i;
        if (!EVP_DigestUpdate(S.ectx, &off, sizeof off) || !EVP_DigestUpdate(S.ectx, p + i, len))
            return -1;
    }
    return 0;
}

/* Reads [start, end) in chunks and digests it; a short read ends the file early. */
static int digest_range(int fd, uint64_t start, uint64_t end)
{
    while (start < end) {
        size_t want = end - start > SMALL_FILE ? SMALL_FILE : (size_t)(end - start);
        ssize_t n = pread(fd, S.data.p, want, (off_t)start);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        if (digest_blocks((unsigned char *)S.data.p, (size_t)n, start))
            return -1;
        start += (uint64_t)n;
    }
    return 0;
}

/* Digests a large file's data regions only; holes are zero and would be skipped anyway. */
static int digest_sparse(int fd, uint64_t size)
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
        uint64_t start = (uint64_t)data / BLOCK * BLOCK;
        uint64_t end = ((uint64_t)hole + BLOCK - 1) / BLOCK * BLOCK;
        if (start < cursor)
            start = cursor;
        if (end > size)
            end = size;
        if (digest_range(fd, start, end))
            return -1;
        cursor = end;
        off = (uint64_t)hole > off ? (uint64_t)hole : off + BLOCK;
    }
    return 0;
}

/* Small files: the plain digest of their bytes (what md5sum prints); one pread. */
static int digest_small(int fd, uint64_t size)
{
    size_t have = 0;
    while (have < size) {
        ssize_t n = pread(fd, S.data.p + have, size - have, (off_t)have);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        have += (size_t)n;
    }
    return EVP_DigestUpdate(S.ectx, S.data.p, have) ? 0 : -1;
}

static int content_hex(int fd, uint64_t size, struct buf *line)
{
    if (buf_reserve(&S.data, size < SMALL_FILE ? size + 1 : SMALL_FILE) ||
        !EVP_DigestInit_ex(S.ectx, S.md, NULL))
        return -1;
    int rc = size <= SMALL_FILE ? digest_small(fd, size) : digest_sparse(fd, size);
    return rc ? -1 : finish_hex(line);
}

/* ---------- extended attributes ---------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Calls f into b, growing b on ERANGE; returns the length or -1. */
static ssize_t xattr_call(struct buf *b, ssize_t (*f)(int, const char *, void *, size_t, void *),
                          int fd, const char *name)
{
    size_t ask = ABSTRACT_XATTR_FIRST_ASK;   /* never 0: a zero-size call only reports the length */
    for (;;) {
        if (buf_reserve(b, ask + 1))
            return -1;
        ssize_t n = f(fd, name, b->p, ask, NULL);
        if (n >= 0 || errno != ERANGE)
            return n;
        ssize_t need = f(fd, name, NULL, 0, NULL);
        if (need < 0)
            return -1;
        ask = (size_t)need > ask ? (size_t)need : ask * 2;
    }
}

static ssize_t do_list(int fd, const char *name, void *p, size_t n, void *unused)
{
    return flistxattr(fd, p, n);
}

static ssize_t do_get(int fd, const char *name, void *p, size_t n, void *unused)
{
    return fgetxattr(fd, name, p, n);
}

static int sort_xnames(size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i += strlen(S.xlist.p + i) + 1)
        count++;
    if (count > S.xnames_cap) {
        const char **nx = realloc(S.xnames, count * sizeof *nx);
        if (!nx)
            return -1;
        S.xnames = nx;
        S.xnames_cap = count;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i += strlen(S.xlist.p + i) + 1)
        S.xnames[k++] = S.xlist.p + i;
    if (count > 1)
        qsort(S.xnames, count, sizeof *S.xnames, cmp_str);
    return (int)count;
}

static int xattr_item(struct buf *line, int i, const char *name, const void *value, size_t len)
{
    return buf_printf(line, "%s%s=%zu:", i ? "," : "", name, len) ||
           digest_hex(value ? value : "", len, line);
}

/* Appends "[name=len:hash,...]" of fd's xattrs, sorted by name. */
static int xattrs_text(int fd, struct buf *line)
{
    ssize_t n = xattr_call(&S.xlist, do_list, fd, NULL);
    if (n < 0 && (errno == ENOTSUP || errno == ENODATA))
        n = 0;
    if (n < 0 || buf_reserve(&S.xlist, 1))
        return -1;
    S.xlist.p[n] = '\0';    /* a list without a final NUL stays one name */
    int count = sort_xnames((size_t)n);
    if (count < 0 || buf_add(line, "[", 1))
        return -1;
    for (int i = 0; i < count; i++) {
        ssize_t v = xattr_call(&S.xval, do_get, fd, S.xnames[i]);
        if (v < 0 && errno == ENODATA)
            continue;           /* a name listed but not readable is absent */
        if (v < 0 || xattr_item(line, i, S.xnames[i], S.xval.p, (size_t)v))
            return -1;
    }
    return buf_add(line, "]", 1);
}

/* ---------- entries ---------- */

static char type_char(mode_t m)
{
    return S_ISREG(m) ? 'f' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISFIFO(m) ? 'p'
         : S_ISSOCK(m) ? 's' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : '?';
}

/* The path as it appears in a listing: spaces, backslashes and control bytes escaped. */
static int add_path_text(struct buf *b, const char *p)
{
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        int rc = (c <= ' ' || c == '\\' || c == 0x7f) ? buf_printf(b, "\\x%02x", c) : buf_add(b, p, 1);
        if (rc)
            return -1;
    }
    return 0;
}

static int xattrs_or_dash(int fd, struct buf *b)
{
    if (fd >= 0 && !(S.o->ignore & ABS_IGNORE_XATTRS))
        return xattrs_text(fd, b);
    return buf_add(b, "-", 1);
}

/* Writes the tail of a pending file's entry: its contents digest and xattrs. */
static int finish_pending(const struct pending *p)
{
    struct buf *b = &S.arena;
    struct entry *e = &S.ents[p->ent];
    e->tail_off = b->len;
    int rc = content_hex(p->fd, p->size, b) || buf_add(b, " ", 1) || xattrs_or_dash(p->fd, b);
    e->tail_len = b->len - e->tail_off;
    return rc ? -1 : 0;
}

/* Reads every pending file's contents, in the order their reads were started. */
static int flush_pending(void)
{
    int rc = 0;
    for (size_t i = 0; i < S.npend; i++) {
        if (!rc && finish_pending(&S.pend[i]))
            rc = -1;
        close(S.pend[i].fd);
    }
    S.npend = 0;
    return rc;
}

/* On a freshly mounted kernel fs each file's first read is one loop-device round trip;
 * starting all of them before waiting for any lets the loop worker serve them back to back
 * (12 files of 3-4 KiB on ext4 256 KiB: 0.55-0.74 ms instead of 0.91-1.38 ms). Takes fd;
 * returns 1 once the file is queued, -1 on failure. */
static int defer_contents(int fd, uint64_t size)
{
    if (S.npend == MAX_PENDING && flush_pending())
        return -1;
    if (size && size <= SMALL_FILE)
        posix_fadvise(fd, 0, (off_t)size, POSIX_FADV_WILLNEED);
    S.pend[S.npend++] = (struct pending){ S.nents - 1, fd, size };
    return 1;
}

/* A directory has no size here; a device node shows its number instead (mknod). */
static int size_text(struct buf *b, const struct stat *st)
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
#define MTIME_SET_BEFORE 1500000000
static int mtime_text(struct buf *b, const struct stat *st)
{
    if (st->st_mtim.tv_sec >= MTIME_SET_BEFORE)
        return buf_add(b, "m=now ", 6);
    return buf_printf(b, "m=%lld.%09ld ", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

/* Starts the entry for S.path: its sort key and the line up to and including the size. */
static struct entry *entry_head(const struct stat *st, long nlink_adj)
{
    unsigned ig = S.o->ignore;
    int dir = S_ISDIR(st->st_mode);
    struct buf *b = &S.arena;
    if (S.nents == S.ents_cap) {
        size_t ncap = S.ents_cap ? 2 * S.ents_cap : 64;
        struct entry *ne = realloc(S.ents, ncap * sizeof *ne);
        if (!ne)
            return NULL;
        S.ents = ne;
        S.ents_cap = ncap;
    }
    struct entry *e = &S.ents[S.nents];
    e->path_off = b->len;
    e->mode = st->st_mode;
    e->nlink = (uint64_t)st->st_nlink - (uint64_t)nlink_adj;
    e->size = (uint64_t)st->st_size;
    if (buf_add(b, S.path, strlen(S.path) + 1))
        return NULL;
    e->line_off = b->len;
    int rc = add_path_text(b, S.path) || buf_printf(b, " %c ", type_char(st->st_mode));
    rc = rc || ((ig & ABS_IGNORE_MODE) ? buf_add(b, "-", 1)
                                       : buf_printf(b, "%04o", (unsigned)(st->st_mode & 07777)));
    rc = rc || ((dir && (ig & ABS_IGNORE_DIR_NLINK)) ? buf_add(b, " -", 2)
               : buf_printf(b, " %ld", (long)st->st_nlink - nlink_adj));
    rc = rc || ((ig & ABS_IGNORE_OWNER) ? buf_add(b, " - -", 4)
               : buf_printf(b, " %u %u", (unsigned)st->st_uid, (unsigned)st->st_gid));
    rc = rc || size_text(b, st) || (S.o->mtime && mtime_text(b, st));
    e->tail_off = e->tail_len = 0;
    return rc ? NULL : e;
}

/* Adds an entry for S.path; fd (or -1) reads contents/xattrs, target is a symlink's.
 * A regular file's fd is taken over (1 is returned): its contents are read later. */
static int add_entry(const struct stat *st, int fd, const char *target, size_t tlen, long nlink_adj)
{
    struct buf *b = &S.arena;
    struct entry *e = entry_head(st, nlink_adj);
    if (!e)
        return -1;
    int rc = 0;
    if (S_ISREG(st->st_mode) && fd >= 0) {
        e->line_len = b->len - e->line_off;
        S.nents++;
        return defer_contents(fd, (uint64_t)st->st_size);
    }
    if (target)
        rc = digest_hex(target, tlen, b);
    else
        rc = buf_add(b, "-", 1);
    rc = rc || buf_add(b, " ", 1);
    rc = rc || xattrs_or_dash(fd, b);
    if (rc)
        return -1;
    e->line_len = b->len - e->line_off;
    S.nents++;
    return 0;
}

/* ---------- the walk ---------- */

static int walk_dir(int dfd, size_t plen, int is_root);

/* Reads every name of dfd onto the name stack as "<d_type><name>\0"; counts excluded directories. */
static int collect_names(int dfd, int is_root, long *excluded_dirs)
{
    char dbuf[16384] __attribute__((aligned(8)));
    for (;;) {
        ssize_t n = getdents64(dfd, dbuf, sizeof dbuf);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(dbuf + off);
            off += d->d_reclen;
            const char *nm = d->d_name;
            if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
                continue;
            if (is_root && list_has(S.o->exclude, nm)) {
                struct stat st;
                if (d->d_type == DT_DIR ||
                    (d->d_type == DT_UNKNOWN && fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                     S_ISDIR(st.st_mode)))
                    (*excluded_dirs)++;
                continue;
            }
            char t = (char)d->d_type;
            if (buf_add(&S.names, &t, 1) || buf_add(&S.names, nm, strlen(nm) + 1))
                return -1;
        }
    }
}

static int open_child(int dfd, const char *name, int flags)
{
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM)    /* O_NOATIME needs ownership or CAP_FOWNER */
        fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

/* Regular files and directories are opened (contents, xattrs, recursion); the rest only stat'ed. */
static int visit(int dfd, const char *name, unsigned char dtype, size_t plen)
{
    struct stat st;
    if (dtype == DT_UNKNOWN) {
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
            return -1;
        dtype = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_LNK;
    }
    if (dtype == DT_REG || dtype == DT_DIR) {
        int dir = dtype == DT_DIR;
        int fd = open_child(dfd, name, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
            return -1;
        if (fstat(fd, &st)) {
            close(fd);
            return -1;
        }
        int rc = add_entry(&st, fd, NULL, 0, 0);
        if (rc == 1)
            return 0;           /* a regular file, now pending */
        rc = rc || (dir && walk_dir(fd, plen, 0));
        close(fd);
        return rc ? -1 : 0;
    }
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return -1;
    if (!S_ISLNK(st.st_mode))
        return add_entry(&st, -1, NULL, 0, 0) < 0 ? -1 : 0;
    char target[METIS_PATH_MAX];
    ssize_t n = readlinkat(dfd, name, target, sizeof target);
    if (n < 0)
        return -1;
    return add_entry(&st, -1, target, (size_t)n, 0) < 0 ? -1 : 0;
}

/* Walks the names below dfd; S.path holds the directory's path (plen bytes, "" for the root). */
static int walk_dir(int dfd, size_t plen, int is_root)
{
    size_t start = S.names.len;
    long excluded_dirs = 0;
    if (collect_names(dfd, is_root, &excluded_dirs))
        return -1;
    size_t end = S.names.len;
    if (is_root) {
        struct stat st;
        /* Excluded directories still count in the root's link count on file systems that count. */
        snprintf(S.path, sizeof S.path, "/");
        if (fstat(dfd, &st) || add_entry(&st, dfd, NULL, 0, excluded_dirs) < 0)
            return -1;
        S.path[0] = '\0';
    }
    for (size_t i = start; i < end;) {
        unsigned char dtype = (unsigned char)S.names.p[i];
        /* Copied out: recursion may move the name stack. */
        char name[256 + 1];
        snprintf(name, sizeof name, "%s", S.names.p + i + 1);
        i += strlen(S.names.p + i + 1) + 2;
        size_t nlen = strlen(name);
        if (plen + 1 + nlen >= sizeof S.path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        S.path[plen] = '/';
        memcpy(S.path + plen + 1, name, nlen + 1);
        if (visit(dfd, name, dtype, plen + 1 + nlen))
            return -1;
        S.path[plen] = '\0';
    }
    S.names.len = start;
    return 0;
}

static int cmp_entry(const void *a, const void *b, void *arena)
{
    const struct entry *x = a, *y = b;
    return strcmp((char *)arena + x->path_off, (char *)arena + y->path_off);
}

static int init_state(const struct abstract_opts *o)
{
    S.o = o;
    S.md = get_md(o->hash);
    if (!S.md) {
        errno = EINVAL;
        return -1;
    }
    if (!S.ctx && !(S.ctx = EVP_MD_CTX_new()))
        return -1;
    if (!S.ectx && !(S.ectx = EVP_MD_CTX_new()))
        return -1;
    S.arena.len = S.names.len = 0;
    S.nents = S.npend = 0;
    S.path[0] = '\0';
    return 0;
}

/* ---------- the entry list for the input driver ---------- */

void abstract_collect_next(struct abs_tree *t)
{
    S.collect = t;
}

void abstract_tree_free(struct abs_tree *t)
{
    free(t->e);
    free(t->names);
    memset(t, 0, sizeof *t);
}

static int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *np = realloc(*p, n * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = n;
    return 0;
}

/* Copies the sorted entries to the collect target (once: the request is used up). */
static int collect_entries(void)
{
    struct abs_tree *t = S.collect;
    S.collect = NULL;
    t->n = t->len = 0;
    if (grow_array((void **)&t->e, &t->cap, S.nents, sizeof *t->e))
        return -1;
    for (size_t i = 0; i < S.nents; i++) {
        const struct entry *e = &S.ents[i];
        const char *path = S.arena.p + e->path_off;
        size_t n = strlen(path) + 1;
        if (grow_array((void **)&t->names, &t->ncap, t->len + n, 1))
            return -1;
        memcpy(t->names + t->len, path, n);
        t->e[t->n++] = (struct abs_tree_entry){ t->len, e->mode, e->nlink, e->size };
        t->len += n;
    }
    return 0;
}

/* Digests the sorted lines (each with its newline) and copies them to listing. */
static int finish_digest(unsigned char *out, FILE *listing)
{
    qsort_r(S.ents, S.nents, sizeof *S.ents, cmp_entry, S.arena.p);
    if (S.collect && collect_entries())
        return -1;
    if (!EVP_DigestInit_ex(S.ctx, S.md, NULL))
        return -1;
    for (size_t i = 0; i < S.nents; i++) {
        const struct entry *e = &S.ents[i];
        const char *line = S.arena.p + e->line_off, *tail = S.arena.p + e->tail_off;
        if (!EVP_DigestUpdate(S.ctx, line, e->line_len) ||
            !EVP_DigestUpdate(S.ctx, tail, e->tail_len) || !EVP_DigestUpdate(S.ctx, "\n", 1))
            return -1;
        if (listing)
            fprintf(listing, "%.*s%.*s\n", (int)e->line_len, line, (int)e->tail_len, tail);
    }
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex(S.ctx, out, &n))
        return -1;
    return (int)n;
}

int abstract_state(int rootfd, const struct abstract_opts *o, unsigned char *out, FILE *listing)
{
    if (init_state(o))
        return -errno;
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = walk_dir(fd, 0, 1);
    int saved = errno;
    if (flush_pending() && !rc) {
        rc = -1;
        saved = errno;
    }
    close(fd);
    if (rc)
        return -(saved ? saved : EIO);
    return abstract_end(out, listing);
}

/* ---------- entries from memory (a RefFS dump) ---------- */

int abstract_begin(const struct abstract_opts *o)
{
    return init_state(o) ? -errno : 0;
}

int abstract_excluded(const struct abstract_opts *o, const char *name)
{
    return list_has(o->exclude, name);
}

/* Feeds n zero bytes to the entry digest. */
static int digest_zeros(uint64_t n)
{
    static const unsigned char zero[BLOCK];
    for (; n; n -= n < BLOCK ? n : BLOCK)
        if (!EVP_DigestUpdate(S.ectx, zero, n < BLOCK ? n : BLOCK))
            return -1;
    return 0;
}

/* The same digest content_hex makes by reading: small files whole, holes as zeros; large
 * ones per non-zero block. Extents are ascending and block-aligned. */
static int extents_hex(const struct abs_entry *e, struct buf *b)
{
    uint64_t size = (uint64_t)e->st.st_size, pos = 0;
    if (!EVP_DigestInit_ex(S.ectx, S.md, NULL))
        return -1;
    for (size_t i = 0; i < e->next; i++) {
        const struct abs_extent *x = &e->ext[i];
        if (x->off >= size || x->off < pos)
            continue;
        size_t len = size - x->off < x->len ? (size_t)(size - x->off) : x->len;
        int rc = size <= SMALL_FILE
                     ? digest_zeros(x->off - pos) || !EVP_DigestUpdate(S.ectx, x->data, len)
                     : digest_blocks(x->data, len, x->off);
        if (rc)
            return -1;
        pos = x->off + len;
    }
    if (size <= SMALL_FILE && digest_zeros(size - pos))
        return -1;
    return finish_hex(b);
}

static int cmp_xattr(const void *a, const void *b)
{
    return strcmp((*(const struct abs_xattr *const *)a)->name,
                  (*(const struct abs_xattr *const *)b)->name);
}

static int xattr_array_text(const struct abs_entry *e, struct buf *b)
{
    if (e->nx > S.xsorted_cap) {
        const struct abs_xattr **v = realloc(S.xsorted, e->nx * sizeof *v);
        if (!v)
            return -1;
        S.xsorted = v;
        S.xsorted_cap = e->nx;
    }
    for (size_t i = 0; i < e->nx; i++)
        S.xsorted[i] = &e->xattrs[i];
    if (e->nx > 1)              /* S.xsorted is NULL until an entry has xattrs */
        qsort(S.xsorted, e->nx, sizeof *S.xsorted, cmp_xattr);
    int rc = buf_add(b, "[", 1);
    for (size_t i = 0; i < e->nx && !rc; i++)
        rc = xattr_item(b, (int)i, S.xsorted[i]->name, S.xsorted[i]->value, S.xsorted[i]->len);
    return rc || buf_add(b, "]", 1) ? -1 : 0;
}

int abstract_add(const struct abs_entry *e, long nlink_adj)
{
    if (snprintf(S.path, sizeof S.path, "%s", e->path) >= (int)sizeof S.path)
        return -ENAMETOOLONG;
    struct buf *b = &S.arena;
    struct entry *en = entry_head(&e->st, nlink_adj);
    int reg = S_ISREG(e->st.st_mode), lnk = S_ISLNK(e->st.st_mode);
    int rc = !en;
    rc = rc || (reg ? extents_hex(e, b) : lnk ? digest_hex(e->target, e->tlen, b)
                                                : buf_add(b, "-", 1));
    rc = rc || buf_add(b, " ", 1);
    rc = rc || ((reg || S_ISDIR(e->st.st_mode)) && !(S.o->ignore & ABS_IGNORE_XATTRS)
                    ? xattr_array_text(e, b) : buf_add(b, "-", 1));
    if (rc)
        return -EIO;
    en->line_len = b->len - en->line_off;
    S.nents++;
    return 0;
}

int abstract_entry_line(const struct abs_entry *e, long nlink_adj, char **line)
{
    size_t arena = S.arena.len, n = S.nents;
    int rc = abstract_add(e, nlink_adj);
    if (rc == 0) {
        const struct entry *en = &S.ents[n];
        *line = malloc(en->line_len);
        if (*line)
            memcpy(*line, S.arena.p + en->line_off, en->line_len);
        rc = *line ? (int)en->line_len : -ENOMEM;
    }
    S.arena.len = arena;        /* taken back: the caller adds the line when it wants it */
    S.nents = n;
    return rc;
}

int abstract_add_line(const char *path, const char *line, size_t len)
{
    if (S.nents == S.ents_cap) {
        size_t ncap = S.ents_cap ? 2 * S.ents_cap : 64;
        struct entry *ne = realloc(S.ents, ncap * sizeof *ne);
        if (!ne)
            return -ENOMEM;
        S.ents = ne;
        S.ents_cap = ncap;
    }
    struct entry *en = &S.ents[S.nents];
    en->path_off = S.arena.len;
    if (buf_add(&S.arena, path, strlen(path) + 1))
        return -ENOMEM;
    en->line_off = S.arena.len;
    if (buf_add(&S.arena, line, len))
        return -ENOMEM;
    en->line_len = len;
    en->tail_off = en->tail_len = 0;
    S.nents++;
    return 0;
}

int abstract_end(unsigned char *out, FILE *listing)
{
    int rc = finish_digest(out, listing);
    return rc < 0 ? -EIO : rc;
}
