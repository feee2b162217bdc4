/* The tree model: what two file systems must agree on, the one vocabulary of the walk, the listing, the digest and the comparison. */
#ifndef METIS_TREE_H
#define METIS_TREE_H

/* Libc only (with buf.h): the walk and the listing are also pasted into every standalone
 * reproducer emit-c writes (replayer/rules.mk). The digest over them is tree/digest.h. */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/text/buf.h"

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
/* From now on, the walks of the calling thread stat past the kernel's attribute cache (on: 1)
 * or through it (0, the default): a FUSE daemon's mount then shows what the daemon holds, not
 * what an earlier reply of it said (the step core's cache recheck). */
void tree_walk_fresh_attrs(int on);
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
