/* Standalone reproducer written by metis-replay emit-c from tests/targets/ntfs-3g/sgid-gid/trace: 4 operations on fs ntfs-3g (FUSE), checked against what the reference fs reffs did and its final tree. */
/* Build: cc -o repro repro.c   Run: ./repro MOUNT_POINT (run.sh makes the fs).
   Exit 0: every step and the final tree match the reference's; 1: one differs. */
#define FS_NAME "ntfs-3g"
#define REF_NAME "reffs"
#define NSTEPS 4
/* Metis runs with umask 0: modes are drawn whole. */
#define UMASK 0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char EXCLUDE[] = "lost+found,";
static const int EQUIV[][2] = { { 0, 0 } };
#define IGNORE 0u
/* The run's per-file bound, past which Metis refuses INSERT_RANGE (ops.h). */
#define INSERT_CAP 16386ull
/* The bytes Metis writes: splitmix64 of the write's seed, 8 bytes at a time, little end first. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char *data(uint64_t seed, size_t len)
{
    static unsigned char *buf;
    static size_t cap;
    if (len + 8 > cap) {
        cap = len + 8;
        buf = realloc(buf, cap);
        if (!buf) {
            perror("repro: data");
            exit(2);
        }
    }
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = splitmix64(&seed);
        for (int k = 0; k < 8; k++)
            buf[i + k] = (unsigned char)(v >> (8 * k));
    }
    return buf;
}

static const char *ename(int e)
{
    static char num[16];
    if (e == 0)
        return "0";
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
    if (strerrorname_np(e))
        return strerrorname_np(e);
#endif
    snprintf(num, sizeof num, "%d", e);
    return num;
}

static int verbose;
/* The first difference from the reference: the verdict. */
static char first_diff[2048];

static int equivalent(int err, int ref_err)
{
    for (int i = 0; EQUIV[i][0]; i++)
        if (EQUIV[i][0] == err && EQUIV[i][1] == ref_err)
            return 1;
    return 0;
}

/* Prints one step; 1 when it differs from what the reference file system did. */
static int report(int step, const char *text, long ret, long ref_ret, int ref_err,
                  int have_rec, long rec_ret, int rec_err)
{
    int err = ret < 0 ? (errno ? errno : EIO) : 0;
    int differs = ret != ref_ret || (err != ref_err && !equivalent(err, ref_err));
    char line[1600];
    snprintf(line, sizeof line, "step %d: %s -> ret=%ld errno=%s; reference " REF_NAME
             ": ret=%ld errno=%s", step, text, ret, ename(err), ref_ret, ename(ref_err));
    printf("%s", line);
    if (have_rec)
        printf("; recorded on " FS_NAME ": ret=%ld errno=%s", rec_ret, ename(rec_err));
    printf("%s\n", differs ? "  DIFFERS FROM THE REFERENCE" : "");
    if (differs && !first_diff[0])
        snprintf(first_diff, sizeof first_diff, "%s", line);
    return differs;
}

static void pre_report(const char *text, long ret)
{
    if (verbose || (ret < 0 && errno != EBADF))
        printf("setup: %s -> ret=%ld errno=%s\n", text, ret, ret < 0 ? ename(errno) : "0");
}

/* copy_range: called again until the range is done or the source ends, as Metis does. */
static long copy_all(int in, int out, off_t off_in, off_t off_out, uint64_t len)
{
    uint64_t total = 0;
    while (len > 0) {
        ssize_t n = copy_file_range(in, &off_in, out, &off_out, len > (64u << 20) ? (64u << 20) : len, 0);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        total += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return (long)total;
}

/* Metis fails an INSERT_RANGE that would take a file past its run's per-file bound with EFBIG. */
static int insert_past_cap(int fd, uint64_t len)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size + len > INSERT_CAP;
}

/* Growable byte buffers and arrays: the one way Metis grows memory by doubling. */
#ifndef METIS_BUF_H
#define METIS_BUF_H

#include <stddef.h>

/* Bytes p[0..len) of cap allocated; p stays NULL until the first byte is added. */
struct buf {
    char *p;
    size_t len, cap;
};

/* Makes room for need more bytes after len; 0, or -1 with errno (ENOMEM). */
int buf_reserve(struct buf *b, size_t need);
int buf_add(struct buf *b, const void *p, size_t n);
/* Appends formatted text; p stays NUL-terminated after it (the NUL is not counted in len). */
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

/* Grows the array *p of *cap elements of elem bytes to hold at least need; doubling, so that
 * n pushes cost O(n). 0, or -1 with errno, *p untouched. */
int array_reserve(void *p, size_t *cap, size_t need, size_t elem);

#endif
/* The tree model: what two file systems must agree on, the one vocabulary of the walk, the listing, the digest and the comparison. */
#ifndef METIS_TREE_H
#define METIS_TREE_H

/* Libc only (with buf.h): the walk and the listing are also pasted into every standalone
 * reproducer emit-c writes (replayer/rules.mk). The digest over them is tree/digest.h. */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>


/* Attributes a comparison or a digest leaves out ([fs] ignore in a config). */
enum {
    TREE_IGNORE_DIR_NLINK = 1 << 0,
    TREE_IGNORE_XATTRS    = 1 << 1,
    TREE_IGNORE_MODE      = 1 << 2,
    TREE_IGNORE_OWNER     = 1 << 3,
    TREE_IGNORE_ROOT_NLINK = 1 << 4,    /* the root directory's link count only ([fs] lacks) */
    TREE_IGNORE_SETID     = 1 << 5,     /* S_ISUID and S_ISGID of every mode ([fs] lacks) */
};

/* The one listing format: one line per entry, sorted by path, fields separated by one space:
 *   PATH TYPE MODE NLINK UID GID SIZE [m=MTIME] DATA XATTRS
 * An ignored attribute reads "-"; the m= field is there only with compare_mtime.
 * PATH escapes blanks, control bytes and backslashes as \xHH. TYPE is one of f d l p s c b.
 * SIZE is "-" for a directory and MAJOR:MINOR for a device. DATA is the hex hash of a
 * regular file's contents or a symlink's target, else "-". XATTRS is "[name=len:hash,...]"
 * sorted by name for files and directories, else "-". The hash is the caller's (struct
 * tree_hash): the configured digest in Metis, FNV-1a in a reproducer. */
enum tree_field {
    TREE_F_PATH, TREE_F_TYPE, TREE_F_MODE, TREE_F_NLINK, TREE_F_UID, TREE_F_GID, TREE_F_SIZE,
    TREE_F_DATA, TREE_F_XATTRS, TREE_F_COUNT
};

/* Paths of a walk; longer ones fail with ENAMETOOLONG (Metis's own paths are shorter). */
#define TREE_PATH_MAX 4096
/* Files up to this size are hashed whole. Larger ones skip holes with SEEK_DATA and are
 * hashed per block, all-zero blocks left out, so that holes equal written zeros. */
#define TREE_SMALL_FILE (1u << 20)
#define TREE_BLOCK 4096
/* What a read-back's xattr call asks for first: the kernel zeroes a buffer of the size asked,
 * 64 KiB at the largest, and a FUSE daemon may allocate one too, on every call (2.2 against
 * 6.5 us per get+list pair on tmpfs). Longer values and lists cost one more call. */
#define TREE_XATTR_FIRST_ASK 4096

/* What a listing or digest shows of a tree. */
struct tree_opts {
    const char *hash;           /* the digest's name ("md5"); not used by the listing alone */
    const char *exclude;        /* comma-separated root entries left out (lost+found, ...) */
    unsigned ignore;            /* TREE_IGNORE_* */
    int mtime;                  /* 1: each entry's mtime too ([run] compare_mtime) */
};

/* Parses a config "ignore" list (dir_nlink, xattrs, mode, owner); 0, or -1 with the unknown
 * name in err. */
int tree_parse_ignore(const char *list, unsigned *out, char *err, size_t errlen);
/* 1 if name is in the comma-separated list exclude; blanks around a name do not count. */
int tree_excluded(const char *exclude, const char *name);

/* One entry of a tree. A walk gives fd (open on a regular file or directory, else -1) to read
 * contents and xattrs from; a file system that hands its entries over (RefFS's dump, logical
 * restore's recorded trees) sets fd to -1 and gives them in ext and xattrs. */
struct tree_extent { uint64_t off; const void *data; size_t len; };   /* ascending, aligned */
struct tree_xattr { const char *name; const void *value; size_t len; };
struct tree_entry {
    const char *path;               /* "/" for the root, else "/a/b" */
    struct stat st;                 /* type and mode, nlink, uid, gid, size, rdev, mtime */
    long nlink_adj;                 /* subtracted from nlink: the root's excluded directories */
    int fd;
    const char *target;             /* symlinks */
    size_t tlen;
    const struct tree_extent *ext;  /* regular files: data below EOF; holes left out */
    size_t next;
    const struct tree_xattr *xattrs;/* regular files and directories, in any order */
    size_t nx;
};

/* ---- the walk (tree/walk.c) ---- */

/* Visits every entry below a mount without following symlinks: the root first, then each
 * directory's entries in the order the file system returns them, a directory before what it
 * holds (a listing sorts by path afterwards). Excluded root entries are left out and the
 * directories among them taken out of the root's nlink. visit returns 0, 1 when it keeps a
 * regular file's fd (it closes it itself), or -1 to stop the walk. Reused from one walk to
 * the next, so a walk does no per-entry allocation. */
struct tree_walk {
    const char *exclude;
    int (*visit)(void *ctx, const struct tree_entry *e);
    void *ctx;
    struct buf names;               /* the name stack: "<d_type><name>\0" per entry */
    char path[TREE_PATH_MAX];
};
/* 0, or -1 with errno (the visitor's, or the failing call's). */
int tree_walk(struct tree_walk *w, int rootfd);
void tree_walk_free(struct tree_walk *w);

/* The names in the plain directory path (not a mount's walk: /proc, /sys/block, a run
 * directory), but . and .., in the order the file system returns them. fn may unlink or rename
 * entries of path, as with readdir (whether a removed entry still shows is unspecified). Stops
 * at fn's first non-zero return, which it returns; 0 at the end; -1 with errno when path cannot
 * be opened or read. */
int tree_dir_names(const char *path, int (*fn)(void *ctx, const char *name), void *ctx);

/* ---- the listing line (tree/line.c) ---- */

/* A hash for the DATA and XATTRS fields: begin, update any number of times, then hex appends
 * the lowercase hex of the result to out. Each 0, or -1 with errno. */
struct tree_hash {
    void *ctx;
    int (*begin)(void *ctx);
    int (*update)(void *ctx, const void *p, size_t n);
    int (*hex)(void *ctx, struct buf *out);
};
/* The libc-only hash of reproducers: 64-bit FNV-1a; ctx points to a uint64_t. */
extern const struct tree_hash tree_fnv_hash;

/* What writing lines reuses from one entry to the next. */
struct tree_lister {
    const struct tree_opts *o;
    const struct tree_hash *h;
    struct buf data, xlist, xval;
    const char **xnames;
    size_t xnames_cap;
    const struct tree_xattr **xsorted;
    size_t xsorted_cap;
};
/* The line of e without a newline, appended to b: the head is PATH up to SIZE and the m=
 * field with the space after them; the tail is DATA and XATTRS, read from e->fd when it is
 * open (a walk defers a file's tail to read contents late). Each 0, or -1 with errno. */
int tree_line_head(struct tree_lister *l, const struct tree_entry *e, struct buf *b);
int tree_line_tail(struct tree_lister *l, const struct tree_entry *e, struct buf *b);
int tree_line(struct tree_lister *l, const struct tree_entry *e, struct buf *b);
void tree_lister_free(struct tree_lister *l);
/* Appends path as a listing writes it: blanks, control bytes and backslashes as \xHH. */
int tree_path_text(struct buf *b, const char *path);
/* fd's xattr list (name NULL) or the value of name, into b from its start (b->p, with room
 * for a NUL after it); asks TREE_XATTR_FIRST_ASK bytes first and grows b on ERANGE. The
 * length, or -1 with errno. */
ssize_t tree_xattr_read(struct buf *b, int fd, const char *name);

#endif
/* The ranking of differences between two tree listings, written once: Metis's classifier and every reproducer (emit-c pastes diff.h and diff.c) compare with it. */
#ifndef METIS_TREE_DIFF_H
#define METIS_TREE_DIFF_H

#include <stddef.h>

/* What differs between two trees, most telling first: when several entries differ, the kind
 * that comes first here names the difference (a directory missing on one side also changes
 * its parent's link count, but "missing" says what happened). */
enum tree_diff {
    TREE_DIFF_NONE = 0,         /* no difference (or the trees could not be read) */
    TREE_DIFF_MISSING,          /* an entry of the reference is not on the other fs */
    TREE_DIFF_EXTRA,            /* an entry of the other fs is not on the reference */
    TREE_DIFF_TYPE, TREE_DIFF_MODE, TREE_DIFF_OWNER, TREE_DIFF_NLINK, TREE_DIFF_SIZE,
    TREE_DIFF_CONTENT, TREE_DIFF_TARGET, TREE_DIFF_XATTR_NAMES, TREE_DIFF_XATTR_VALUE,
    TREE_DIFF_COUNT
};

/* "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
 * "xattr-names", "xattr-value"; "-" for TREE_DIFF_NONE. */
const char *tree_diff_name(enum tree_diff k);
/* The kind called name, or -1. */
int tree_diff_by_name(const char *name);


/* One listing line cut into fields; each points into the line, which is not copied. A line ends
 * at '\n' or '\0'. With compare_mtime the m= field takes DATA's place and DATA joins XATTRS:
 * an mtime difference is named "content" (as Metis's classes have always named it). */
struct tree_fields {
    const char *s[TREE_F_COUNT];
    int len[TREE_F_COUNT];
};

/* Cuts line into e. Returns 0, or -1 when a field is empty or missing (missing ones are then
 * empty, so a caller may still compare what there is). */
int tree_fields_split(const char *line, struct tree_fields *e);

/* The attribute of kind k of e as messages show it: the owner as "uid:gid", xattr names without
 * their values for xattr-names, a content digest or target cut to data_chars, any other field to
 * 200 characters; "(none)" when e is NULL (the entry is absent on that side). */
void tree_diff_value(const struct tree_fields *e, enum tree_diff k, int data_chars, char *out,
                     size_t len);

/* One differing entry: ref is NULL for an extra entry, got for a missing one. best is 1 when it
 * is the most telling so far: the first entry, in path order, of the most telling kind. */
typedef void tree_diff_fn(void *ctx, enum tree_diff k, const struct tree_fields *ref,
                          const struct tree_fields *got, int best);

/* Compares two listings sorted by path (lines as tree_fields_split takes them) and calls fn for
 * every entry that differs; returns how many do. */
int tree_diff_listings(const char *const *ref, size_t nref, const char *const *got, size_t ngot,
                       unsigned ignore, tree_diff_fn *fn, void *ctx);

#endif
/* Tree listing and comparison of standalone reproducers (reprotree.c); emit-c copies this header and that file into every program it writes. */
#ifndef METIS_REPROTREE_H
#define METIS_REPROTREE_H

#include <stddef.h>


/* A tree as sorted lines, one entry each, in tree.h's listing format with the FNV-1a hash
 * (tree_fnv_hash) and nothing ignored: the root's link count leaves out the excluded
 * directories below it. */
struct rt_tree {
    char **v;
    size_t n, cap;
};

/* Lists the tree below rootfd into t (exclude: comma-separated root entries left out, as
 * tree_excluded reads them); 0, or -1 with errno. */
int rt_list(int rootfd, const char *exclude, struct rt_tree *t);
void rt_free(struct rt_tree *t);
/* Compares the tree got with the reference's listing ref (both sorted), leaving out what
 * ignore (TREE_IGNORE_*) names; prints every differing entry and puts the most telling difference
 * ("PATH: KIND: here X, reference Y", ranked by tree/diff.c) in first.
 * Returns how many entries differ. */
int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len);

#endif
/* Growable byte buffers and arrays: the one way Metis grows memory by doubling. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int array_reserve(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *np = realloc(*(void **)p, n * elem);
    if (!np)
        return -1;
    *(void **)p = np;
    *cap = n;
    return 0;
}

int buf_reserve(struct buf *b, size_t need)
{
    /* A first allocation of 4 KiB: most buffers hold a line or a listing. */
    if (!b->cap && need < 4096 && array_reserve(&b->p, &b->cap, 4096, 1))
        return -1;
    return array_reserve(&b->p, &b->cap, b->len + need, 1);
}

int buf_add(struct buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
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

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
/* The one walk of a mounted tree (getdents64, no symlink followed): every listing, digest and recorded tree of Metis and its reproducers is made from it; also the one reader of plain directories. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static int tree_walk_dir(struct tree_walk *w, int dfd, size_t plen, int is_root);

static int tree_is_dot(const char *nm)
{
    return nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0'));
}

/* An excluded root entry that is a directory still counts in the root's link count. */
static int tree_excluded_dir(int dfd, const struct dirent64 *d)
{
    struct stat st;
    return d->d_type == DT_DIR ||
           (d->d_type == DT_UNKNOWN && fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode));
}

typedef int tree_dirent_fn(void *ctx, int dfd, const struct dirent64 *d);

/* Hands every entry of dfd but . and .. to fn until fn returns non-zero (returned); 0 at the
 * end, -1 with errno when reading fails. */
static int tree_each_dirent(int dfd, tree_dirent_fn *fn, void *ctx)
{
    char dbuf[16384] __attribute__((aligned(8)));
    for (;;) {
        ssize_t n = getdents64(dfd, dbuf, sizeof dbuf);
        if (n <= 0)
            return (int)n;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(dbuf + off);
            off += d->d_reclen;
            int rc = tree_is_dot(d->d_name) ? 0 : fn(ctx, dfd, d);
            if (rc)
                return rc;
        }
    }
}

struct tree_collect {
    struct tree_walk *w;
    int is_root;
    long excluded_dirs;
};

/* Pushes one name onto the name stack; counts the root's excluded directories. */
static int tree_collect_name(void *ctx, int dfd, const struct dirent64 *d)
{
    struct tree_collect *c = ctx;
    if (c->is_root && tree_excluded(c->w->exclude, d->d_name)) {
        c->excluded_dirs += tree_excluded_dir(dfd, d);
        return 0;
    }
    char t = (char)d->d_type;
    return buf_add(&c->w->names, &t, 1) || buf_add(&c->w->names, d->d_name, strlen(d->d_name) + 1)
               ? -1 : 0;
}

struct tree_names {
    int (*fn)(void *ctx, const char *name);
    void *ctx;
};

static int tree_pass_name(void *ctx, int dfd, const struct dirent64 *d)
{
    struct tree_names *t = ctx;
    (void)dfd;
    return t->fn(t->ctx, d->d_name);
}

int tree_dir_names(const char *path, int (*fn)(void *ctx, const char *name), void *ctx)
{
    struct tree_names t = { fn, ctx };
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = tree_each_dirent(fd, tree_pass_name, &t);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int tree_open_child(int dfd, const char *name, int flags)
{
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM)    /* O_NOATIME needs ownership or CAP_FOWNER */
        fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

/* A regular file or directory: opened, visited (a file's fd may be kept), a directory walked. */
static int tree_visit_open(struct tree_walk *w, int dfd, const char *name, int dir, size_t plen)
{
    struct tree_entry e = { .path = w->path, .fd = -1 };
    e.fd = tree_open_child(dfd, name, dir ? O_RDONLY | O_DIRECTORY
                                          : O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (e.fd < 0)
        return -1;
    int rc = fstat(e.fd, &e.st) ? -1 : w->visit(w->ctx, &e);
    if (rc == 1 && S_ISREG(e.st.st_mode))
        return 0;               /* the visitor keeps the fd */
    if (rc == 0 && S_ISDIR(e.st.st_mode))
        rc = tree_walk_dir(w, e.fd, plen, 0);
    int saved = errno;
    close(e.fd);
    errno = saved;
    return rc < 0 ? -1 : 0;
}

/* Regular files and directories are opened (contents, xattrs, recursion); the rest stat'ed. */
static int tree_visit(struct tree_walk *w, int dfd, const char *name, unsigned char dtype,
                      size_t plen)
{
    struct tree_entry e = { .path = w->path, .fd = -1 };
    char target[TREE_PATH_MAX];
    int statted = dtype == DT_UNKNOWN;  /* a file system that gives no type: stat once here */
    if (statted) {
        if (fstatat(dfd, name, &e.st, AT_SYMLINK_NOFOLLOW))
            return -1;
        dtype = S_ISREG(e.st.st_mode) ? DT_REG : S_ISDIR(e.st.st_mode) ? DT_DIR : DT_LNK;
    }
    if (dtype == DT_REG || dtype == DT_DIR)
        return tree_visit_open(w, dfd, name, dtype == DT_DIR, plen);
    if (!statted && fstatat(dfd, name, &e.st, AT_SYMLINK_NOFOLLOW))
        return -1;
    if (S_ISLNK(e.st.st_mode)) {
        ssize_t n = readlinkat(dfd, name, target, sizeof target);
        if (n < 0)
            return -1;
        e.target = target;
        e.tlen = (size_t)n;
    }
    return w->visit(w->ctx, &e) < 0 ? -1 : 0;
}

/* The root's own entry, once its names (and so its excluded directories) are known. */
static int tree_visit_root(struct tree_walk *w, int dfd, long excluded_dirs)
{
    struct tree_entry e = { .path = "/", .fd = dfd, .nlink_adj = excluded_dirs };
    return fstat(dfd, &e.st) || w->visit(w->ctx, &e) < 0 ? -1 : 0;
}

/* Walks the names below dfd; w->path holds the directory's path (plen bytes, "" for the root). */
static int tree_walk_dir(struct tree_walk *w, int dfd, size_t plen, int is_root)
{
    size_t start = w->names.len;
    struct tree_collect c = { w, is_root, 0 };
    if (tree_each_dirent(dfd, tree_collect_name, &c) ||
        (is_root && tree_visit_root(w, dfd, c.excluded_dirs)))
        return -1;
    size_t end = w->names.len;
    for (size_t i = start; i < end;) {
        unsigned char dtype = (unsigned char)w->names.p[i];
        char name[256 + 1];     /* copied out: recursion may move the name stack */
        snprintf(name, sizeof name, "%s", w->names.p + i + 1);
        size_t nlen = strlen(name);
        i += nlen + 2;
        if (plen + 1 + nlen >= sizeof w->path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        w->path[plen] = '/';
        memcpy(w->path + plen + 1, name, nlen + 1);
        if (tree_visit(w, dfd, name, dtype, plen + 1 + nlen))
            return -1;
        w->path[plen] = '\0';
    }
    w->names.len = start;
    return 0;
}

int tree_walk(struct tree_walk *w, int rootfd)
{
    w->names.len = 0;
    w->path[0] = '\0';
    int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = tree_walk_dir(w, fd, 0, 1);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

void tree_walk_free(struct tree_walk *w)
{
    buf_free(&w->names);
}
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
/* The ranking of differences between two tree listings: kinds and their names, a line's fields, an entry against another, the values messages show, the comparison of two listings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Libc only: emit-c pastes this text into every reproducer. */

#define TD_FIELD_SHOWN 200      /* characters of one field a message shows */
#define TD_XNAMES_MAX 4096      /* room for an entry's xattr names when two are compared */

static const char *const td_names[TREE_DIFF_COUNT] = {
    "-", "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
    "xattr-names", "xattr-value",
};

const char *tree_diff_name(enum tree_diff k)
{
    return k >= 0 && k < TREE_DIFF_COUNT ? td_names[k] : "?";
}

int tree_diff_by_name(const char *name)
{
    for (int k = 0; k < TREE_DIFF_COUNT; k++)
        if (strcmp(name, td_names[k]) == 0)
            return k;
    return -1;
}

/* ---- a line's fields ---- */

/* Length of the field at p: up to sep (0: none), the end of the line or of the text. */
static size_t td_field_len(const char *p, char sep)
{
    size_t n = 0;
    while (p[n] && p[n] != '\n' && (!sep || p[n] != sep))
        n++;
    return n;
}

int tree_fields_split(const char *line, struct tree_fields *e)
{
    const char *p = line;
    int rc = 0;
    for (int k = 0; k < TREE_F_COUNT; k++) {
        int last = k == TREE_F_COUNT - 1;
        size_t n = td_field_len(p, last ? 0 : ' ');
        e->s[k] = p;
        e->len[k] = (int)n;
        if (n == 0 || (!last && p[n] != ' '))
            rc = -1;
        p += n + (!last && p[n] == ' ');
    }
    return rc;
}

/* ---- one entry against the other ---- */

static int td_same(const struct tree_fields *a, const struct tree_fields *b, enum tree_field f)
{
    return a->len[f] == b->len[f] && memcmp(a->s[f], b->s[f], (size_t)a->len[f]) == 0;
}

static int td_first_char(const struct tree_fields *e, enum tree_field f)
{
    return e->len[f] ? e->s[f][0] : '\0';
}

/* Bytes from p before end that are not in reject. */
static size_t td_cspn(const char *p, const char *end, const char *reject)
{
    size_t n = 0;
    while (p + n < end && !strchr(reject, p[n]))
        n++;
    return n;
}

/* The names of an xattr list "[a=1:h,b=2:h]" without the values: "a,b". */
static void td_xnames(const char *x, int xlen, char *out, size_t len)
{
    const char *end = x + xlen;
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = x + (xlen && *x == '['); p < end && *p != ']' && n + 1 < len;) {
        size_t k = td_cspn(p, end, "=,]");
        n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? "," : "", (int)k, p);
        p += k;
        p += td_cspn(p, end, ",]");
        p += p < end && *p == ',';
    }
}

static enum tree_diff td_xattr_kind(const struct tree_fields *a, const struct tree_fields *b)
{
    char na[TD_XNAMES_MAX], nb[TD_XNAMES_MAX];
    td_xnames(a->s[TREE_F_XATTRS], a->len[TREE_F_XATTRS], na, sizeof na);
    td_xnames(b->s[TREE_F_XATTRS], b->len[TREE_F_XATTRS], nb, sizeof nb);
    return strcmp(na, nb) ? TREE_DIFF_XATTR_NAMES : TREE_DIFF_XATTR_VALUE;
}

/* Two mode fields alike; with TREE_IGNORE_SETID, S_ISUID and S_ISGID left out (a listing
 * written with nothing ignored, as a reproducer's, still has them). */
static int td_same_mode(const struct tree_fields *a, const struct tree_fields *b, unsigned ignore)
{
    if (td_same(a, b, TREE_F_MODE))
        return 1;
    if (!(ignore & TREE_IGNORE_SETID) || a->len[TREE_F_MODE] > 8 || b->len[TREE_F_MODE] > 8)
        return 0;
    char ma[9], mb[9], *ea, *eb;
    snprintf(ma, sizeof ma, "%.*s", a->len[TREE_F_MODE], a->s[TREE_F_MODE]);
    snprintf(mb, sizeof mb, "%.*s", b->len[TREE_F_MODE], b->s[TREE_F_MODE]);
    unsigned long x = strtoul(ma, &ea, 8), y = strtoul(mb, &eb, 8);
    return *ea == '\0' && *eb == '\0' && ea != ma && eb != mb && ((x ^ y) & ~06000ul) == 0;
}

/* The link counts compare, unless ignore leaves them out: a directory's (DIR_NLINK), the
 * root's (ROOT_NLINK). */
static int td_nlink_counts(const struct tree_fields *a, unsigned ignore)
{
    int dir = td_first_char(a, TREE_F_TYPE) == 'd';
    int root = a->len[TREE_F_PATH] == 1 && a->s[TREE_F_PATH][0] == '/';
    return !(dir && (ignore & TREE_IGNORE_DIR_NLINK)) && !(root && (ignore & TREE_IGNORE_ROOT_NLINK));
}

/* The most telling kind in which entry b differs from entry a (same path), leaving out the
 * attributes ignore names (TREE_IGNORE_*); TREE_DIFF_NONE if none. */
static enum tree_diff tree_diff_entry(const struct tree_fields *a, const struct tree_fields *b,
                                      unsigned ignore)
{
    if (!td_same(a, b, TREE_F_TYPE))
        return TREE_DIFF_TYPE;
    if (!(ignore & TREE_IGNORE_MODE) && !td_same_mode(a, b, ignore))
        return TREE_DIFF_MODE;
    if (!(ignore & TREE_IGNORE_OWNER) &&
        (!td_same(a, b, TREE_F_UID) || !td_same(a, b, TREE_F_GID)))
        return TREE_DIFF_OWNER;
    if (td_nlink_counts(a, ignore) && !td_same(a, b, TREE_F_NLINK))
        return TREE_DIFF_NLINK;
    if (!td_same(a, b, TREE_F_SIZE))
        return TREE_DIFF_SIZE;
    if (!td_same(a, b, TREE_F_DATA))
        return td_first_char(a, TREE_F_TYPE) == 'l' ? TREE_DIFF_TARGET : TREE_DIFF_CONTENT;
    if ((ignore & TREE_IGNORE_XATTRS) || td_same(a, b, TREE_F_XATTRS))
        return TREE_DIFF_NONE;
    return td_xattr_kind(a, b);
}

void tree_diff_value(const struct tree_fields *e, enum tree_diff k, int data_chars, char *out,
                     size_t len)
{
    static const enum tree_field shown[TREE_DIFF_COUNT] = {
        TREE_F_XATTRS, TREE_F_TYPE, TREE_F_TYPE, TREE_F_TYPE, TREE_F_MODE, TREE_F_UID,
        TREE_F_NLINK, TREE_F_SIZE, TREE_F_DATA, TREE_F_DATA, TREE_F_XATTRS, TREE_F_XATTRS,
    };
    if (!e) {
        snprintf(out, len, "(none)");
    } else if (k == TREE_DIFF_OWNER) {
        snprintf(out, len, "%.*s:%.*s", e->len[TREE_F_UID], e->s[TREE_F_UID],
                 e->len[TREE_F_GID], e->s[TREE_F_GID]);
    } else if (k == TREE_DIFF_XATTR_NAMES) {
        td_xnames(e->s[TREE_F_XATTRS], e->len[TREE_F_XATTRS], out, len);
    } else {
        enum tree_field f = shown[k >= 0 && k < TREE_DIFF_COUNT ? k : 0];
        int most = f == TREE_F_DATA ? data_chars : TD_FIELD_SHOWN;
        snprintf(out, len, "%.*s", e->len[f] < most ? e->len[f] : most, e->s[f]);
    }
}

/* ---- two listings ---- */

static int td_path_cmp(const struct tree_fields *a, const struct tree_fields *b)
{
    int na = a->len[TREE_F_PATH], nb = b->len[TREE_F_PATH];
    int c = memcmp(a->s[TREE_F_PATH], b->s[TREE_F_PATH], (size_t)(na < nb ? na : nb));
    return c ? c : (na > nb) - (na < nb);
}

int tree_diff_listings(const char *const *ref, size_t nref, const char *const *got, size_t ngot,
                       unsigned ignore, tree_diff_fn *fn, void *ctx)
{
    struct tree_fields a, b;
    enum tree_diff best = TREE_DIFF_NONE;
    int count = 0;
    for (size_t i = 0, j = 0; i < nref || j < ngot;) {
        if (i < nref)
            tree_fields_split(ref[i], &a);
        if (j < ngot)
            tree_fields_split(got[j], &b);
        int c = i == nref ? 1 : j == ngot ? -1 : td_path_cmp(&a, &b);
        enum tree_diff k = c < 0 ? TREE_DIFF_MISSING : c > 0 ? TREE_DIFF_EXTRA
                                                             : tree_diff_entry(&a, &b, ignore);
        if (k != TREE_DIFF_NONE) {
            int more_telling = best == TREE_DIFF_NONE || k < best;
            best = more_telling ? k : best;
            count++;
            fn(ctx, k, c <= 0 ? &a : NULL, c >= 0 ? &b : NULL, more_telling);
        }
        i += c <= 0;
        j += c >= 0;
    }
    return count;
}
/* Tree listing and comparison of standalone reproducers: metis-replay lists the reference's final tree with it, and emit-c copies this file into every program it writes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Libc only: this text (with buf.c, tree/walk.c and tree/line.c) is compiled into programs
 * that need nothing of Metis. */

#define RT_REPORT_MAX 20
#define RT_VALUE_SHOWN 200      /* characters of a digest or target a message shows */

static int rt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void rt_free(struct rt_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

/* What the walk's visitor fills: the tree and the line being written. */
struct rt_lister {
    struct rt_tree *t;
    struct tree_lister l;
    struct buf line;
};

/* One entry's line (contents read through the walk's fd), pushed onto the tree. */
static int rt_visit(void *ctx, const struct tree_entry *e)
{
    struct rt_lister *x = ctx;
    struct rt_tree *t = x->t;
    x->line.len = 0;
    if (tree_line(&x->l, e, &x->line) || buf_add(&x->line, "", 1) ||
        array_reserve(&t->v, &t->cap, t->n + 1, sizeof *t->v))
        return -1;
    if (!(t->v[t->n] = strdup(x->line.p)))
        return -1;
    t->n++;
    return 0;
}

/* Sorted by path: a space sorts before any byte a listed path keeps (blanks are escaped), so
 * whole lines sort as their paths do. */
int rt_list(int rootfd, const char *exclude, struct rt_tree *t)
{
    uint64_t fnv;
    struct tree_hash h = tree_fnv_hash;
    struct tree_opts o = { NULL, exclude, 0, 0 };
    struct rt_lister x = { .t = t, .l = { .o = &o, .h = &h } };
    struct tree_walk w = { .exclude = exclude, .visit = rt_visit, .ctx = &x };
    h.ctx = &fnv;
    int rc = tree_walk(&w, rootfd);
    int saved = errno;
    tree_walk_free(&w);
    tree_lister_free(&x.l);
    buf_free(&x.line);
    if (rc == 0 && t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, rt_cmp_str);
    errno = saved;
    return rc;
}

/* ---- comparison (tree/diff.c ranks) ---- */

struct rt_report {
    int count;
    char *first;
    size_t len;
};

/* One differing entry: printed (up to RT_REPORT_MAX), and kept in first when it is the most
 * telling so far. */
static void rt_note(void *ctx, enum tree_diff k, const struct tree_fields *ref,
                    const struct tree_fields *got, int best)
{
    struct rt_report *r = ctx;
    const struct tree_fields *e = ref ? ref : got;
    char msg[1500], a[512], b[512];
    tree_diff_value(got, k, RT_VALUE_SHOWN, b, sizeof b);
    tree_diff_value(ref, k, RT_VALUE_SHOWN, a, sizeof a);
    snprintf(msg, sizeof msg, "%.*s: %s: here %s, reference %s", e->len[TREE_F_PATH],
             e->s[TREE_F_PATH], tree_diff_name(k), b, a);
    if (++r->count <= RT_REPORT_MAX)
        printf("tree: %s  DIFFERS FROM THE REFERENCE\n", msg);
    if (best)
        snprintf(r->first, r->len, "%s", msg);
}

int rt_compare(const char *const *ref, size_t nref, const struct rt_tree *got, unsigned ignore,
               char *first, size_t len)
{
    struct rt_report r = { 0, first, len };
    first[0] = '\0';
    tree_diff_listings(ref, nref, (const char *const *)got->v, got->n, ignore,
                       rt_note, &r);
    if (r.count > RT_REPORT_MAX)
        printf("tree: ... %d differing entries in all\n", r.count);
    return r.count;
}
/* The reference's final tree, listed by metis-replay after replaying the trace. */
static const char *const REF_TREE[] = {
    "/ d 0755 3 0 0 - - []",
    "/d1 d 3042 2 0 1000 - - []",
    "/d1/f1 f 0477 1 0 1000 0 cbf29ce484222325 []",
    NULL
};

/* The final tree against the reference's, entry by entry. */
static int check_tree(void)
{
    struct rt_tree got = {0};
    char first[1600];
    size_t nref = 0;
    int fd = open(".", O_RDONLY | O_DIRECTORY);
    if (fd < 0 || rt_list(fd, EXCLUDE, &got) < 0) {
        printf("tree: cannot list it: %s  DIFFERS FROM THE REFERENCE\n", ename(errno));
        if (!first_diff[0])
            snprintf(first_diff, sizeof first_diff, "the final tree cannot be listed");
        return 1;
    }
    close(fd);
    while (REF_TREE[nref])
        nref++;
    for (size_t i = 0; verbose && i < got.n; i++)
        printf("tree: %s\n", got.v[i]);
    int n = rt_compare(REF_TREE, nref, &got, IGNORE, first, sizeof first);
    if (n == 0)
        printf("tree: %zu entries, as on the reference " REF_NAME "\n", got.n);
    else if (!first_diff[0])
        snprintf(first_diff, sizeof first_diff, "the final tree at %s", first);
    rt_free(&got);
    return n != 0;
}

/* The initial state Metis made before the first operation (pool prepopulate). */
static void prepopulate(void)
{
    long r = 0;
    (void)r;
}

/* The operations of the trace, one step each, and what the reference returned. */
static int step(int k)
{
    long r = 0;
    errno = 0;
    switch (k) {
    case 1: /* operation 8 of the run */
    r = mkdir("d1", 0204);
    return report(1, "mkdir path=/d1 mode=0204", r, 0L, 0, 1, 0L, 0);
    case 2: /* operation 98 of the run */
    r = chmod("d1", 03042);
    return report(2, "chmod path=/d1 mode=03042", r, 0L, 0, 1, 0L, 0);
    case 3: /* operation 282 of the run */
    r = chown("d1", (uid_t)-1, (gid_t)1000u);
    return report(3, "chgrp_file path=/d1 gid=1000", r, 0L, 0, 1, 0L, 0);
    case 4: /* operation 289 of the run */
    { int fd = open("d1/f1", 0x242 | O_CREAT | O_NONBLOCK, 0477); r = fd < 0 ? -1 : 0; if (fd >= 0) { int e = errno; close(fd); errno = e; } }
    return report(4, "create_file path=/d1/f1 flags=0x242 mode=0477", r, 0L, 0, 1, 0L, 0);
    }
    fprintf(stderr, "repro: no step %d\n", k);
    (void)r;
    return 0;
}

/* What Metis's crash check synced after a step: each object the step changed and its
 * parent directories (crash = fsync), or the whole fs (crash = syncfs). Prints each fsynced
 * object as "PATH TYPE" (its path below the mount point, symlinks resolved): the promise. */
static void crash_fsync(const char *path, int dir, int skip)
{
    char root[4096], link[64], full[8192];
    struct stat st;
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || !getcwd(root, sizeof root) || fstat(fd, &st) < 0 ||
        (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (!skip && fsync(fd) < 0)
        fprintf(stderr, "repro: fsync %s: %s\n", path, strerror(errno));
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, full, sizeof full - 1);
    size_t m = strlen(root);
    if (n >= (ssize_t)m && fstat(fd, &st) == 0) {
        full[n] = 0;
        printf("%s %c\n", n == (ssize_t)m ? "/" : full + m, S_ISDIR(st.st_mode) ? 'd' : 'f');
    }
    close(fd);
}

static void crash_sync(int k)
{
    switch (k) {
    case 1:
        break;
    case 2:
        break;
    case 3:
        break;
    case 4:
        break;
    default:
        (void)k;
    }
}

static void list_tree(void)
{
    struct rt_tree t = { 0 };
    int fd = open(".", O_RDONLY | O_DIRECTORY);
    if (fd < 0 || rt_list(fd, EXCLUDE, &t) < 0)
        printf("repro: cannot list the tree\n");
    for (size_t i = 0; i < t.n; i++) {
        const char *sp = strchr(t.v[i], ' ');
        if (sp)
            printf("%c %.*s%s\n", sp[1], (int)(sp - t.v[i]), t.v[i], sp + 2);
    }
    rt_free(&t);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    const char *what = argc > 2 ? argv[2] : "all";
    int all = !strcmp(what, "all"), differs = 0;
    verbose = getenv("REPRO_VERBOSE") != NULL;
    if (argc < 2 || argc > 4 || ((!strcmp(what, "step") || !strcmp(what, "sync")) && argc != 4)) {
        fprintf(stderr, "usage: %s MOUNT_POINT [all | pre | step K | sync K | tree | list]\n", argv[0]);
        return 2;
    }
    if (chdir(argv[1]) < 0) {
        fprintf(stderr, "repro: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    umask(UMASK);
    if (all || !strcmp(what, "pre"))
        prepopulate();
    for (int k = 1; all && k <= NSTEPS; k++)
        differs |= step(k);
    if (!strcmp(what, "step"))
        differs |= step(atoi(argv[3]));
    if (!strcmp(what, "sync"))
        crash_sync(atoi(argv[3]));
    if (!strcmp(what, "list"))
        list_tree();
    if (all || !strcmp(what, "tree"))
        differs |= check_tree();
    if (all && differs)
        printf("repro: the defect shows: first difference: %s\n", first_diff);
    else if (all)
        printf("repro: every step and the final tree match the reference\n");
    return differs ? 1 : 0;
}
