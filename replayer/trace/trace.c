/* Trace text form: the strict parser (file:line errors, hostile input refused) and the canonical writer. */
#include "trace.h"
#include "backend/logical/calls/rcalls_text.h"
#include "engine/vocab/crash_modes.h"
#include "lib/text/buf.h"
#include "lib/text/numbers.h"
#include "lib/system/helpers.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TOKENS 12
#define MAX_ERRNO 134

void trace_init(struct trace *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->hash, sizeof t->hash, "md5");
    t->seed = 1;
}

void trace_free(struct trace *t)
{
    for (int i = 0; i < t->ncfg; i++)
        free(t->cfg[i]);
    free(t->cfg);
    for (size_t k = 0; k < t->nops; k++) {
        free(t->ops[k].calls);
        free(t->ops[k].call_text);
        free(t->ops[k].call_data);
    }
    free(t->ops);
    memset(t, 0, sizeof *t);
}

struct trace_op *trace_add_op(struct trace *t, uint64_t seq, const struct op_args *a)
{
    if (array_reserve(&t->ops, &t->ops_cap, t->nops + 1, sizeof *t->ops))
        return NULL;
    struct trace_op *op = &t->ops[t->nops++];
    memset(op, 0, sizeof *op);
    op->seq = seq;
    op->args = *a;
    return op;
}

/* Takes text (a call's text form, malloc'd) as step k's call, parsed; -1 with err. */
static int own_call(struct trace_op *op, char *text, char *err, size_t errlen)
{
    op->is_call = 1;
    op->call_text = text;
    return rcall_parse(text, &op->call, &op->call_data, err, errlen);
}

struct trace_op *trace_add_call(struct trace *t, uint64_t seq, int fs, const struct rcall *c,
                                struct op_result res)
{
    struct buf b = { 0 };
    char err[200];
    struct op_args none = { 0 };
    struct trace_op *op = rcall_format(c, &b) == 0 ? trace_add_op(t, seq, &none) : NULL;
    if (!op || own_call(op, b.p, err, sizeof err) < 0) {
        if (op)
            op->call_text = NULL, t->nops--;
        free(b.p);
        return NULL;
    }
    op->call_fs = fs;
    op->call_res = res;
    t->ncalls++;
    return op;
}

long trace_last_op(const struct trace *t)
{
    long k = (long)t->nops - 1;
    while (k >= 0 && t->ops[k].is_call)
        k--;
    return k;
}

struct trace_op *trace_add_copy(struct trace *t, const struct trace_op *src)
{
    if (src->is_call)
        return trace_add_call(t, src->seq, src->call_fs, &src->call, src->call_res);
    struct op_args *calls = NULL;
    if (src->ncalls && !(calls = malloc((size_t)src->ncalls * sizeof *calls)))
        return NULL;
    struct trace_op *op = trace_add_op(t, src->seq, &src->args);
    if (!op) {
        free(calls);
        return NULL;
    }
    op->fault = src->fault;
    op->tries = src->tries;
    op->ncalls = src->ncalls;
    op->calls = calls;
    if (calls)
        memcpy(calls, src->calls, (size_t)src->ncalls * sizeof *calls);
    memcpy(op->order, src->order, sizeof op->order);
    return op;
}

const struct op_args *trace_op_calls(const struct trace_op *op, int *n)
{
    *n = op->is_call ? 0 : op->tries ? op->ncalls : 1;
    return op->tries ? op->calls : &op->args;
}

int trace_op_set(const struct trace_op *op, struct together_set *set)
{
    if (!op->tries || op->ncalls < 2 || op->ncalls > TOGETHER_MAX)
        return -1;
    set->k = op->ncalls;
    memcpy(set->op, op->calls, (size_t)op->ncalls * sizeof *set->op);
    return 0;
}

int trace_add_cfg_line(struct trace *t, const char *line)
{
    return strv_push(&t->cfg, &t->ncfg, &t->cfg_cap, line);
}

int trace_fs_index(const struct trace *t, const char *name)
{
    for (int i = 0; i < t->nfs; i++)
        if (strcmp(t->fs[i].name, name) == 0)
            return i;
    return -1;
}

/* ---------- small codecs ---------- */

const char *trace_errno_name(int err)
{
    if (err == 0)
        return "0";
    const char *n = err > 0 ? strerrorname_np(err) : NULL;
    return n ? n : "E?";
}

int trace_errno_parse(const char *name)
{
    if (strcmp(name, "0") == 0)
        return 0;
    for (int e = 1; e < MAX_ERRNO; e++) {
        const char *n = strerrorname_np(e);
        if (n && strcmp(n, name) == 0)
            return e;
    }
    return -1;
}

void trace_hex_encode(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int trace_hex_decode(const char *hex, unsigned char *out, size_t cap)
{
    size_t n = strlen(hex);
    if (n == 0 || n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return (int)(n / 2);
}

static int parse_long(const char *s, long *out)
{
    uint64_t v;
    int neg = *s == '-';
    if (parse_canonical_u64(s + neg, &v) || v > (uint64_t)LONG_MAX + (uint64_t)neg || (neg && v == 0))
        return -1;
    *out = neg ? (long)(0 - v) : (long)v;
    return 0;
}

/* ---------- parser ---------- */

enum stage { ST_HEADER, ST_RUN, ST_CONFIG, ST_FS, ST_BODY, ST_END };

struct parser {
    struct trace *t;
    const char *file;
    int line;
    enum stage stage;
    uint64_t end_ops;
    int have_end, have_hash;
    char *err;
    size_t errlen;
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%d: %s", p->file, p->line, msg);
    return -1;
}

/* Splits s at single spaces in place; -1 on an empty token (double or edge space). */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (char *c = s;;) {
        if (n == max)
            return -1;
        tok[n++] = c;
        char *sp = strchr(c, ' ');
        if (!sp)
            break;
        *sp = '\0';
        c = sp + 1;
    }
    for (int i = 0; i < n; i++)
        if (!*tok[i])
            return -1;
    return n;
}

/* Fills vals[i] with the value of keys[i] from tokens "key=value"; each key exactly once. */
static int take_kv(struct parser *p, char **tok, int ntok, const char *const *keys, int nkeys,
                   char **vals)
{
    for (int k = 0; k < nkeys; k++)
        vals[k] = NULL;
    for (int i = 0; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return perr(p, "'%.40s' is not key=value", tok[i]);
        *eq = '\0';
        int k;
        for (k = 0; k < nkeys && strcmp(keys[k], tok[i]) != 0; k++)
            ;
        if (k == nkeys)
            return perr(p, "unknown key '%.40s'", tok[i]);
        if (vals[k])
            return perr(p, "duplicate key '%s'", keys[k]);
        vals[k] = eq + 1;
    }
    for (int k = 0; k < nkeys; k++)
        if (!vals[k])
            return perr(p, "missing field '%s'", keys[k]);
    return 0;
}

static int valid_name(const char *s, size_t cap)
{
    if (!*s || strlen(s) >= cap)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return 0;
    return 1;
}

static int parse_run(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "seed", "hash" };
    char *v[2];
    if (take_kv(p, tok + 1, n - 1, keys, 2, v) < 0)
        return -1;
    if (parse_canonical_u64(v[0], &p->t->seed))
        return perr(p, "bad seed '%.40s'", v[0]);
    if (!valid_name(v[1], sizeof p->t->hash) || tree_digest_len(v[1]) <= 0)
        return perr(p, "unknown hash '%.40s'", v[1]);
    snprintf(p->t->hash, sizeof p->t->hash, "%s", v[1]);
    p->stage = ST_CONFIG;
    return 0;
}

static int parse_fs(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "name", "type", "fstype", "size" };
    char *v[4];
    struct trace *t = p->t;
    uint64_t idx;
    if (n < 2 || parse_canonical_u64(tok[1], &idx))
        return perr(p, "fs: missing or bad index");
    if (idx != (uint64_t)t->nfs)
        return perr(p, "fs %" PRIu64 ": expected fs %d", idx, t->nfs);
    if (t->nfs == METIS_MAX_FS)
        return perr(p, "more than %d file systems", METIS_MAX_FS);
    if (take_kv(p, tok + 2, n - 2, keys, 4, v) < 0)
        return -1;
    struct trace_fs *f = &t->fs[t->nfs];
    if (!valid_name(v[0], sizeof f->name))
        return perr(p, "bad fs name '%.40s'", v[0]);
    if (trace_fs_index(t, v[0]) >= 0)
        return perr(p, "fs name '%s' used twice", v[0]);
    if (fs_type_by_name(v[1]) < 0)
        return perr(p, "type '%.40s' is not %s", v[1], fs_type_list());
    if (strcmp(v[2], "-") && !valid_name(v[2], sizeof f->fstype))
        return perr(p, "bad fstype '%.40s'", v[2]);
    if (parse_canonical_u64(v[3], &f->size))
        return perr(p, "bad size '%.40s'", v[3]);
    snprintf(f->name, sizeof f->name, "%s", v[0]);
    snprintf(f->type, sizeof f->type, "%s", v[1]);
    snprintf(f->fstype, sizeof f->fstype, "%s", v[2]);
    if (t->nfs++ == 0)
        t->fs_line = p->line;
    p->stage = ST_FS;
    return 0;
}

static int fs_of(struct parser *p, const char *name)
{
    int i = trace_fs_index(p->t, name);
    if (i < 0)
        perr(p, "no fs named '%.64s'", name);
    return i;
}

static int parse_state(struct parser *p, const char *hex, struct trace_outcome *o)
{
    o->dlen = trace_hex_decode(hex, o->digest, sizeof o->digest);
    if (o->dlen < 0)
        return perr(p, "bad state '%.40s' (want lowercase hex)", hex);
    if (o->dlen != tree_digest_len(p->t->hash))
        return perr(p, "state has %d bytes, a %s digest %d", o->dlen, p->t->hash,
                    tree_digest_len(p->t->hash));
    return 0;
}

static int parse_init(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "state" };
    char *v[1];
    if (n < 2)
        return perr(p, "init: missing fs name");
    int i = fs_of(p, tok[1]);
    if (i < 0 || take_kv(p, tok + 2, n - 2, keys, 1, v) < 0)
        return -1;
    if (p->t->init[i].have)
        return perr(p, "second init record of fs '%s'", tok[1]);
    if (p->t->nops || p->t->init_disc[i].have)
        return perr(p, "init record after the operations began");
    if (parse_state(p, v[0], &p->t->init[i]) < 0)
        return -1;
    p->t->init[i].have = 1;
    return 0;
}

static struct trace_op *current_op(struct parser *p, const char *seqtext, const char *what)
{
    uint64_t seq;
    struct trace *t = p->t;
    if (parse_canonical_u64(seqtext, &seq)) {
        perr(p, "%s: bad operation number '%.40s'", what, seqtext);
        return NULL;
    }
    if (!t->nops || t->ops[t->nops - 1].is_call || t->ops[t->nops - 1].seq != seq) {
        perr(p, "%s %" PRIu64 " does not follow op %" PRIu64, what, seq,
             t->nops ? t->ops[t->nops - 1].seq : 0);
        return NULL;
    }
    return &t->ops[t->nops - 1];
}

/* "0,-1" / "0,ENOENT": a concurrent step's outcomes, one per call. */
static int parse_call_outcomes(struct parser *p, const struct trace_op *op, char *rets,
                               char *errs, struct trace_outcome *o)
{
    char *save1 = NULL, *save2 = NULL;
    char *r = strtok_r(rets, ",", &save1), *e = strtok_r(errs, ",", &save2);
    for (o->ncalls = 0; r && e && o->ncalls < op->ncalls; o->ncalls++) {
        if (parse_long(r, &o->call_ret[o->ncalls]))
            return perr(p, "bad ret '%.40s'", r);
        if ((o->call_err[o->ncalls] = trace_errno_parse(e)) < 0)
            return perr(p, "unknown errno '%.40s'", e);
        r = strtok_r(NULL, ",", &save1);
        e = strtok_r(NULL, ",", &save2);
    }
    if (r || e || o->ncalls != op->ncalls)
        return perr(p, "res of a concurrent step: %d calls want %d rets and errnos", op->ncalls,
                    op->ncalls);
    o->ret = o->call_ret[0];
    o->err = o->call_err[0];
    return 0;
}

/* A concurrent step's records are complete once the next kind of record comes: at least two
 * calls, and an order of them the reference kept. */
static int finish_together(struct parser *p)
{
    struct trace *t = p->t;
    unsigned char atoms[TOGETHER_MAX_ATOMS];
    if (!t->nops || !t->ops[t->nops - 1].tries)
        return 0;
    struct trace_op *op = &t->ops[t->nops - 1];
    if (op->ncalls < 2)
        return perr(p, "concurrent step %" PRIu64 " has %d part records (2 to %d)", op->seq,
                    op->ncalls, TOGETHER_MAX);
    if (together_atoms_parse(op->order, op->ncalls, atoms) < 0)
        return perr(p, "concurrent step %" PRIu64 ": order '%.40s' is no order of %d calls",
                    op->seq, op->order, op->ncalls);
    return 0;
}

static int parse_res(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "ret", "errno", "state" };
    char *v[3];
    if (n < 3)
        return perr(p, "res: missing operation number or fs name");
    struct trace_op *op = current_op(p, tok[1], "res");
    if (!op || finish_together(p) < 0)
        return -1;
    int i = fs_of(p, tok[2]);
    if (i < 0 || take_kv(p, tok + 3, n - 3, keys, 3, v) < 0)
        return -1;
    struct trace_outcome *o = &op->res[i];
    if (o->have)
        return perr(p, "second res record of fs '%s'", tok[2]);
    if (op->disc[i].have)
        return perr(p, "res record after the discrepancy record");
    if (op->tries) {
        if (parse_call_outcomes(p, op, v[0], v[1], o) < 0)
            return -1;
    } else if (parse_long(v[0], &o->ret)) {
        return perr(p, "bad ret '%.40s'", v[0]);
    } else if ((o->err = trace_errno_parse(v[1])) < 0) {
        return perr(p, "unknown errno '%.40s'", v[1]);
    }
    if (parse_state(p, v[2], o) < 0)
        return -1;
    o->have = 1;
    return 0;
}

static int parse_same(struct parser *p, const char *v, unsigned bit, unsigned *differs)
{
    if (strcmp(v, "differs") == 0)
        *differs |= bit;
    else if (strcmp(v, "same") != 0)
        return perr(p, "'%.40s' is not same or differs", v);
    return 0;
}

/* The optional last field "KEY=differs" (serial=: a concurrent step no serial order explains;
 * remount=: a kept fs's remount check): bit. */
static int parse_differs_field(struct parser *p, char **tok, int *n, const char *key,
                               unsigned bit, unsigned *differs)
{
    size_t len = strlen(key);
    if (*n < 1 || strncmp(tok[*n - 1], key, len) != 0 || tok[*n - 1][len] != '=')
        return 0;
    if (strcmp(tok[*n - 1] + len + 1, "differs") != 0)
        return perr(p, "'%.40s' is not %s=differs", tok[*n - 1], key);
    *differs |= bit;
    (*n)--;
    return 0;
}

/* The optional last field "crash=KIND" (a crash check's finding, crash_modes.h) or
 * "fault=KIND" (a fault check's, fault_kinds.h): its DIFF bits. */
static int parse_own_check(struct parser *p, char **tok, int *n, unsigned *differs)
{
    int crash = *n >= 1 && strncmp(tok[*n - 1], "crash=", 6) == 0;
    int fault = *n >= 1 && strncmp(tok[*n - 1], "fault=", 6) == 0;
    if (!crash && !fault)
        return 0;
    int kind = crash ? crash_kind_parse(tok[*n - 1] + 6) : fault_found_parse(tok[*n - 1] + 6);
    if (kind <= 0)
        return perr(p, "'%.40s' is not a %s", tok[*n - 1] + 6, crash
                    ? "crash kind (differs, mount or fsck)"
                    : "fault finding (lost, partial, fsck, errno, mount or stale, comma-separated)");
    *differs |= crash ? DIFF_OF_CRASH(kind) : DIFF_OF_FAULT(kind);
    (*n)--;
    return 0;
}

/* "fault SEQ kind=K at=N" right after op SEQ: the fault its step armed. */
static int parse_fault(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "kind", "at" };
    char *v[2];
    if (n < 2)
        return perr(p, "fault: missing operation number");
    struct trace_op *op = current_op(p, tok[1], "fault");
    if (!op || take_kv(p, tok + 2, n - 2, keys, 2, v) < 0)
        return -1;
    if (op->fault.on)
        return perr(p, "second fault record of op %.40s", tok[1]);
    if (op->tries)
        return perr(p, "fault record of concurrent step %.40s (a fault step is one call)", tok[1]);
    for (int i = 0; i < p->t->nfs; i++)
        if (op->res[i].have || op->disc[i].have)
            return perr(p, "fault record after the op's res records (it follows the op record)");
    int kind = fault_kind_parse(v[0]);
    if (kind < 0)
        return perr(p, "'%.40s' is not a fault kind (eio_write, eio_read or lost_write)", v[0]);
    if (parse_canonical_u64(v[1], &op->fault.at))
        return perr(p, "bad at '%.40s'", v[1]);
    op->fault.kind = (enum fault_kind)kind;
    op->fault.on = 1;
    return 0;
}

static int parse_disc(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "fs", "ret", "errno", "state" };
    char *v[4];
    struct trace_disc *d;
    unsigned differs = 0;
    if (n < 2)
        return perr(p, "discrepancy: missing operation number");
    if (strcmp(tok[1], "0") == 0 && p->t->nops == 0) {
        d = p->t->init_disc;
    } else {
        struct trace_op *op = current_op(p, tok[1], "discrepancy");
        if (!op || finish_together(p) < 0)
            return -1;
        d = op->disc;
    }
    if (parse_differs_field(p, tok, &n, "serial", DIFF_SERIAL, &differs) < 0 ||
        parse_differs_field(p, tok, &n, "remount", DIFF_REMOUNT, &differs) < 0 ||
        parse_own_check(p, tok, &n, &differs) < 0 ||
        take_kv(p, tok + 2, n - 2, keys, 4, v) < 0)
        return -1;
    int i = fs_of(p, v[0]);
    if (i < 0)
        return -1;
    if (d[i].have)
        return perr(p, "second discrepancy record of fs '%s'", v[0]);
    if (parse_same(p, v[1], DIFF_RET, &differs) < 0 ||
        parse_same(p, v[2], DIFF_ERRNO, &differs) < 0 ||
        parse_same(p, v[3], DIFF_STATE, &differs) < 0)
        return -1;
    if (!differs)
        return perr(p, "a discrepancy record where nothing differs");
    if (i == 0 && (differs & (DIFF_RET | DIFF_ERRNO | DIFF_STATE)))
        return perr(p, "the reference fs '%s' cannot disagree with itself", v[0]);
    d[i].have = 1;
    d[i].differs = differs;
    return 0;
}

/* "together tries=R order=O": a concurrent step, its calls in the part records after it. */
static int parse_together(struct parser *p, struct trace_op *op, char *text)
{
    static const char *const keys[] = { "tries", "order" };
    char *tok[MAX_TOKENS], *v[2];
    uint64_t tries;
    int n = split(text, tok, MAX_TOKENS);
    if (n < 0 || take_kv(p, tok + 1, n - 1, keys, 2, v) < 0)
        return n < 0 ? perr(p, "too many fields, or an empty one") : -1;
    if (parse_canonical_u64(v[0], &tries) || tries < 1 || tries > 1000)
        return perr(p, "bad tries '%.40s' (1 to 1000)", v[0]);
    if (strlen(v[1]) >= sizeof op->order)
        return perr(p, "order '%.40s' too long", v[1]);
    op->tries = (int)tries;
    snprintf(op->order, sizeof op->order, "%s", v[1]);
    return 0;
}

/* "part SEQ J OPERATION ARGS": call J (from 1) of concurrent step SEQ. */
static int parse_part(struct parser *p, char *line)
{
    char *sp1 = strchr(line + 5, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    uint64_t j;
    char msg[256];
    if (!sp2)
        return perr(p, "part: expected 'part SEQ J OPERATION ARGS'");
    *sp1 = *sp2 = '\0';
    struct trace_op *op = current_op(p, line + 5, "part");
    if (!op)
        return -1;
    if (!op->tries || op->res[0].have || parse_canonical_u64(sp1 + 1, &j) ||
        j != (uint64_t)op->ncalls + 1 || op->ncalls == TOGETHER_MAX)
        return perr(p, "part %.20s out of place (calls 1 to %d, right after a concurrent "
                    "step's op record)", sp1 + 1, TOGETHER_MAX);
    if (!op->calls && !(op->calls = calloc(TOGETHER_MAX, sizeof *op->calls)))
        return perr(p, "out of memory");
    if (op_parse(sp2 + 1, &op->calls[op->ncalls], msg, sizeof msg) < 0)
        return perr(p, "%s", msg);
    if (op->ncalls++ == 0)
        op->args = op->calls[0];
    return 0;
}

/* "op SEQ OPERATION ARGS": the arguments are op_parse's, the rest is ours. */
static int parse_op(struct parser *p, char *line)
{
    char *sp = strchr(line + 3, ' ');
    uint64_t seq;
    if (finish_together(p) < 0)
        return -1;
    if (!sp)
        return perr(p, "op: missing operation");
    *sp = '\0';
    if (parse_canonical_u64(line + 3, &seq) || seq == 0)
        return perr(p, "op: bad operation number '%.40s'", line + 3);
    struct trace *t = p->t;
    long last = trace_last_op(t);
    if ((last >= 0 && seq <= t->ops[last].seq) || (t->nops && seq < t->ops[t->nops - 1].seq))
        return perr(p, "op %" PRIu64 " after step %" PRIu64 " (numbers must increase)", seq,
                    t->ops[t->nops - 1].seq);
    struct op_args a;
    char msg[256];
    int together = strncmp(sp + 1, "together ", 9) == 0;
    memset(&a, 0, sizeof a);
    if (!together && op_parse(sp + 1, &a, msg, sizeof msg) < 0)
        return perr(p, "%s", msg);
    struct trace_op *op = trace_add_op(t, seq, &a);
    if (!op)
        return perr(p, "out of memory");
    op->line = p->line;
    return together ? parse_together(p, op, sp + 1) : 0;
}

/* "call SEQ NAME ret=R errno=E KIND ARGS": a call fs NAME's logical restore made before
 * operation SEQ, with its outcome there. */
static int parse_call(struct parser *p, char *line)
{
    char *tok[5], msg[300];
    uint64_t seq;
    struct trace *t = p->t;
    struct op_result res;
    char *rest = line;
    if (finish_together(p) < 0)
        return -1;
    for (int k = 0; k < 5; k++) {
        tok[k] = rest;
        if (!(rest = strchr(rest, ' ')))
            return perr(p, "call: expected 'call SEQ NAME ret=R errno=E KIND ARGS'");
        *rest++ = '\0';
    }
    long last = trace_last_op(t);
    if (parse_canonical_u64(tok[1], &seq) || seq == 0)
        return perr(p, "call: bad operation number '%.40s'", tok[1]);
    if ((last >= 0 && seq <= t->ops[last].seq) || (t->nops && seq < t->ops[t->nops - 1].seq))
        return perr(p, "call %" PRIu64 " after step %" PRIu64 " (a call comes before its "
                    "operation)", seq, t->ops[t->nops - 1].seq);
    int fs = fs_of(p, tok[2]);
    if (fs < 0)
        return -1;
    if (strncmp(tok[3], "ret=", 4) || parse_long(tok[3] + 4, &res.ret))
        return perr(p, "call: bad ret '%.40s'", tok[3]);
    if (strncmp(tok[4], "errno=", 6) || (res.err = trace_errno_parse(tok[4] + 6)) < 0)
        return perr(p, "call: bad errno '%.40s'", tok[4]);
    char *text = strdup(rest);
    struct op_args none = { 0 };
    struct trace_op *op = text ? trace_add_op(t, seq, &none) : NULL;
    if (!op)
        return free(text), perr(p, "out of memory");
    op->line = p->line;
    op->call_fs = fs;
    op->call_res = res;
    t->ncalls++;
    return own_call(op, text, msg, sizeof msg) < 0 ? perr(p, "%s", msg) : 0;
}

/* "start SEQ": the operations so far (up to op SEQ) recreate the state the trace starts from. */
static int parse_start(struct parser *p, char **tok, int n)
{
    uint64_t seq;
    struct trace *t = p->t;
    if (finish_together(p) < 0)
        return -1;
    if (n != 2 || parse_canonical_u64(tok[1], &seq))
        return perr(p, "start: expected 'start SEQ'");
    if (t->start || !t->nops || t->ops[t->nops - 1].is_call || t->ops[t->nops - 1].seq != seq)
        return perr(p, "start %" PRIu64 " out of place (once, right after op %" PRIu64 ")", seq,
                    seq);
    t->start = t->nops;
    return 0;
}

/* "state NAME FILE" after start: the file fs NAME exported for the state the trace starts
 * from (the rest of the line, which may hold spaces). */
static int parse_state_file(struct parser *p, const char *line)
{
    const char *name = line + 6, *sp = strchr(name, ' ');
    struct trace *t = p->t;
    if (!t->start || t->nops != t->start)
        return perr(p, "state record out of place (right after start)");
    if (!sp || !sp[1] || strlen(sp + 1) >= sizeof t->start_state[0])
        return perr(p, "state: expected 'state NAME FILE'");
    size_t len = (size_t)(sp - name);
    for (int i = 0; i < t->nfs; i++)
        if (strlen(t->fs[i].name) == len && !strncmp(t->fs[i].name, name, len)) {
            if (t->start_state[i][0])
                return perr(p, "state: fs %s twice", t->fs[i].name);
            snprintf(t->start_state[i], sizeof t->start_state[i], "%s", sp + 1);
            return 0;
        }
    return perr(p, "state: no fs '%.*s'", (int)(len > 64 ? 64 : len), name);
}

/* "end ops=N", with "calls=M" after it when the trace holds calls. */
static int parse_end(struct parser *p, char **tok, int n)
{
    static const char *const keys[] = { "ops", "calls" };
    char *v[2];
    uint64_t calls = 0;
    int with_calls = p->t->ncalls > 0;
    if (finish_together(p) < 0)
        return -1;
    if (take_kv(p, tok + 1, n - 1, keys, 1 + with_calls, v) < 0)
        return -1;
    if (parse_canonical_u64(v[0], &p->end_ops))
        return perr(p, "bad ops '%.40s'", v[0]);
    if (with_calls && parse_canonical_u64(v[1], &calls))
        return perr(p, "bad calls '%.40s'", v[1]);
    if (p->end_ops != p->t->nops - p->t->ncalls || calls != p->t->ncalls)
        return perr(p, "end says %" PRIu64 " operations and %" PRIu64 " calls, the trace has %zu "
                    "and %zu (truncated?)", p->end_ops, calls, p->t->nops - p->t->ncalls,
                    p->t->ncalls);
    p->have_end = 1;
    p->stage = ST_END;
    return 0;
}

static int starts(const char *line, const char *word)
{
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

static int parse_cfg(struct parser *p, const char *line)
{
    if (p->stage > ST_CONFIG)
        return perr(p, "cfg record after the fs records");
    if (p->t->ncfg == 0)
        p->t->cfg_first_line = p->line;
    if (trace_add_cfg_line(p->t, line[3] ? line + 4 : "") < 0)
        return perr(p, "out of memory");
    return 0;
}

static int parse_config(struct parser *p, const char *line)
{
    if (p->stage != ST_CONFIG || p->t->config_path[0] || p->t->ncfg)
        return perr(p, "config record out of place (once, right after run)");
    if (!line[6] || !line[7] || strlen(line + 7) >= sizeof p->t->config_path)
        return perr(p, "config: missing or too long path");
    snprintf(p->t->config_path, sizeof p->t->config_path, "%s", line + 7);
    p->t->config_line = p->line;
    return 0;
}

/* Records after the fs list: init, op, res, discrepancy, end. */
static int parse_body(struct parser *p, char *line)
{
    char *tok[MAX_TOKENS];
    if (p->stage == ST_END)
        return perr(p, "record after end");
    if (p->stage < ST_FS)
        return perr(p, "'%.20s' record before the fs records", line);
    p->stage = ST_BODY;
    if (starts(line, "op"))
        return parse_op(p, line);
    if (starts(line, "part"))
        return parse_part(p, line);
    if (starts(line, "call"))
        return parse_call(p, line);
    if (starts(line, "state"))
        return parse_state_file(p, line);
    int n = split(line, tok, MAX_TOKENS);
    if (n < 0)
        return perr(p, "too many fields, or an empty one");
    if (strcmp(tok[0], "init") == 0)
        return parse_init(p, tok, n);
    if (strcmp(tok[0], "res") == 0)
        return parse_res(p, tok, n);
    if (strcmp(tok[0], "discrepancy") == 0)
        return parse_disc(p, tok, n);
    if (strcmp(tok[0], "fault") == 0)
        return parse_fault(p, tok, n);
    if (strcmp(tok[0], "end") == 0)
        return parse_end(p, tok, n);
    if (strcmp(tok[0], "start") == 0)
        return parse_start(p, tok, n);
    return perr(p, "unknown record '%.40s'", tok[0]);
}

static int parse_line(struct parser *p, char *line)
{
    char *tok[MAX_TOKENS];
    if (p->stage == ST_HEADER) {
        if (strcmp(line, "metis-trace 1") != 0)
            return perr(p, "not a Metis trace (first line must be 'metis-trace %d')",
                        TRACE_VERSION);
        p->stage = ST_RUN;
        return 0;
    }
    if (starts(line, "cfg"))
        return parse_cfg(p, line);
    if (p->stage == ST_RUN) {
        int n = split(line, tok, MAX_TOKENS);
        if (n < 1 || strcmp(tok[0], "run") != 0)
            return perr(p, "expected the run record");
        return parse_run(p, tok, n);
    }
    if (starts(line, "config"))
        return parse_config(p, line);
    if (starts(line, "fs")) {
        if (p->stage > ST_FS)
            return perr(p, "fs record after the operations began");
        int n = split(line, tok, MAX_TOKENS);
        return n < 0 ? perr(p, "too many fields, or an empty one") : parse_fs(p, tok, n);
    }
    return parse_body(p, line);
}

/* Only printable ASCII, and in cfg lines also tab and UTF-8 bytes (config comments). */
static int check_bytes(struct parser *p, const char *s, size_t n)
{
    int is_cfg = n >= 3 && strncmp(s, "cfg", 3) == 0 && (n == 3 || s[3] == ' ');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            continue;
        if (is_cfg && (c == '\t' || c >= 0x80))
            continue;
        return perr(p, "%s byte 0x%02x at column %zu", c == 0 ? "NUL" : "control or non-ASCII",
                    c, i + 1);
    }
    /* Fields are separated by single spaces: anything else is not what the writer wrote. */
    if (!is_cfg && n && (s[0] == ' ' || s[n - 1] == ' ' || memmem(s, n, "  ", 2)))
        return perr(p, "stray space (fields are separated by single spaces)");
    return 0;
}

static int finish_parse(struct parser *p)
{
    if (p->stage == ST_HEADER)
        return perr(p, "empty file (not a Metis trace)");
    if (p->stage < ST_FS)
        return perr(p, "trace ends before its fs records");
    if (!p->have_end)
        return perr(p, "trace ends without its end record (truncated?)");
    return 0;
}

int trace_parse(const char *text, size_t len, const char *file, struct trace *t, char *err,
                size_t errlen)
{
    struct parser p = { .t = t, .file = file, .err = err, .errlen = errlen };
    char *line = malloc(TRACE_CALL_LINE_MAX + 1);
    trace_init(t);
    snprintf(t->file, sizeof t->file, "%s", file);
    if (!line) {
        snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    int rc = 0;
    for (size_t pos = 0; pos < len && rc == 0;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        p.line++;
        int is_call = n > 5 && strncmp(text + pos, "call ", 5) == 0;
        if (n > (is_call ? TRACE_CALL_LINE_MAX : TRACE_LINE_MAX))
            rc = perr(&p, "line longer than %d characters",
                      is_call ? TRACE_CALL_LINE_MAX : TRACE_LINE_MAX);
        else if ((rc = check_bytes(&p, text + pos, n)) == 0) {
            memcpy(line, text + pos, n);
            line[n] = '\0';
            rc = parse_line(&p, line);
        }
        pos += n + 1;
    }
    free(line);
    if (rc == 0) {
        p.line++;
        rc = finish_parse(&p);
    }
    if (rc < 0)
        trace_free(t);
    return rc;
}

int trace_read_file(const char *path, struct trace *t, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    trace_init(t);
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)TRACE_FILE_MAX) {
        snprintf(err, errlen, "%s: not a regular file of at most %u MiB", path,
                 TRACE_FILE_MAX >> 20);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size, got = 0;
    char *buf = malloc(len + 1);
    while (buf && got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != len) {
        snprintf(err, errlen, "%s: cannot read: %s", path, buf ? "short read" : "out of memory");
        free(buf);
        return -1;
    }
    int rc = trace_parse(buf, len, path, t, err, errlen);
    free(buf);
    return rc;
}

/* ---------- writer ---------- */

static void write_call_outcomes(FILE *f, const struct trace_outcome *o)
{
    fputs(" ret=", f);
    for (int c = 0; c < o->ncalls; c++)
        fprintf(f, "%s%ld", c ? "," : "", o->call_ret[c]);
    fputs(" errno=", f);
    for (int c = 0; c < o->ncalls; c++)
        fprintf(f, "%s%s", c ? "," : "", trace_errno_name(o->call_err[c]));
}

static void write_outcome(FILE *f, const char *what, uint64_t seq, const char *name,
                          const struct trace_outcome *o)
{
    char hex[2 * TREE_MAX_DIGEST + 1];
    trace_hex_encode(o->digest, (size_t)o->dlen, hex);
    fprintf(f, "%s %" PRIu64 " %s", what, seq, name);
    if (o->ncalls)
        write_call_outcomes(f, o);
    else
        fprintf(f, " ret=%ld errno=%s", o->ret, trace_errno_name(o->err));
    fprintf(f, " state=%s\n", hex);
}

/* " crash=KIND" or " fault=KIND" of a discrepancy record, "" without one. */
static void own_check_field(unsigned differs, char *out, size_t len)
{
    unsigned crash = CRASH_OF_DIFF(differs), fault = FAULT_OF_DIFF(differs);
    if (crash)
        snprintf(out, len, " crash=%s", crash_kind_name(crash));
    else if (fault) {
        char list[64];
        fault_found_list(fault, list, sizeof list);
        snprintf(out, len, " fault=%s", list);
    }
    else
        out[0] = '\0';
}

static void write_discs(FILE *f, const struct trace *t, uint64_t seq, const struct trace_disc *d)
{
    char own[80];
    for (int i = 0; i < t->nfs; i++) {
        if (!d[i].have)
            continue;
        own_check_field(d[i].differs, own, sizeof own);
        fprintf(f, "discrepancy %" PRIu64 " fs=%s ret=%s errno=%s state=%s%s%s%s\n", seq,
                t->fs[i].name, d[i].differs & DIFF_RET ? "differs" : "same",
                d[i].differs & DIFF_ERRNO ? "differs" : "same",
                d[i].differs & DIFF_STATE ? "differs" : "same", own,
                d[i].differs & DIFF_REMOUNT ? " remount=differs" : "",
                d[i].differs & DIFF_SERIAL ? " serial=differs" : "");
    }
}

static void write_header(const struct trace *t, FILE *f)
{
    char hex[2 * TREE_MAX_DIGEST + 1];
    fprintf(f, "metis-trace %d\nrun seed=%" PRIu64 " hash=%s\n", TRACE_VERSION, t->seed, t->hash);
    if (t->config_path[0])
        fprintf(f, "config %s\n", t->config_path);
    for (int i = 0; i < t->ncfg; i++)
        fprintf(f, t->cfg[i][0] ? "cfg %s\n" : "cfg\n", t->cfg[i]);
    for (int i = 0; i < t->nfs; i++)
        fprintf(f, "fs %d name=%s type=%s fstype=%s size=%" PRIu64 "\n", i, t->fs[i].name,
                t->fs[i].type, t->fs[i].fstype, t->fs[i].size);
    for (int i = 0; i < t->nfs; i++)
        if (t->init[i].have) {
            trace_hex_encode(t->init[i].digest, (size_t)t->init[i].dlen, hex);
            fprintf(f, "init %s state=%s\n", t->fs[i].name, hex);
        }
    write_discs(f, t, 0, t->init_disc);
}

/* The op record (its fault record too), and a concurrent step's part records. */
static int write_op(FILE *f, const struct trace_op *op)
{
    char text[2 * METIS_PATH_MAX + 512];
    if (!op->tries) {
        if (op_format(&op->args, text, sizeof text) < 0)
            return -1;
        fprintf(f, "op %" PRIu64 " %s\n", op->seq, text);
        if (op->fault.on)
            fprintf(f, "fault %" PRIu64 " kind=%s at=%" PRIu64 "\n", op->seq,
                    fault_kind_name(op->fault.kind), op->fault.at);
        return 0;
    }
    fprintf(f, "op %" PRIu64 " together tries=%d order=%s\n", op->seq, op->tries, op->order);
    for (int c = 0; c < op->ncalls; c++) {
        if (op_format(&op->calls[c], text, sizeof text) < 0)
            return -1;
        fprintf(f, "part %" PRIu64 " %d %s\n", op->seq, c + 1, text);
    }
    return 0;
}

static int write_call(FILE *f, const struct trace *t, const struct trace_op *op)
{
    struct buf b = { 0 };
    int rc = rcall_format_outcome(&op->call, op->call_res.ret, op->call_res.err, &b);
    if (rc == 0)
        fprintf(f, "call %" PRIu64 " %s %s\n", op->seq, t->fs[op->call_fs].name, b.p);
    buf_free(&b);
    return rc;
}

int trace_write(const struct trace *t, FILE *f)
{
    write_header(t, f);
    for (size_t k = 0; k < t->nops; k++) {
        const struct trace_op *op = &t->ops[k];
        if (op->is_call) {
            if (write_call(f, t, op) < 0)
                return -1;
            continue;
        }
        if (write_op(f, op) < 0)
            return -1;
        for (int i = 0; i < t->nfs; i++)
            if (op->res[i].have)
                write_outcome(f, "res", op->seq, t->fs[i].name, &op->res[i]);
        write_discs(f, t, op->seq, op->disc);
        if (t->start && k + 1 == t->start) {
            fprintf(f, "start %" PRIu64 "\n", op->seq);
            for (int i = 0; i < t->nfs; i++)
                if (t->start_state[i][0])
                    fprintf(f, "state %s %s\n", t->fs[i].name, t->start_state[i]);
        }
    }
    if (t->ncalls)
        fprintf(f, "end ops=%zu calls=%zu\n", t->nops - t->ncalls, t->ncalls);
    else
        fprintf(f, "end ops=%zu\n", t->nops);
    return ferror(f) ? -1 : 0;
}

int trace_write_file(const struct trace *t, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    int rc = trace_write(t, f);
    if (fclose(f) != 0 || rc < 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

int trace_final_discrepancy(const struct trace *t, unsigned differs[METIS_MAX_FS])
{
    long last = trace_last_op(t);
    const struct trace_disc *d = last >= 0 ? t->ops[last].disc : t->init_disc;
    int any = 0;
    for (int i = 0; i < METIS_MAX_FS; i++) {
        differs[i] = i < t->nfs && d[i].have ? d[i].differs : 0;
        any |= differs[i] != 0;
    }
    return any;
}
