/* Run-log reader: follows from= and save sid= back from the discrepancy to state 0 and projects that path (or a target's history since its last fresh mount) to a trace. */
#include "runlog.h"
#include "lib/text/buf.h"
#include "lib/text/numbers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

/* What pass one keeps of every operation: enough to walk the path back. */
struct op_rec {
    uint64_t from;
    uint64_t sid;
    int saved;
};

struct sid_map {
    uint64_t sid;
    uint64_t seq;
    UT_hash_handle hh;
};

/* A "fresh" record: fs was mounted afresh in step seq and brought to state sid. */
struct fresh_rec {
    char fs[64];
    uint64_t seq, sid;
    long line;
};

struct scan {
    const char *file;
    long line;
    struct op_rec *ops;         /* by seq - 1 */
    uint64_t nops;
    size_t cap, exports_cap;
    struct sid_map *sids;
    int disc_seen;
    uint64_t disc_seq;
    int has_at;                 /* take the discrepancy of operation at, not the first */
    uint64_t at;
    int in_exports;             /* between the first discrepancy and the next op */
    char disc_fs[64];           /* the fs of its first discrepancy record */
    char first_fs[64];          /* fs 1, the default target without a discrepancy */
    struct fresh_rec *fresh;
    size_t nfresh, fresh_cap;
    struct runlog *rl;
    char *err;
    size_t errlen;
};

static int serr(struct scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int serr(struct scan *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->errlen, "%s:%ld: %s", s->file, s->line, msg);
    return -1;
}

static int starts(const char *line, const char *word)
{
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && line[n] == ' ';
}

/* The value of " key=" in line, copied up to the next space. */
static int field(const char *line, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    size_t n = strcspn(p, " ");
    if (n >= cap)
        return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

static int field_u64(const char *line, const char *key, uint64_t *v)
{
    char buf[32];
    if (field(line, key, buf, sizeof buf) < 0)
        return -1;
    return parse_decimal_u64(buf, v);
}

static int scan_op(struct scan *s, const char *line)
{
    uint64_t seq;
    if (sscanf(line, "op %" SCNu64, &seq) != 1 || seq != s->nops + 1)
        return serr(s, "operation numbers out of order");
    if (array_reserve(&s->ops, &s->cap, s->nops + 1, sizeof *s->ops))
        return serr(s, "out of memory");
    struct op_rec *r = &s->ops[s->nops++];
    memset(r, 0, sizeof *r);
    if (field_u64(line, "from", &r->from) < 0)
        return serr(s, "op without from=");
    s->in_exports = 0;
    return 0;
}

static int scan_save(struct scan *s, const char *line)
{
    uint64_t seq, sid;
    if (sscanf(line, "save %" SCNu64, &seq) != 1 || field_u64(line, "sid", &sid) < 0 ||
        seq == 0 || seq > s->nops)
        return serr(s, "bad save record");
    s->ops[seq - 1].sid = sid;
    s->ops[seq - 1].saved = 1;
    struct sid_map *m;
    HASH_FIND(hh, s->sids, &sid, sizeof sid, m);
    if (!m) {
        if (!(m = calloc(1, sizeof *m)))
            return serr(s, "out of memory");
        m->sid = sid;
        HASH_ADD(hh, s->sids, sid, sizeof m->sid, m);
    }
    m->seq = seq;
    return 0;
}

/* A state file named in the log, or the same name under RUN_DIR/states if the run moved. */
static void resolve_export(const char *run_dir, const char *file, char *out, size_t cap)
{
    const char *base = strrchr(file, '/');
    out[0] = '\0';
    if (file[0] == '(')
        return;                 /* "(not saved: ...)" */
    if (access(file, R_OK) == 0)
        snprintf(out, cap, "%s", file);
    else if (base && snprintf(out, cap, "%s/states/%s", run_dir, base + 1) < (int)cap &&
             access(out, R_OK) == 0)
        return;
    else
        out[0] = '\0';
}

static int scan_export(struct scan *s, const char *line, const char *run_dir)
{
    struct runlog *rl = s->rl;
    struct runlog_export e;
    memset(&e, 0, sizeof e);
    const char *file = strstr(line, " file=");
    if (field_u64(line, "sid", &e.sid) < 0 || field_u64(line, "seq", &e.seq) < 0 ||
        field(line, "fs", e.fs, sizeof e.fs) < 0 || !file)
        return serr(s, "bad export record");
    resolve_export(run_dir, file + 6, e.file, sizeof e.file);
    if (array_reserve(&rl->exports, &s->exports_cap, rl->nexports + 1, sizeof *rl->exports))
        return serr(s, "out of memory");
    rl->exports[rl->nexports++] = e;
    return 0;
}

static int scan_fresh(struct scan *s, const char *line)
{
    struct fresh_rec r = { .line = s->line };
    char fmt[64];
    snprintf(fmt, sizeof fmt, "fresh %%" SCNu64 " %%%zus", sizeof r.fs - 1);
    if (sscanf(line, fmt, &r.seq, r.fs) != 2 || field_u64(line, "sid", &r.sid) < 0)
        return serr(s, "bad fresh record");
    if (array_reserve(&s->fresh, &s->fresh_cap, s->nfresh + 1, sizeof *s->fresh))
        return serr(s, "out of memory");
    s->fresh[s->nfresh++] = r;
    return 0;
}

static int scan_line(struct scan *s, const char *line, const char *run_dir)
{
    if (s->line == 1)
        return strcmp(line, "metis-log 1") == 0 ? 0 : serr(s, "not a Metis run log");
    if (starts(line, "op"))
        return scan_op(s, line);
    if (starts(line, "save"))
        return scan_save(s, line);
    if (starts(line, "run"))
        return field(line, "id", s->rl->run_id, sizeof s->rl->run_id), 0;
    if (starts(line, "fresh"))
        return scan_fresh(s, line);
    if (starts(line, "fs") && !s->first_fs[0] && strncmp(line, "fs 1 ", 5) == 0)
        return field(line, "name", s->first_fs, sizeof s->first_fs), 0;
    if (starts(line, "discrepancy") && !s->disc_seen) {
        if (sscanf(line, "discrepancy %" SCNu64, &s->disc_seq) != 1)
            return serr(s, "bad discrepancy record");
        s->disc_seen = !s->has_at || s->disc_seq == s->at;
        s->in_exports = s->disc_seen;
        if (s->disc_seen && field(line, "fs", s->disc_fs, sizeof s->disc_fs) < 0)
            return serr(s, "discrepancy without fs=");
        return 0;
    }
    if (starts(line, "export") && s->in_exports)
        return scan_export(s, line, run_dir);
    return 0;
}

/* Reads every line of path, calling fn; strips the newline. */
static int each_line(const char *path, int (*fn)(void *ctx, const char *line, long nr), void *ctx)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -2;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    long nr = 0;
    int rc = 0;
    while (rc == 0 && (n = getline(&buf, &cap, f)) >= 0) {
        if (n && buf[n - 1] == '\n')
            buf[--n] = '\0';
        rc = fn(ctx, buf, ++nr);
    }
    free(buf);
    fclose(f);
    return rc;
}

struct pass1 {
    struct scan *s;
    const char *run_dir;
};

static int pass1_line(void *ctx, const char *line, long nr)
{
    struct pass1 *p = ctx;
    p->s->line = nr;
    return scan_line(p->s, line, p->run_dir);
}

/* The seqs of the path to seq end, from the first operation on: 1 if on the path. */
static int mark_path(struct scan *s, uint64_t end, unsigned char *on_path)
{
    for (uint64_t seq = end; seq > 0;) {
        on_path[seq - 1] = 1;
        uint64_t from = s->ops[seq - 1].from;
        if (from == 0)
            return 0;
        struct sid_map *m;
        HASH_FIND(hh, s->sids, &from, sizeof from, m);
        if (!m || m->seq >= seq)
            return serr(s, "op %" PRIu64 " starts from state %" PRIu64
                        ", which no earlier operation saved", seq, from);
        seq = m->seq;
    }
    return 0;
}

/* ---- a target's history: what it ran since its last fresh mount ---- */

/* The history a trace to operation end holds: of fs, since its fresh record at line (its
 * calls after that line, up to end). */
struct history {
    int on;
    char fs[64];
    long line;
};

/* The last fresh mount of fs at or before step end, or NULL: fs has snapshots. */
static const struct fresh_rec *last_fresh(const struct scan *s, const char *fs, uint64_t end)
{
    const struct fresh_rec *last = NULL;
    for (size_t k = 0; k < s->nfresh; k++)
        if (strcmp(s->fresh[k].fs, fs) == 0 && s->fresh[k].seq <= end)
            last = &s->fresh[k];
    return last;
}

/* Marks what fs ran since its last fresh mount: the path to the state that mount was brought
 * to, then every operation from that step to end. */
static int mark_history(struct scan *s, const struct fresh_rec *f, uint64_t end,
                        unsigned char *marks)
{
    if (f->sid != 0) {
        struct sid_map *m;
        HASH_FIND(hh, s->sids, &f->sid, sizeof f->sid, m);
        if (!m || m->seq > f->seq)
            return serr(s, "fresh mount to state %" PRIu64 ", which no earlier operation saved",
                        f->sid);
        if (mark_path(s, m->seq, marks) < 0)
            return -1;
    }
    for (uint64_t seq = f->seq ? f->seq : 1; seq <= end; seq++)
        marks[seq - 1] = 1;
    return 0;
}

/* The history of the fs the trace is for (want, else the one that differs at the end, else
 * fs 1) when it has fresh records; else the search path. */
static int mark_ops(struct scan *s, const char *want, uint64_t end, unsigned char *marks,
                    struct history *h)
{
    const char *fs = want ? want : s->disc_seen ? s->disc_fs : s->first_fs;
    const struct fresh_rec *f = last_fresh(s, fs, end);
    memset(h, 0, sizeof *h);
    if (!f)
        return mark_path(s, end, marks);
    h->on = 1;
    h->line = f->line;
    snprintf(h->fs, sizeof h->fs, "%s", fs);
    return mark_history(s, f, end, marks);
}

/* ---- pass two: the trace text of the path ---- */

struct pass2 {
    FILE *out;
    const unsigned char *on_path;
    uint64_t nops, end;
    const struct history *h;
    size_t calls;
    const struct scan *s;
    char **pend;                /* the call records of the restore before the next operation */
    size_t npend, pend_cap;
    int failed;
};

/* Whether a history holds the calls of fs name (its first len bytes): the history's fs's,
 * and those of a fs without fresh mounts, which logs its own restores' calls (a reference
 * restored logically, fs_logs_own_calls); another target's history is not this one's. */
static int history_holds_calls_of(const struct pass2 *p, const char *name, size_t len)
{
    char fs[64];
    snprintf(fs, sizeof fs, "%.*s", (int)(len < sizeof fs ? len : sizeof fs - 1), name);
    if (!strcmp(fs, p->h->fs))
        return 1;
    for (size_t k = 0; k < p->s->nfresh; k++)
        if (!strcmp(p->s->fresh[k].fs, fs))
            return 0;
    return 1;
}

/* A call record after the history's fresh mount, up to the end, of a fs whose calls it holds:
 * kept until the restore's calls are all read (flush_calls). */
static int history_call(struct pass2 *p, const char *line, long nr)
{
    uint64_t seq;
    const char *name = strchr(line + 5, ' ');
    const char *end = name ? strchr(name + 1, ' ') : NULL;
    if (!p->h->on || nr <= p->h->line || sscanf(line, "call %" SCNu64, &seq) != 1 ||
        seq > p->end || !end || !history_holds_calls_of(p, name + 1, (size_t)(end - name - 1)))
        return 0;
    char *copy = strdup(line);
    if (!copy || array_reserve(&p->pend, &p->pend_cap, p->npend + 1, sizeof *p->pend)) {
        free(copy);
        p->failed = 1;
        return 1;
    }
    p->pend[p->npend++] = copy;
    return 1;
}

/* Field k (from 0) of a record and its length: "call SEQ NAME ret=R errno=E KIND ARGS" has the
 * fs as field 2 and the call itself from field 5 on (its rest: *len is then the rest's). */
static const char *field_at(const char *line, int k, size_t *len, int rest)
{
    for (int i = 0; i < k && line; i++)
        if ((line = strchr(line, ' ')))
            line++;
    if (!line)
        return *len = 0, "";
    *len = rest ? strlen(line) : strcspn(line, " ");
    return line;
}

/* Whether pending call a is one of fs name (len bytes). */
static int call_of(const char *a, const char *name, size_t len)
{
    size_t la;
    const char *fa = field_at(a, 2, &la, 0);
    return la == len && !strncmp(fa, name, len);
}

/* Whether the pending calls of the fs of pend[k] are the history fs's, call for call: that fs
 * then reaches the same state by the history fs's calls (trace_call_made_on), and a history
 * holds them once. */
static int echoes_history_fs(const struct pass2 *p, size_t k)
{
    size_t len, hn = strlen(p->h->fs), la, lb;
    const char *fs = field_at(p->pend[k], 2, &len, 0);
    if (call_of(p->pend[k], p->h->fs, hn))
        return 0;
    for (size_t i = 0, j = 0;; i++, j++) {
        while (i < p->npend && !call_of(p->pend[i], fs, len))
            i++;
        while (j < p->npend && !call_of(p->pend[j], p->h->fs, hn))
            j++;
        if (i == p->npend || j == p->npend)
            return i == p->npend && j == p->npend;
        const char *a = field_at(p->pend[i], 5, &la, 1), *b = field_at(p->pend[j], 5, &lb, 1);
        if (la != lb || strncmp(a, b, la))
            return 0;
    }
}

/* Writes the restore's calls kept: every fs's, but once where they are the history fs's. */
static void flush_calls(struct pass2 *p)
{
    for (size_t k = 0; k < p->npend; k++)
        if (!echoes_history_fs(p, k)) {
            fprintf(p->out, "%s\n", p->pend[k]);
            p->calls++;
        }
    for (size_t k = 0; k < p->npend; k++)
        free(p->pend[k]);
    p->npend = 0;
}

static int on_path(const struct pass2 *p, const char *line, const char *word)
{
    uint64_t seq;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "%s %%" SCNu64, word);
    if (sscanf(line, fmt, &seq) != 1)
        return 0;
    if (seq == 0)
        return 1;              /* a discrepancy of the initial state */
    return seq <= p->end && p->on_path[seq - 1];
}

/* "op SEQ depth=D from=S OP ARGS" -> "op SEQ OP ARGS" */
static void write_op(FILE *out, const char *line)
{
    const char *d = strstr(line, " depth="), *f = d ? strstr(d + 1, " from=") : NULL;
    const char *rest = f ? strchr(f + 1, ' ') : NULL;
    if (!rest) {
        fprintf(out, "%s\n", line);
        return;
    }
    fprintf(out, "%.*s%s\n", (int)(d - line), line, rest);
}

/* "init NAME sid=0 state=HEX" -> "init NAME state=HEX" */
static void write_init(FILE *out, const char *line)
{
    const char *sid = strstr(line, " sid=0 ");
    if (sid)
        fprintf(out, "%.*s%s\n", (int)(sid - line), line, sid + 6);
    else
        fprintf(out, "%s\n", line);
}

static int pass2_line(void *ctx, const char *line, long nr)
{
    struct pass2 *p = ctx;
    if (nr == 1)
        return 0;
    if (starts(line, "call") && history_call(p, line, nr))
        return 0;
    flush_calls(p);
    if (starts(line, "fs"))
        fprintf(p->out, "%s\n", line);
    else if (starts(line, "init"))
        write_init(p->out, line);
    else if (starts(line, "op") && on_path(p, line, "op"))
        write_op(p->out, line);
    else if ((starts(line, "part") && on_path(p, line, "part")) ||
             (starts(line, "res") && on_path(p, line, "res")) ||
             (starts(line, "fault") && on_path(p, line, "fault")) ||
             (starts(line, "discrepancy") && on_path(p, line, "discrepancy")))
        fprintf(p->out, "%s\n", line);
    return 0;
}

static void write_config(FILE *out, const char *run_dir, const char *cfg_path)
{
    char path[2048], *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    snprintf(path, sizeof path, "%s/config.ini", run_dir);
    FILE *f = fopen(path, "re");
    if (!f && cfg_path[0])
        f = fopen(cfg_path, "re");
    if (cfg_path[0])
        fprintf(out, "config %s\n", cfg_path);
    while (f && (n = getline(&buf, &cap, f)) >= 0) {
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        fprintf(out, n ? "cfg %s\n" : "cfg\n", buf);
    }
    free(buf);
    if (f)
        fclose(f);
}

static int run_header(const char *log, char *seed, char *hash, char *cfg, size_t cfgcap)
{
    FILE *f = fopen(log, "re");
    char line[4096];
    int rc = -1;
    while (f && fgets(line, sizeof line, f))
        if (starts(line, "run")) {
            line[strcspn(line, "\n")] = '\0';
            rc = field(line, "seed", seed, 32) | field(line, "hash", hash, 32);
            if (field(line, "config", cfg, cfgcap) < 0)
                cfg[0] = '\0';
            break;
        }
    if (f)
        fclose(f);
    return rc;
}

static int build_trace(struct scan *s, const char *run_dir, const char *log, uint64_t end,
                       const unsigned char *marks, const struct history *h)
{
    char seed[32], hash[32], cfg[1024], *text = NULL;
    size_t len = 0;
    if (run_header(log, seed, hash, cfg, sizeof cfg) < 0)
        return serr(s, "no run record");
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return serr(s, "out of memory");
    fprintf(out, "metis-trace 1\nrun seed=%s hash=%s\n", seed, hash);
    write_config(out, run_dir, cfg);
    struct pass2 p = { out, marks, s->nops, end, h, 0, s, NULL, 0, 0, 0 };
    each_line(log, pass2_line, &p);
    flush_calls(&p);
    free(p.pend);
    if (p.failed) {
        fclose(out);
        free(text);
        return serr(s, "out of memory");
    }
    size_t count = 0;
    for (uint64_t k = 0; k < end; k++)
        count += marks[k];
    if (p.calls)
        fprintf(out, "end ops=%zu calls=%zu\n", count, p.calls);
    else
        fprintf(out, "end ops=%zu\n", count);
    fclose(out);
    char path[1300];
    snprintf(path, sizeof path, "%s (search path)", log);
    int rc = trace_parse(text, len, path, &s->rl->trace, s->err, s->errlen);
    free(text);
    return rc;
}

static uint64_t path_end(const struct scan *s)
{
    if (s->disc_seen)
        return s->disc_seq;
    uint64_t end = s->nops;
    while (end > 0 && !s->ops[end - 1].saved)
        end--;                  /* an operation the run did not finish logging */
    return end;
}

static void scan_free(struct scan *s)
{
    struct sid_map *m, *tmp;
    HASH_ITER(hh, s->sids, m, tmp) {
        HASH_DEL(s->sids, m);
        free(m);
    }
    free(s->ops);
    free(s->fresh);
}

static int read_log(const char *run_dir, int has_at, uint64_t at, const char *fs,
                    struct runlog *rl, char *err, size_t errlen)
{
    struct history h;
    char log[1200];
    memset(rl, 0, sizeof *rl);
    snprintf(log, sizeof log, "%s/log.txt", run_dir);
    struct scan s = { .file = log, .rl = rl, .err = err, .errlen = errlen, .has_at = has_at,
                      .at = at };
    struct pass1 p1 = { &s, run_dir };
    int rc = each_line(log, pass1_line, &p1);
    if (rc == -2)
        snprintf(err, errlen, "%s: cannot read: %s", log, strerror(errno));
    if (rc == 0 && has_at && !s.disc_seen)
        rc = -1, snprintf(err, errlen, "%s: no discrepancy at operation %" PRIu64, log, at);
    uint64_t end = rc == 0 ? path_end(&s) : 0;
    if (rc == 0 && end > s.nops)
        rc = serr(&s, "discrepancy at operation %" PRIu64 " which the log does not hold", end);
    unsigned char *marks = rc == 0 ? calloc(end + 1, 1) : NULL;
    if (rc == 0 && !marks)
        rc = serr(&s, "out of memory");
    if (rc == 0)
        rc = mark_ops(&s, fs, end, marks, &h);
    if (rc == 0)
        rc = build_trace(&s, run_dir, log, end, marks, &h);
    rl->has_disc = s.disc_seen;
    rl->disc_seq = s.disc_seq;
    free(marks);
    scan_free(&s);
    if (rc < 0)
        runlog_free(rl);
    return rc < 0 ? -1 : 0;
}

int runlog_read(const char *run_dir, const char *fs, struct runlog *rl, char *err,
                size_t errlen)
{
    return read_log(run_dir, 0, 0, fs, rl, err, errlen);
}

int runlog_read_at(const char *run_dir, uint64_t seq, const char *fs, struct runlog *rl,
                   char *err, size_t errlen)
{
    return read_log(run_dir, 1, seq, fs, rl, err, errlen);
}

void runlog_free(struct runlog *rl)
{
    trace_free(&rl->trace);
    free(rl->exports);
    rl->exports = NULL;
    rl->nexports = 0;
}

const char *runlog_export_file(const struct runlog *rl, uint64_t sid, const char *fs)
{
    for (size_t i = 0; i < rl->nexports; i++)
        if (rl->exports[i].sid == sid && strcmp(rl->exports[i].fs, fs) == 0)
            return rl->exports[i].file[0] ? rl->exports[i].file : NULL;
    return NULL;
}
