/* Abstract state: a digest over a mounted tree's sorted entries and the metadata that matters. */
#ifndef METIS_ABSTRACT_H
#define METIS_ABSTRACT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#define ABSTRACT_MAX_DIGEST 64

/* What a read-back's xattr call asks for first (abstract.c, backend/fstree.c): the kernel
 * zeroes a buffer of the size asked, 64 KiB at the largest, and a FUSE daemon may allocate one
 * too, on every call (2.2 against 6.5 us per get+list pair on tmpfs). Longer values and lists
 * cost one more call. */
#define ABSTRACT_XATTR_FIRST_ASK 4096

struct abstract_opts {
    const char *hash;           /* OpenSSL digest name ("md5") */
    const char *exclude;        /* comma-separated root entries left out (lost+found, ...) */
    unsigned ignore;            /* ABS_IGNORE_* */
    int mtime;                  /* 1: each entry's mtime too ([run] compare_mtime) */
};
enum {
    ABS_IGNORE_DIR_NLINK = 1 << 0,
    ABS_IGNORE_XATTRS    = 1 << 1,
    ABS_IGNORE_MODE      = 1 << 2,
    ABS_IGNORE_OWNER     = 1 << 3,
};
/* Parses a config "ignore" list; -1 on an unknown name (named in err). */
int abstract_parse_ignore(const char *list, unsigned *out, char *err, size_t errlen);

/* Walks the tree below rootfd without following symlinks. Writes the digest to out
 * (returns its length), and when listing is non-NULL one line per entry to it
 * (the human-readable form logged with a discrepancy). -errno on failure. */
int abstract_state(int rootfd, const struct abstract_opts *o, unsigned char *out, FILE *listing);
int abstract_digest_len(const char *hash);   /* -1 if OpenSSL does not know it */

/* The same digest from entries a file system hands over itself (RefFS's dump) instead of a
 * walk: abstract_begin, abstract_add for every entry in any order (the caller leaves out
 * excluded root entries, see abstract_excluded), abstract_end. Each -errno on failure. */
struct abs_extent { uint64_t off; const void *data; size_t len; };   /* ascending, aligned */
struct abs_xattr { const char *name; const void *value; size_t len; };
struct abs_entry {
    const char *path;               /* "/" for the root, else "/a/b" */
    struct stat st;                 /* type and mode, nlink, uid, gid, size */
    const char *target;             /* symlinks */
    size_t tlen;
    const struct abs_extent *ext;   /* regular files: data below EOF; holes left out */
    size_t next;
    const struct abs_xattr *xattrs; /* regular files and directories, in any order */
    size_t nx;
};
int abstract_begin(const struct abstract_opts *o);
/* nlink_adj is subtracted from the entry's nlink (the root's excluded directories). */
int abstract_add(const struct abs_entry *e, long nlink_adj);
int abstract_end(unsigned char *out, FILE *listing);
/* For callers that keep entries from one digest to the next (logical restore's trees): the
 * line abstract_add would list for e, into *line (malloc'd, no newline), its length or -errno;
 * between abstract_begin and abstract_end, adding nothing. abstract_add_line adds an entry by
 * such a line, so an unchanged entry's contents need not be digested again. */
int abstract_entry_line(const struct abs_entry *e, long nlink_adj, char **line);
int abstract_add_line(const char *path, const char *line, size_t len);
int abstract_excluded(const struct abstract_opts *o, const char *name);

/* The entries of one read-back, sorted by path: what the input driver draws existing paths
 * from, taken from the digest's own pass so that it costs no system call. */
struct abs_tree_entry {
    size_t path;                    /* offset of the NUL-terminated path in names */
    mode_t mode;
    uint64_t nlink, size;
};
struct abs_tree {
    struct abs_tree_entry *e;
    size_t n, cap;
    char *names;
    size_t len, ncap;
};
/* The next digest this thread finishes (abstract_state or abstract_end) also lists its
 * entries into t; NULL cancels. */
void abstract_collect_next(struct abs_tree *t);
void abstract_tree_free(struct abs_tree *t);

#endif
