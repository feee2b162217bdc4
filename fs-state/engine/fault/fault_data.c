/* A failed operation's tree held to what may be left of file data: entries as before or after but for regular files' data, and no byte no one wrote. */
#include "engine/fault/fault_data.h"
#include "engine/vocab/fault_kinds.h"
#include "tree/classify.h"
#include "lib/text/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Files larger than this are not compared byte by byte (the pool's files are far smaller). */
#define DATA_MAX (64u << 20)

struct file_data {
    char *path;                 /* as a path below the root ("/d0/f1"), unescaped */
    char *bytes[3];             /* per slot; NULL with len -1 when the file is not there */
    long len[3];
};

/* What the operation wrote through a descriptor. */
struct written {
    char *path;
    uint64_t off;
    int append;                 /* at the end of the file as it was before */
    unsigned char *bytes;
    size_t len;
};

struct fault_files {
    struct file_data *v;
    size_t n, cap;
    struct written w;           /* path NULL: none */
};

/* ---- which files ---- */

/* A listing's path field ("\x20" for a space) as the path it names; -1 when it does not fit. */
static int unescape_path(const char *s, int n, char *out, size_t len)
{
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        unsigned v;
        if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && sscanf(s + i + 2, "%2x", &v) == 1) {
            out[o++] = (char)v;
            i += 3;
        } else {
            out[o++] = s[i];
        }
        if (o + 1 >= len)
            return -1;
    }
    out[o] = '\0';
    return 0;
}

static int add_file(struct fault_files *ff, const struct tree_fields *e)
{
    char path[4200];
    if (unescape_path(e->s[TREE_F_PATH], e->len[TREE_F_PATH], path, sizeof path) < 0)
        return 0;
    for (size_t k = 0; k < ff->n; k++)
        if (strcmp(ff->v[k].path, path) == 0)
            return 0;
    if (array_reserve(&ff->v, &ff->cap, ff->n + 1, sizeof *ff->v))
        return -1;
    struct file_data *f = &ff->v[ff->n];
    memset(f, 0, sizeof *f);
    f->len[0] = f->len[1] = f->len[2] = -1;
    if (!(f->path = strdup(path)))
        return -1;
    ff->n++;
    return 0;
}

static int is_regular(const struct tree_fields *e)
{
    return e && e->len[TREE_F_TYPE] == 1 && e->s[TREE_F_TYPE][0] == 'f';
}

struct collect {
    struct fault_files *ff;
    int failed;
};

static void collect_one(void *ctx, enum tree_diff k, const struct tree_fields *clean,
                        const struct tree_fields *faulted, int best)
{
    struct collect *c = ctx;
    if (is_regular(faulted) && add_file(c->ff, faulted) < 0)
        c->failed = 1;
    if (is_regular(clean) && add_file(c->ff, clean) < 0)
        c->failed = 1;
}

struct fault_files *fault_files_differing(const char *clean_listing, const char *fault_listing)
{
    struct listing_lines a = { 0 }, b = { 0 };
    struct state_diff d;
    struct fault_files *ff = calloc(1, sizeof *ff);
    struct collect c = { ff, !ff };
    if (!c.failed && classify_lines(clean_listing, &a, &d) == 0 &&
        classify_lines(fault_listing, &b, &d) == 0)
        tree_diff_listings(a.v, a.n, b.v, b.n, 0, collect_one, &c);
    else
        c.failed = 1;
    free(a.v);
    free(b.v);
    if (!c.failed)
        return ff;
    fault_files_free(ff);
    return NULL;
}

/* ---- their bytes ---- */

static int open_below(int rootfd, const char *path)
{
    struct open_how how = { .flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
                                       RESOLVE_NO_SYMLINKS };
    return (int)syscall(SYS_openat2, rootfd, path[1] ? path + 1 : ".", &how, sizeof how);
}

/* The whole file, or NULL with *len -1 when it is not a readable regular file here. */
static char *read_whole(int rootfd, const char *path, long *len)
{
    struct stat st;
    char *p = NULL;
    int fd = open_below(rootfd, path);
    *len = -1;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > DATA_MAX ||
        !(p = malloc((size_t)st.st_size + 1))) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    ssize_t got = 0, n = 1;
    while (got < st.st_size && (n = pread(fd, p + got, (size_t)(st.st_size - got), got)) > 0)
        got += n;
    close(fd);
    if (n < 0) {
        free(p);
        return NULL;
    }
    *len = (long)got;
    return p;
}

int fault_files_read(struct fault_files *ff, int slot, int rootfd)
{
    for (size_t k = 0; k < ff->n; k++) {
        struct file_data *f = &ff->v[k];
        free(f->bytes[slot]);
        f->bytes[slot] = read_whole(rootfd, f->path, &f->len[slot]);
    }
    return 0;
}

int fault_files_wrote(struct fault_files *ff, const char *path, uint64_t off, int append,
                      const void *bytes, size_t len)
{
    free(ff->w.path);
    free(ff->w.bytes);
    ff->w = (struct written){ strdup(path), off, append, malloc(len ? len : 1), len };
    if (!ff->w.path || !ff->w.bytes)
        return -1;
    memcpy(ff->w.bytes, bytes, len);
    return 0;
}

void fault_files_free(struct fault_files *ff)
{
    if (!ff)
        return;
    free(ff->w.path);
    free(ff->w.bytes);
    for (size_t k = 0; k < ff->n; k++) {
        for (int s = 0; s < 3; s++)
            free(ff->v[k].bytes[s]);
        free(ff->v[k].path);
    }
    free(ff->v);
    free(ff);
}

/* ---- the judgement ---- */

struct meta_cmp {
    int differs;
    struct state_diff d;
};

/* A difference that is not a regular file's size or data counts. */
static void meta_one(void *ctx, enum tree_diff k, const struct tree_fields *a,
                     const struct tree_fields *b, int best)
{
    struct meta_cmp *m = ctx;
    unsigned data = (1u << TREE_DIFF_SIZE) | (1u << TREE_DIFF_CONTENT);
    if (is_regular(a) && is_regular(b) && !(tree_diff_entry_kinds(a, b, 0) & ~data))
        return;
    if (!m->differs++) {
        const struct tree_fields *e = a ? a : b;
        m->d.attr = k;
        snprintf(m->d.entry, sizeof m->d.entry, "%.*s", e->len[TREE_F_PATH], e->s[TREE_F_PATH]);
    }
}

/* 1 when listing a and b differ in more than regular files' sizes and data (d: the first). */
static int meta_differs(const char *a, const char *b, struct state_diff *d)
{
    struct listing_lines la = { 0 }, lb = { 0 };
    struct meta_cmp m = { 0 };
    int bad = classify_lines(a, &la, &m.d) < 0 || classify_lines(b, &lb, &m.d) < 0;
    if (!bad)
        tree_diff_listings(la.v, la.n, lb.v, lb.n, 0, meta_one, &m);
    free(la.v);
    free(lb.v);
    *d = m.d;
    return bad || m.differs;
}

/* Whether byte k is one the operation wrote through its descriptor (w: NULL when none). */
static int written_byte(const struct written *w, const struct file_data *f, long k, char got)
{
    if (!w || !w->path || strcmp(w->path, f->path) != 0)
        return 0;
    uint64_t at = w->append ? (uint64_t)(f->len[FAULT_FILES_BEFORE] > 0 ? f->len[FAULT_FILES_BEFORE] : 0)
                            : w->off;
    return (uint64_t)k >= at && (uint64_t)k - at < w->len && (char)w->bytes[k - (long)at] == got;
}

static int byte_ok(const struct file_data *f, const struct written *w, long k)
{
    char got = f->bytes[FAULT_FILES_FAULTED][k];
    for (int s = FAULT_FILES_BEFORE; s <= FAULT_FILES_AFTER; s++)
        if (f->bytes[s] && k < f->len[s] && f->bytes[s][k] == got)
            return 1;
    return got == 0 || written_byte(w, f, k, got);
}

/* The first byte of a file after the fault that no one wrote; 1 with detail, else 0. */
static int stale_byte(const struct fault_files *ff, char *detail, size_t len)
{
    for (size_t i = 0; i < ff->n; i++) {
        const struct file_data *f = &ff->v[i];
        for (long k = 0; f->bytes[FAULT_FILES_FAULTED] && k < f->len[FAULT_FILES_FAULTED]; k++)
            if (!byte_ok(f, &ff->w, k)) {
                snprintf(detail, len, "%s: byte %ld of %ld is 0x%02x after the fault, which it "
                         "held neither before (%ld bytes) nor after (%ld bytes) the operation",
                         f->path, k, f->len[FAULT_FILES_FAULTED],
                         (unsigned char)f->bytes[FAULT_FILES_FAULTED][k], f->len[0], f->len[1]);
                return 1;
            }
    }
    return 0;
}

unsigned fault_files_judge(const struct fault_files *ff, const char *before_listing,
                           const char *after_listing, const char *fault_listing, char *detail,
                           size_t len)
{
    struct state_diff d;
    if (meta_differs(before_listing, fault_listing, &d) &&
        meta_differs(after_listing, fault_listing, &d)) {
        snprintf(detail, len, "failed, and left a state neither before nor after it, beyond "
                 "file data: %s of %.300s differs from the clean run's", tree_diff_name(d.attr),
                 d.entry);
        return FAULT_PARTIAL;
    }
    return stale_byte(ff, detail, len) ? FAULT_STALE : 0;
}
