/* bin/metis-faultdev: a FUSE 3 low-level daemon that serves one image file and fails its reads and writes on command (Metis's faulty device). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* fallocate; Metis's build defines it, a reproducer's does not */
#endif
#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faultdev_proto.h"
#include "faultdev_states.h"

#ifndef METIS_VERSION
#define METIS_VERSION "standalone"
#endif

enum { INO_ROOT = 1, INO_IMG = 2, INO_CTL = 3, INO_LOG = 4 };

/* What is armed: which requests count, from which one on they fail, and how. */
struct fault {
    int armed;
    int writes;                 /* 1: writes count and fail; 0: reads */
    int lose;                   /* writes: acknowledged and dropped instead of failed */
    int silent;                 /* lost writes: no fsync ever reports them */
    uint64_t at, count;         /* the at-th matching request fails first; count of them (0: all) */
    uint64_t off, len;          /* only requests overlapping [off, off + len) match (len 0: all) */
};

struct counters {
    uint64_t reads, writes, fsyncs, matched, failed, lost;
    int loss_unreported;        /* a lost write the next fsync must report (armed or not) */
};

/* The test hooks' lies about flushes: record on lie (a flush does not cover the writes before
 * it), record on early (a flush does not order: the write after it is durable before it). */
enum lie { LIE_NONE, LIE_LATE, LIE_EARLY };

/* The block log (record on): what was written, discarded and flushed, in the order served. */
struct blocklog {
    int on;
    enum lie lie;
    char *p;
    size_t len, cap;
    size_t since_flush;         /* where the records since the last flush start (lie) */
    size_t stretch;             /* where the records before the last flush start (early) */
    int after_flush;            /* no write logged since the last flush (early) */
};

struct device {
    int fd;
    uint64_t size;
    struct fault f;
    struct counters c;
    struct blocklog log;
};

static struct device *dev_of(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

/* ---- the fault ---- */

static int overlaps(const struct fault *f, uint64_t off, size_t size)
{
    return f->len == 0 || (off < f->off + f->len && off + size > f->off);
}

/* Counts a request and says whether it is one the armed fault hits. */
static int hit(struct device *d, int write, uint64_t off, size_t size)
{
    struct fault *f = &d->f;
    if (!f->armed || f->writes != write || !overlaps(f, off, size))
        return 0;
    uint64_t k = d->c.matched++;
    return k >= f->at && (f->count == 0 || k < f->at + f->count);
}

static int parse_u64(const char *s, uint64_t *v);

/* ---- the block log ---- */

static int log_reserve(struct blocklog *l, size_t more)
{
    if (l->len + more <= l->cap)
        return 0;
    size_t cap = l->cap ? l->cap : 1 << 20;
    while (cap < l->len + more)
        cap *= 2;
    char *p = realloc(l->p, cap);
    if (!p)
        return -1;
    l->p = p;
    l->cap = cap;
    return 0;
}

/* The lie (a test hook): the flush being logged does not cover the writes since the one before
 * it: they go after it in the log (durable only at the next flush), the marks stay where they
 * were. The flush's room is reserved; 0, or -1 out of memory. */
static int log_lie(struct blocklog *l, const struct faultdev_rec *flush)
{
    size_t from = l->since_flush, n = l->len - from, marks = 0, rest = 0;
    char *tmp = malloc(n ? n : 1);
    if (!tmp)
        return -1;
    for (size_t pos = from; pos < l->len;) {
        struct faultdev_rec r;
        memcpy(&r, l->p + pos, sizeof r);
        size_t size = sizeof r + (r.kind == FAULTDEV_REC_WRITE ? r.len : 0);
        if (r.kind == FAULTDEV_REC_MARK)
            memmove(l->p + from + marks, l->p + pos, size), marks += size;
        else
            memcpy(tmp + rest, l->p + pos, size), rest += size;
        pos += size;
    }
    memcpy(l->p + from + marks, flush, sizeof *flush);
    memcpy(l->p + from + marks + sizeof *flush, tmp, rest);
    l->len += sizeof *flush;
    l->since_flush = l->len;
    free(tmp);
    return 0;
}

/* Appends one record (and a write's data); a log out of memory stops, so that its reader sees
 * it end short of the stream rather than with a hole in it. */
static void log_add(struct blocklog *l, uint32_t kind, uint32_t len, uint64_t off,
                    const char *data)
{
    struct faultdev_rec r = { kind, len, off };
    size_t n = sizeof r + (data ? len : 0);
    if (!l->on)
        return;
    if (log_reserve(l, n) < 0) {
        l->on = 0;
        return;
    }
    if (kind == FAULTDEV_REC_FLUSH && l->lie == LIE_LATE) {
        if (log_lie(l, &r) < 0)
            l->on = 0;
        return;
    }
    size_t at = l->len;
    if (kind == FAULTDEV_REC_FLUSH) {
        l->stretch = l->since_flush;
        l->since_flush = l->len + sizeof r;
        l->after_flush = 1;
    } else if (kind == FAULTDEV_REC_WRITE && l->lie == LIE_EARLY && l->after_flush) {
        /* The early lie: the write goes ahead of the stretch the last flush ended. */
        at = l->stretch;
        memmove(l->p + at + n, l->p + at, l->len - at);
        l->since_flush += n;
    }
    if (kind == FAULTDEV_REC_WRITE)
        l->after_flush = 0;
    memcpy(l->p + at, &r, sizeof r);
    if (data)
        memcpy(l->p + at + sizeof r, data, len);
    l->len += n;
}

/* record on [lie|early] | record off | record mark N */
static int record_command(struct blocklog *l, const char *args)
{
    uint64_t n;
    if (strcmp(args, "on") == 0 || strcmp(args, "on lie") == 0 || strcmp(args, "on early") == 0) {
        l->on = 1;
        l->lie = !args[2] ? LIE_NONE : !strcmp(args + 3, "lie") ? LIE_LATE : LIE_EARLY;
        l->len = l->since_flush = l->stretch = 0;
        l->after_flush = 0;
        return 0;
    }
    if (strcmp(args, "off") == 0)
        return l->on = 0, 0;
    if (strncmp(args, "mark ", 5) == 0 && parse_u64(args + 5, &n) == 0 && n <= UINT32_MAX) {
        log_add(l, FAULTDEV_REC_MARK, (uint32_t)n, 0, NULL);
        return 0;
    }
    return -1;
}

/* ---- control commands ---- */

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *v = n;
    return 0;
}

/* One "key=value" or flag word of an arm command. */
static int arm_word(struct fault *f, const char *w)
{
    if (strcmp(w, "silent") == 0)
        return f->silent = 1, 0;
    if (strncmp(w, "at=", 3) == 0)
        return parse_u64(w + 3, &f->at);
    if (strncmp(w, "count=", 6) == 0)
        return parse_u64(w + 6, &f->count);
    if (strncmp(w, "off=", 4) == 0)
        return parse_u64(w + 4, &f->off);
    if (strncmp(w, "len=", 4) == 0)
        return parse_u64(w + 4, &f->len);
    return -1;
}

static int parse_arm(char *words, struct fault *f)
{
    char *save = NULL, *dir = strtok_r(words, " ", &save), *how = strtok_r(NULL, " ", &save);
    memset(f, 0, sizeof *f);
    if (!dir || !how || (strcmp(dir, "read") && strcmp(dir, "write")) ||
        (strcmp(how, "eio") && strcmp(how, "lost")))
        return -1;
    f->writes = strcmp(dir, "write") == 0;
    f->lose = strcmp(how, "lost") == 0;
    if (f->lose && !f->writes)
        return -1;
    for (char *w = strtok_r(NULL, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (arm_word(f, w) < 0)
            return -1;
    f->armed = 1;
    return 0;
}

static int command(struct device *d, const char *buf, size_t size)
{
    char line[256];
    struct fault f;
    if (size == 0 || size >= sizeof line)
        return EINVAL;
    memcpy(line, buf, size);
    line[size] = '\0';
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "record ", 7) == 0)
        return record_command(&d->log, line + 7) < 0 ? EINVAL : 0;
    if (strcmp(line, "disarm") == 0) {
        d->f.armed = 0;         /* a lost write not told yet stays for the next flush */
        return 0;
    }
    if (strncmp(line, "arm ", 4) != 0 || parse_arm(line + 4, &f) < 0)
        return EINVAL;
    d->f = f;
    memset(&d->c, 0, sizeof d->c);
    return 0;
}

static size_t status(const struct device *d, char *out, size_t len)
{
    int n = snprintf(out, len, "armed=%d reads=%" PRIu64 " writes=%" PRIu64 " fsyncs=%" PRIu64
                     " matched=%" PRIu64 " failed=%" PRIu64 " lost=%" PRIu64 "\n", d->f.armed,
                     d->c.reads, d->c.writes, d->c.fsyncs, d->c.matched, d->c.failed, d->c.lost);
    return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* ---- the file system: a root with img and ctl ---- */

static int fill_stat(const struct device *d, fuse_ino_t ino, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = ino;
    st->st_nlink = 1;
    if (ino == INO_ROOT) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
    } else if (ino == INO_IMG) {
        st->st_mode = S_IFREG | 0600;
        st->st_size = (off_t)d->size;
        st->st_blocks = (blkcnt_t)(d->size / 512);
    } else if (ino == INO_CTL || ino == INO_LOG) {
        st->st_mode = S_IFREG | 0600;
    } else {
        return -1;
    }
    return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    e.ino = strcmp(name, FAULTDEV_IMAGE_NAME) == 0 ? INO_IMG
          : strcmp(name, FAULTDEV_CTL_NAME) == 0 ? INO_CTL
          : strcmp(name, FAULTDEV_LOG_NAME) == 0 ? INO_LOG : 0;
    if (parent != INO_ROOT || e.ino == 0) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    fill_stat(dev_of(req), e.ino, &e.attr);
    fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct stat st;
    if (fill_stat(dev_of(req), ino, &st) < 0)
        fuse_reply_err(req, ENOENT);
    else
        fuse_reply_attr(req, &st, 0);
}

static void add_entry(fuse_req_t req, char *buf, size_t size, size_t *used, const char *name,
                      fuse_ino_t ino, off_t next)
{
    struct stat st = { .st_ino = ino, .st_mode = ino == INO_ROOT ? S_IFDIR : S_IFREG };
    size_t n = fuse_add_direntry(req, buf + *used, size - *used, name, &st, next);
    if (*used + n <= size)
        *used += n;
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    static const struct { const char *name; fuse_ino_t ino; } names[] = {
        { ".", INO_ROOT }, { "..", INO_ROOT }, { FAULTDEV_IMAGE_NAME, INO_IMG },
        { FAULTDEV_CTL_NAME, INO_CTL }, { FAULTDEV_LOG_NAME, INO_LOG },
    };
    char buf[1024];
    size_t used = 0;
    if (size > sizeof buf)
        size = sizeof buf;
    for (off_t k = off; k < 5; k++)
        add_entry(req, buf, size, &used, names[k].name, names[k].ino, k + 1);
    fuse_reply_buf(req, buf, used);
}

/* No page cache: every read and write of img must reach us when the loop device issues it. */
static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    if (ino != INO_IMG && ino != INO_CTL && ino != INO_LOG) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    fi->direct_io = 1;
    fi->keep_cache = 0;
    fuse_reply_open(req, fi);
}

static void read_image(fuse_req_t req, struct device *d, size_t size, off_t off)
{
    char *buf = malloc(size ? size : 1);
    d->c.reads++;
    if (hit(d, 0, (uint64_t)off, size)) {
        d->c.failed++;
        free(buf);
        fuse_reply_err(req, EIO);
        return;
    }
    ssize_t n = buf ? pread(d->fd, buf, size, off) : -1;
    if (n < 0)
        fuse_reply_err(req, buf ? errno : ENOMEM);
    else
        fuse_reply_buf(req, buf, (size_t)n);
    free(buf);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    struct device *d = dev_of(req);
    char text[FAULTDEV_STATUS_MAX];
    if (ino == INO_IMG) {
        read_image(req, d, size, off);
        return;
    }
    if (ino == INO_LOG) {
        size_t from = (size_t)off < d->log.len ? (size_t)off : d->log.len;
        fuse_reply_buf(req, d->log.p + from, size < d->log.len - from ? size : d->log.len - from);
        return;
    }
    size_t n = status(d, text, sizeof text);
    size_t from = (size_t)off < n ? (size_t)off : n;
    fuse_reply_buf(req, text + from, size < n - from ? size : n - from);
}

static void write_image(fuse_req_t req, struct device *d, const char *buf, size_t size, off_t off)
{
    d->c.writes++;
    if (hit(d, 1, (uint64_t)off, size)) {
        if (!d->f.lose) {
            d->c.failed++;
            fuse_reply_err(req, EIO);
            return;
        }
        d->c.lost++;
        d->c.loss_unreported |= !d->f.silent;
        fuse_reply_write(req, size);
        return;
    }
    ssize_t n = pwrite(d->fd, buf, size, off);
    if (n < 0) {
        fuse_reply_err(req, errno);
        return;
    }
    log_add(&d->log, FAULTDEV_REC_WRITE, (uint32_t)n, (uint64_t)off, buf);
    fuse_reply_write(req, (size_t)n);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    struct device *d = dev_of(req);
    if (ino == INO_IMG) {
        write_image(req, d, buf, size, off);
        return;
    }
    int err = command(d, buf, size);
    if (err)
        fuse_reply_err(req, err);
    else
        fuse_reply_write(req, size);
}

/* A flush of the loop device arrives as an fsync of img: where a lost write is told. */
static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    struct device *d = dev_of(req);
    int tell = ino == INO_IMG && d->c.loss_unreported;
    if (ino == INO_IMG) {
        d->c.fsyncs++;
        log_add(&d->log, FAULTDEV_REC_FLUSH, 0, 0, NULL);
    }
    d->c.loss_unreported = 0;
    fuse_reply_err(req, tell ? EIO : 0);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    fuse_reply_err(req, 0);
}

/* Discards (a punched hole) pass through like writes do, but are never failed. */
static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    struct device *d = dev_of(req);
    if (ino != INO_IMG || (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
                                    FALLOC_FL_ZERO_RANGE))) {
        fuse_reply_err(req, EOPNOTSUPP);
        return;
    }
    int rc = fallocate(d->fd, mode | FALLOC_FL_KEEP_SIZE, off, len) < 0 ? errno : 0;
    if (rc == 0 && len > 0 && (uint64_t)len <= UINT32_MAX)
        log_add(&d->log, FAULTDEV_REC_DISCARD, (uint32_t)len, (uint64_t)off, NULL);
    fuse_reply_err(req, rc);
}

static const struct fuse_lowlevel_ops faultdev_ops = {
    .lookup = op_lookup,
    .getattr = op_getattr,
    .readdir = op_readdir,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .fsync = op_fsync,
    .flush = op_flush,
    .fallocate = op_fallocate,
};

/* ---- offline: the crash states of a saved block log, and a state built from it ---- */

struct saved_log {
    char *p;
    size_t len;
};

static int load_log(const char *path, struct saved_log *l)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 0;
    l->p = NULL;
    l->len = 0;
    while (f) {
        if (l->len == cap) {
            char *p = realloc(l->p, cap = cap ? 2 * cap : 1 << 20);
            if (!p)
                break;
            l->p = p;
        }
        size_t n = fread(l->p + l->len, 1, cap - l->len, f);
        l->len += n;
        if (n == 0)
            return fclose(f), 0;
    }
    fprintf(stderr, "metis-faultdev: %s: %s\n", path, f ? "out of memory" : strerror(errno));
    if (f)
        fclose(f);
    return -1;
}

/* The record at *pos (its data after it); 0 at the end or at a malformed record. */
static int next_rec(const struct saved_log *l, size_t *pos, struct faultdev_rec *r, const char **data)
{
    if (l->len - *pos < sizeof *r)
        return 0;
    memcpy(r, l->p + *pos, sizeof *r);
    size_t n = r->kind == FAULTDEV_REC_WRITE ? r->len : 0;
    if (l->len - *pos - sizeof *r < n)
        return 0;
    *data = l->p + *pos + sizeof *r;
    *pos += sizeof *r + n;
    return 1;
}

/* The kinds of the log's records, and where the marks 1 and 2 are (the caller's syncs began,
 * and returned; SIZE_MAX when absent); NULL out of memory. */
static unsigned *log_kinds(const struct saved_log *l, size_t *n, size_t *mark1, size_t *mark2)
{
    struct faultdev_rec r;
    const char *data;
    size_t pos = 0, cap = 64;
    unsigned *kind = malloc(cap * sizeof *kind);
    *n = 0;
    *mark1 = *mark2 = SIZE_MAX;
    while (kind && next_rec(l, &pos, &r, &data)) {
        if (*n == cap) {
            unsigned *k = realloc(kind, (cap *= 2) * sizeof *k);
            if (!k)
                return free(kind), NULL;
            kind = k;
        }
        if (r.kind == FAULTDEV_REC_MARK && r.len == 1 && *mark1 == SIZE_MAX)
            *mark1 = *n;
        if (r.kind == FAULTDEV_REC_MARK && r.len == 2 && *mark2 == SIZE_MAX)
            *mark2 = *n;
        kind[(*n)++] = r.kind;
    }
    return kind;
}

/* The log's crash states (faultdev_states.c, as Metis enumerates them), the first max of them:
 * with full, one line "KIND END SKIP SYNCING SYNCED" each (SKIP -1 for none; SYNCING and
 * SYNCED 1 when the mark 1 or 2 comes before the record the power cut came before), else
 * "END SYNCED" (--flushes). */
static int list_states(const char *path, int reorder, size_t max, int full)
{
    struct saved_log l;
    size_t n, mark1, mark2;
    if (load_log(path, &l) < 0)
        return 1;
    unsigned *kind = log_kinds(&l, &n, &mark1, &mark2);
    size_t all = kind ? crash_states_of(kind, n, reorder, NULL, 0) : 0;
    struct crash_state *st = kind ? calloc(all < max ? all : max, sizeof *st) : NULL;
    free(l.p);
    if (!st) {
        free(kind);
        return fprintf(stderr, "metis-faultdev: %s: out of memory\n", path), 1;
    }
    size_t shown = all < max ? all : max;
    crash_states_of(kind, n, reorder, st, shown);
    for (size_t k = 0; k < shown; k++) {
        int syncing = mark1 < st[k].crash_at, synced = mark2 < st[k].crash_at;
        if (full)
            printf("%s %zu %ld %d %d\n", crash_state_kind_name(st[k].kind), st[k].end,
                   st[k].skip, syncing, synced);
        else
            printf("%zu %d\n", st[k].end, synced);
    }
    free(st);
    free(kind);
    return 0;
}

/* --states LOG flushes|stream [MAX] */
static int states_command(int argc, char *argv[])
{
    uint64_t max = UINT64_MAX;
    int reorder = !strcmp(argv[3], "stream");
    if ((!reorder && strcmp(argv[3], "flushes")) || (argc == 5 && (parse_u64(argv[4], &max) < 0 || !max)))
        return fprintf(stderr, "metis-faultdev: --states: expected LOG flushes|stream [MAX], "
                       "MAX a count from 1\n"), 2;
    return list_states(argv[2], reorder, max > SIZE_MAX ? SIZE_MAX : (size_t)max, 1);
}

/* A copy of the file from into a new file to; the open copy, or -1. */
static int copy_file(const char *from, const char *to)
{
    static char buf[1 << 16];
    int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (in >= 0)
        close(in);
    if (n == 0 || out < 0)
        return out;
    close(out);
    return -1;
}

/* OUT becomes BASE with the writes and discards among the log's records before END, but the
 * one numbered SKIP. */
static int build_state(const char *log, const char *base, const char *out, const char *end,
                       const char *skip)
{
    struct saved_log l;
    struct faultdev_rec r;
    const char *data;
    uint64_t stop, leave = UINT64_MAX;
    size_t pos = 0;
    if (parse_u64(end, &stop) < 0 || (skip && parse_u64(skip, &leave) < 0))
        return fprintf(stderr, "metis-faultdev: --state: END and SKIP are record numbers\n"), 2;
    int fd = copy_file(base, out);
    if (fd < 0 || load_log(log, &l) < 0)
        return fprintf(stderr, "metis-faultdev: cannot make %s from %s\n", out, base), 1;
    for (uint64_t k = 0; k < stop && next_rec(&l, &pos, &r, &data); k++) {
        if (k == leave)
            continue;
        if (r.kind == FAULTDEV_REC_WRITE && pwrite(fd, data, r.len, (off_t)r.off) != (ssize_t)r.len)
            return fprintf(stderr, "metis-faultdev: writing %s: %s\n", out, strerror(errno)), 1;
        if (r.kind == FAULTDEV_REC_DISCARD)
            fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)r.off, (off_t)r.len);
    }
    free(l.p);
    return close(fd) < 0;
}

/* ---- main ---- */

static int usage(void)
{
    printf("usage: metis-faultdev IMAGE MOUNTPOINT\n"
               "Mounts a FUSE file system whose file MOUNTPOINT/%s passes reads and writes to\n"
               "IMAGE, and whose file MOUNTPOINT/%s arms faults (see faultdev/README.md):\n"
               "  echo 'arm write eio at=3' > MOUNTPOINT/%s   # the 4th write on fails with EIO\n"
               "  echo disarm > MOUNTPOINT/%s; cat MOUNTPOINT/%s\n"
               "Stays in the foreground until unmounted.\n"
               "  metis-faultdev --flushes LOG   # the persistence points of a saved block log\n"
               "  metis-faultdev --states LOG flushes|stream [MAX]   # its crash states, as Metis's\n"
               "  metis-faultdev --state LOG BASE OUT END [SKIP]   # OUT: BASE and the log's writes\n",
            FAULTDEV_IMAGE_NAME, FAULTDEV_CTL_NAME, FAULTDEV_CTL_NAME, FAULTDEV_CTL_NAME,
            FAULTDEV_CTL_NAME);
    return 0;
}

static int serve(struct device *d, const char *prog, const char *mnt)
{
    char *argv[] = { (char *)prog, "-o", "fsname=metis-faultdev,subtype=faultdev", NULL };
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    struct fuse_session *se = fuse_session_new(&args, &faultdev_ops, sizeof faultdev_ops, d);
    int rc = 1;
    if (!se)
        return 1;
    if (fuse_set_signal_handlers(se) == 0) {
        if (fuse_session_mount(se, mnt) == 0) {
            rc = fuse_session_loop(se) != 0;
            fuse_session_unmount(se);
        }
        fuse_remove_signal_handlers(se);
    }
    fuse_session_destroy(se);
    return rc;
}

int main(int argc, char *argv[])
{
    struct device d;
    struct stat st;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return usage();
    if (argc == 2 && !strcmp(argv[1], "--version"))
        return printf("metis-faultdev %s\n", METIS_VERSION) < 0;
    if (argc == 3 && !strcmp(argv[1], "--flushes"))
        return list_states(argv[2], 0, SIZE_MAX, 0);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--states"))
        return states_command(argc, argv);
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "--state"))
        return build_state(argv[2], argv[3], argv[4], argv[5], argc == 7 ? argv[6] : NULL);
    if (argc != 3 || argv[1][0] == '-') {
        fprintf(stderr, "metis-faultdev: expected IMAGE MOUNTPOINT (--help for the usage)\n");
        return 2;
    }
    memset(&d, 0, sizeof d);
    d.fd = open(argv[1], O_RDWR | O_CLOEXEC);
    if (d.fd < 0 || fstat(d.fd, &st) < 0) {
        fprintf(stderr, "metis-faultdev: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    d.size = (uint64_t)st.st_size;
    return serve(&d, argv[0], argv[2]);
}
