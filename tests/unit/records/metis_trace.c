/* Unit tests of replayer traces: writer/parser round trip, hostile and damaged input, pool checks, prepopulate. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The replayer is not a library the unit-test binary links: its sources are compiled in here. */
#include "trace/trace.c"
#include "trace/check.c"

#include "engine/run/engine.h"
#include "engine/input/input.h"
#include "engine/ops/prepopulate.h"

/* ---------- random traces ---------- */

static uint64_t mtr_state = 0x1234;

static uint64_t mtr_rand(void)
{
    uint64_t z = (mtr_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t mtr_below(uint64_t n)
{
    return n ? mtr_rand() % n : 0;
}

static void mtr_name(char *out, size_t cap, const char *prefix)
{
    snprintf(out, cap, "%s%llu", prefix, (unsigned long long)mtr_below(1000));
}

/* A pool-like path of 1..3 components. */
static void mtr_path(char *out, size_t cap, int relative)
{
    int n = 1 + (int)mtr_below(3), len = 0;
    for (int i = 0; i < n; i++)
        len += snprintf(out + len, cap - (size_t)len, "%s%c%llu%s", (i || !relative) ? "/" : "",
                        "df"[mtr_below(2)], (unsigned long long)mtr_below(10),
                        mtr_below(4) ? "" : "xxxx");
    if (relative && out[0] == '/')
        memmove(out, out + 1, strlen(out));
}

static uint64_t mtr_value(void)
{
    switch (mtr_below(4)) {
    case 0: return 0;
    case 1: return mtr_below(100);
    case 2: return mtr_rand();
    default: return UINT64_MAX - mtr_below(2);
    }
}

/* Random arguments, canonicalised through op_format/op_parse (the fields an op uses). */
static void mtr_args(struct op_args *out)
{
    struct op_args a;
    char text[2 * METIS_PATH_MAX + 512], err[256];
    memset(&a, 0, sizeof a);
    a.op = (enum op_id)mtr_below(OP_COUNT);
    mtr_path(a.path, sizeof a.path, 0);
    if (a.op == OP_symlink)
        mtr_below(5) ? mtr_path(a.path2, sizeof a.path2, 1) : (void)snprintf(a.path2, 8, ".");
    else
        mtr_path(a.path2, sizeof a.path2, 0);
    a.flags = (int)(uint32_t)mtr_rand();
    a.mode = (mode_t)mtr_below(07777 + 1);
    a.offset = mtr_value();
    a.size = mtr_value();
    a.uid = mtr_below(3) ? (uint32_t)mtr_below(100000) : (uint32_t)-1;
    a.gid = mtr_below(3) ? (uint32_t)mtr_below(100000) : (uint32_t)-1;
    snprintf(a.xname, sizeof a.xname, "user.x%llu", (unsigned long long)mtr_below(64));
    a.data_seed = mtr_rand();
    cr_assert_geq(op_format(&a, text, sizeof text), 0);
    cr_assert_eq(op_parse(text, out, err, sizeof err), 0, "%s: %s", text, err);
}

static void mtr_outcome(struct trace_outcome *o, int dlen)
{
    static const int errs[] = { 0, ENOENT, EEXIST, ENOTEMPTY, EISDIR, ENOTDIR, EINVAL, ENOSPC,
                                EFBIG, E2BIG, ENODATA, EOPNOTSUPP, EXDEV, EPERM, ELOOP };
    o->have = 1;
    o->ret = mtr_below(4) ? (long)mtr_below(70000) : -(long)mtr_below(3);
    if (mtr_below(10) == 0)
        o->ret = mtr_below(2) ? LONG_MAX : LONG_MIN;
    o->err = errs[mtr_below(sizeof errs / sizeof errs[0])];
    o->dlen = dlen;
    for (int i = 0; i < dlen; i++)
        o->digest[i] = (unsigned char)mtr_rand();
}

static void mtr_cfg_line(char *out, size_t cap)
{
    static const char *const samples[] = { "", "[run]", "seed = 1", "; comment\twith tab",
                                           "; \xc3\xa9t\xc3\xa9 UTF-8", "[fs ref]", "  size = 256K  " };
    snprintf(out, cap, "%s", samples[mtr_below(sizeof samples / sizeof samples[0])]);
}

static void mtr_header(struct trace *t, int *dlen)
{
    static const char *const hashes[] = { "md5", "sha1", "sha256" };
    static const char *const types[] = { "kernel", "reffs", "fuse" };
    trace_init(t);
    snprintf(t->file, sizeof t->file, "random.trace");
    t->seed = mtr_value();
    snprintf(t->hash, sizeof t->hash, "%s", hashes[mtr_below(3)]);
    *dlen = tree_digest_len(t->hash);
    if (mtr_below(2))
        snprintf(t->config_path, sizeof t->config_path, "/some where/config %llu.ini",
                 (unsigned long long)mtr_below(100));
    for (int n = (int)mtr_below(6), i = 0; i < n; i++) {
        char line[128];
        mtr_cfg_line(line, sizeof line);
        cr_assert_eq(trace_add_cfg_line(t, line), 0);
    }
    t->nfs = 1 + (int)mtr_below(METIS_MAX_FS);
    for (int i = 0; i < t->nfs; i++) {
        struct trace_fs *f = &t->fs[i];
        snprintf(f->name, sizeof f->name, "fs%d_%llu", i, (unsigned long long)mtr_below(100));
        snprintf(f->type, sizeof f->type, "%s", types[mtr_below(3)]);
        if (mtr_below(2))
            mtr_name(f->fstype, sizeof f->fstype, "ext");
        else
            snprintf(f->fstype, sizeof f->fstype, "-");
        f->size = mtr_value();
        if (mtr_below(4))
            mtr_outcome(&t->init[i], *dlen);
        t->init[i].ret = 0;
        t->init[i].err = 0;
    }
}

static void mtr_discs(struct trace_disc *d, int nfs)
{
    for (int i = 1; i < nfs; i++)
        if (mtr_below(5) == 0) {
            d[i].have = 1;
            d[i].differs = 1 + (unsigned)mtr_below(7);
            if (mtr_below(3) == 0)      /* a fault check's findings, any set of them */
                d[i].differs |= DIFF_OF_FAULT(1 + mtr_below(63));
        }
}

/* A restore call of a few kinds, with names and data the writer escapes and compresses. */
static void mtr_call(struct trace *t, uint64_t seq)
{
    static const enum rcall_kind kinds[] = { RC_UNLINK, RC_WRITE, RC_CHOWN, RC_SETXATTR,
                                             RC_SYMLINK, RC_PUNCH };
    unsigned char data[64] = { 0 };
    char path[64], target[64];
    mtr_path(path, sizeof path, 0);
    mtr_path(target, sizeof target, 1);
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = mtr_below(3) ? 0 : (unsigned char)mtr_rand();
    struct rcall c = { .kind = kinds[mtr_below(6)], .path = path, .path2 = target,
                       .xname = "user.a b", .off = mtr_value(), .size = mtr_value(),
                       .uid = (uint32_t)mtr_rand(), .gid = (uint32_t)mtr_rand(), .data = data,
                       .len = (size_t)mtr_below(sizeof data) };
    struct op_result res = { mtr_below(2) ? 0 : -1, mtr_below(2) ? 0 : ENOENT };
    cr_assert_not_null(trace_add_call(t, seq, (int)mtr_below((uint64_t)t->nfs), &c, res));
}

/* A fault step now and then: its kind and request. */
static void mtr_fault(struct fault_spec *f)
{
    memset(f, 0, sizeof *f);
    if (mtr_below(4))
        return;
    f->on = 1;
    f->kind = (enum fault_kind)mtr_below(FAULT_NKINDS);
    f->at = mtr_below(2) ? mtr_below(20) : mtr_value();
}

static void mtr_trace(struct trace *t, size_t max_ops)
{
    int dlen;
    mtr_header(t, &dlen);
    mtr_discs(t->init_disc, t->nfs);
    uint64_t seq = 0;
    for (size_t k = 0, n = mtr_below(max_ops + 1); k < n; k++) {
        struct op_args a;
        mtr_args(&a);
        seq += 1 + mtr_below(mtr_below(2) ? 3 : 100000);
        for (int calls = mtr_below(4) ? 0 : 1 + (int)mtr_below(3); calls > 0; calls--)
            mtr_call(t, seq);
        struct trace_op *op = trace_add_op(t, seq, &a);
        cr_assert_not_null(op);
        mtr_fault(&op->fault);
        for (int i = 0; i < t->nfs; i++)
            if (mtr_below(8))
                mtr_outcome(&op->res[i], dlen);
        mtr_discs(op->disc, t->nfs);
    }
}

static char *mtr_text(const struct trace *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    cr_assert_not_null(f);
    cr_assert_eq(trace_write(t, f), 0);
    fclose(f);
    return buf;
}

static void mtr_same_outcome(const struct trace_outcome *a, const struct trace_outcome *b)
{
    cr_assert_eq(a->have, b->have);
    if (!a->have)
        return;
    cr_assert_eq(a->ret, b->ret);
    cr_assert_eq(a->err, b->err);
    cr_assert_eq(a->dlen, b->dlen);
    cr_assert_eq(memcmp(a->digest, b->digest, (size_t)a->dlen), 0);
}

static void mtr_same_discs(const struct trace_disc *a, const struct trace_disc *b)
{
    for (int i = 0; i < METIS_MAX_FS; i++) {
        cr_assert_eq(a[i].have, b[i].have);
        cr_assert_eq(a[i].have ? a[i].differs : 0, b[i].have ? b[i].differs : 0);
    }
}

static void mtr_same_call(const struct trace_op *a, const struct trace_op *b)
{
    struct buf x = { 0 }, y = { 0 };
    cr_assert_eq(a->call_fs, b->call_fs);
    cr_assert_eq(a->call_res.ret, b->call_res.ret);
    cr_assert_eq(a->call_res.err, b->call_res.err);
    cr_assert_eq(rcall_format(&a->call, &x), 0);
    cr_assert_eq(rcall_format(&b->call, &y), 0);
    cr_assert_str_eq(x.p, y.p);
    buf_free(&x);
    buf_free(&y);
}

static void mtr_same_trace(const struct trace *a, const struct trace *b)
{
    cr_assert_eq(a->seed, b->seed);
    cr_assert_str_eq(a->hash, b->hash);
    cr_assert_str_eq(a->config_path, b->config_path);
    cr_assert_eq(a->ncfg, b->ncfg);
    for (int i = 0; i < a->ncfg; i++)
        cr_assert_str_eq(a->cfg[i], b->cfg[i]);
    cr_assert_eq(a->nfs, b->nfs);
    for (int i = 0; i < a->nfs; i++) {
        cr_assert_str_eq(a->fs[i].name, b->fs[i].name);
        cr_assert_str_eq(a->fs[i].type, b->fs[i].type);
        cr_assert_str_eq(a->fs[i].fstype, b->fs[i].fstype);
        cr_assert_eq(a->fs[i].size, b->fs[i].size);
        cr_assert_eq(a->init[i].have, b->init[i].have);
        if (a->init[i].have)
            cr_assert_eq(memcmp(a->init[i].digest, b->init[i].digest, (size_t)a->init[i].dlen), 0);
    }
    mtr_same_discs(a->init_disc, b->init_disc);
    cr_assert_eq(a->nops, b->nops);
    cr_assert_eq(a->ncalls, b->ncalls);
    for (size_t k = 0; k < a->nops; k++) {
        cr_assert_eq(a->ops[k].seq, b->ops[k].seq);
        cr_assert_eq(a->ops[k].is_call, b->ops[k].is_call);
        if (a->ops[k].is_call) {
            mtr_same_call(&a->ops[k], &b->ops[k]);
            continue;
        }
        cr_assert_eq(memcmp(&a->ops[k].args, &b->ops[k].args, sizeof a->ops[k].args), 0,
                     "op %zu arguments differ", k);
        for (int i = 0; i < a->nfs; i++)
            mtr_same_outcome(&a->ops[k].res[i], &b->ops[k].res[i]);
        mtr_same_discs(a->ops[k].disc, b->ops[k].disc);
        cr_assert_eq(a->ops[k].fault.on, b->ops[k].fault.on, "op %zu: fault step or not", k);
        if (a->ops[k].fault.on) {
            cr_assert_eq(a->ops[k].fault.kind, b->ops[k].fault.kind);
            cr_assert_eq(a->ops[k].fault.at, b->ops[k].fault.at);
        }
    }
}

Test(metis_trace, round_trip_1000_random_traces, .timeout = 60)
{
    char err[1024];
    for (int n = 0; n < 1000; n++) {
        struct trace t, back;
        size_t len1, len2;
        mtr_trace(&t, n % 10 == 0 ? 400 : 30);
        char *text1 = mtr_text(&t, &len1);
        cr_assert_eq(trace_parse(text1, len1, "random.trace", &back, err, sizeof err), 0,
                     "trace %d: %s", n, err);
        mtr_same_trace(&t, &back);
        char *text2 = mtr_text(&back, &len2);
        cr_assert_eq(len1, len2, "trace %d: the text changed", n);
        cr_assert_eq(memcmp(text1, text2, len1), 0, "trace %d: the text changed", n);
        free(text1);
        free(text2);
        trace_free(&t);
        trace_free(&back);
    }
}

/* ---------- hostile input ---------- */

static const char mtr_good[] =
    "metis-trace 1\n"
    "run seed=1 hash=md5\n"
    "fs 0 name=ref type=reffs fstype=- size=262144\n"
    "fs 1 name=bad type=reffs fstype=- size=262144\n"
    "init ref state=b26e69e9870802dc752db3e260075698\n"
    "init bad state=b26e69e9870802dc752db3e260075698\n"
    "op 7 mkdir path=/d0 mode=0755\n"
    "res 7 ref ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "res 7 bad ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "op 8 create_file path=/d0/f0 flags=0x42 mode=0644\n"
    "op 9 rmdir path=/d0\n"
    "res 9 ref ret=-1 errno=ENOTEMPTY state=fe2426aefbe075f76ab36fe409890a53\n"
    "res 9 bad ret=0 errno=0 state=b26e69e9870802dc752db3e260075698\n"
    "discrepancy 9 fs=bad ret=differs errno=differs state=differs\n"
    "end ops=3\n";

/* Replaces line nr (1-based) of mtr_good with repl ("" drops it). */
static char *mtr_with_line(int nr, const char *repl, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    const char *p = mtr_good;
    for (int line = 1; *p; line++) {
        const char *nl = strchr(p, '\n');
        if (line == nr) {
            if (*repl)
                fprintf(f, "%s\n", repl);
        } else {
            fwrite(p, 1, (size_t)(nl - p) + 1, f);
        }
        p = nl + 1;
    }
    fclose(f);
    return out;
}

static void mtr_refused_at(const char *text, size_t len, int line, const char *what)
{
    struct trace t;
    char err[1024], prefix[64];
    cr_assert_eq(trace_parse(text, len, "h.trace", &t, err, sizeof err), -1, "%s: accepted", what);
    snprintf(prefix, sizeof prefix, "h.trace:%d: ", line);
    cr_assert_eq(strncmp(err, prefix, strlen(prefix)), 0, "%s: message '%s', want '%s...'", what,
                 err, prefix);
    cr_assert_gt(strlen(err), strlen(prefix), "%s: empty message", what);
}

static void mtr_line_refused(int nr, const char *repl, const char *what)
{
    size_t len;
    char *text = mtr_with_line(nr, repl, &len);
    mtr_refused_at(text, len, nr, what);
    free(text);
}

Test(metis_trace, good_fixture_parses)
{
    struct trace t;
    char err[1024];
    cr_assert_eq(trace_parse(mtr_good, strlen(mtr_good), "h.trace", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.nops, 3);
    unsigned d[METIS_MAX_FS];
    cr_assert_eq(trace_final_discrepancy(&t, d), 1);
    cr_assert_eq(d[1], DIFF_RET | DIFF_ERRNO | DIFF_STATE);
    trace_free(&t);
}

Test(metis_trace, fixed_worst_cases_refused_with_file_and_line)
{
    char longline[TRACE_LINE_MAX + 100];
    memset(longline, 'a', sizeof longline - 1);
    memcpy(longline, "op 8 mkdir path=/", 17);
    longline[sizeof longline - 1] = '\0';
    mtr_line_refused(10, "op 8 frobnicate path=/d0", "unknown operation");
    mtr_line_refused(10, "op 8 mkdir path=/d0 mode=0999", "bad mode");
    mtr_line_refused(10, "op 8 mkdir path=/d0", "missing field");
    mtr_line_refused(10, "op 8 mkdir mode=0755", "missing path");
    mtr_line_refused(10, "op 8 symlink path=/d0/l path2=/etc/passwd", "absolute target");
    mtr_line_refused(10, "op 8 mkdir path=/../etc mode=0755", "dot-dot path");
    mtr_line_refused(10, "op 8 mkdir path=d0 mode=0755", "relative path");
    mtr_line_refused(10, "op 8 unlink path=/", "the root");
    mtr_line_refused(10, "op 8 mkdir path=/d0 mode=0755 mode=0755", "duplicate key");
    mtr_line_refused(10, "op 8 mkdir path=/d0 mode=0755 size=3", "key the op does not use");
    mtr_line_refused(10, "op 8  mkdir path=/d0 mode=0755", "double space");
    mtr_line_refused(10, "op 6 mkdir path=/d1 mode=0755", "decreasing seq");
    mtr_line_refused(10, "op 99999999999999999999 mkdir path=/d1 mode=0755", "seq overflow");
    mtr_line_refused(10, longline, "very long line");
    mtr_line_refused(8, "res 7 nosuch ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd", "unknown fs");
    mtr_line_refused(8, "res 7 ref ret=0 errno=EWHAT state=b089e52d90ad33f4e05551ea132fcffd", "bad errno");
    mtr_line_refused(8, "res 7 ref ret=0 errno=0 state=XYZ", "bad hex");
    mtr_line_refused(8, "res 7 ref ret=0 errno=0 state=b089", "short digest");
    mtr_line_refused(8, "res 7 ref ret=0 errno=0", "missing state");
    mtr_line_refused(8, "res 6 ref ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd", "res of another op");
    mtr_line_refused(8, "res 7 ref ret=99999999999999999999 errno=0 state=b089e52d90ad33f4e05551ea132fcffd", "ret overflow");
    mtr_line_refused(14, "discrepancy 9 fs=ref ret=differs errno=same state=same", "reference differs");
    mtr_line_refused(14, "discrepancy 9 fs=bad ret=maybe errno=same state=same", "bad same/differs");
    mtr_line_refused(14, "discrepancy 9 fs=bad ret=same errno=same state=same", "nothing differs");
    mtr_line_refused(15, "end ops=4", "end count");
    mtr_line_refused(1, "metis-log 1", "not a trace");
    mtr_line_refused(2, "run seed=1 hash=nosuchhash", "unknown hash");
    mtr_line_refused(3, "fs 1 name=ref type=reffs fstype=- size=262144", "fs out of order");
    mtr_line_refused(4, "fs 1 name=ref type=reffs fstype=- size=262144", "duplicate fs name");
    mtr_line_refused(4, "fs 1 name=bad type=zfs fstype=- size=262144", "bad fs type");
    mtr_line_refused(4, "fs 1 name=b/ad type=reffs fstype=- size=262144", "bad fs name");
    mtr_line_refused(7, "cfg [run]", "cfg after fs");
    mtr_line_refused(7, "whatever 7", "unknown record");
    size_t len;
    char *late = mtr_with_line(5, "op 1 mkdir path=/d0 mode=0755\ninit ref state=b26e69e9870802dc752db3e260075698", &len);
    mtr_refused_at(late, len, 6, "init after an op");
    free(late);
}

Test(metis_trace, binary_and_truncated_input_refused)
{
    static const char nul[] = "metis-trace 1\nrun seed=1 hash=md5\nfs 0 name=a\0b type=reffs fstype=- size=1\nend ops=0\n";
    mtr_refused_at(nul, sizeof nul - 1, 3, "NUL byte");
    static const char high[] = "metis-trace 1\nrun seed=1 hash=md5\n\xff\xfe\x80garbage\n";
    mtr_refused_at(high, sizeof high - 1, 3, "binary garbage");
    static const char cr[] = "metis-trace 1\r\nrun seed=1 hash=md5\n";
    mtr_refused_at(cr, sizeof cr - 1, 1, "CR line end");
    mtr_refused_at("", 0, 1, "empty file");
    size_t n = strlen(mtr_good) - strlen("end ops=3\n");
    mtr_refused_at(mtr_good, n, 15, "truncated (no end record)");
    mtr_refused_at(mtr_good, n - 30, 14, "cut in the middle of a line");
    static const char nofs[] = "metis-trace 1\nrun seed=1 hash=md5\nend ops=0\n";
    mtr_refused_at(nofs, sizeof nofs - 1, 3, "no fs");
}

/* Damage: drop, duplicate or swap lines, or overwrite, insert or cut bytes. */
static char *mtr_damage(const char *text, size_t len, size_t *out_len)
{
    char *buf = malloc(len + 64);
    memcpy(buf, text, len);
    size_t n = len;
    for (int rounds = 1 + (int)mtr_below(3); rounds > 0; rounds--) {
        size_t at = mtr_below(n), k;
        switch (mtr_below(6)) {
        case 0: /* one random byte */
            buf[at] = (char)mtr_below(256);
            break;
        case 1: /* a printable character */
            buf[at] = (char)(0x20 + mtr_below(95));
            break;
        case 2: /* cut the tail */
            n = at;
            break;
        case 3: /* drop a span up to the next newline */
            for (k = at; k < n && buf[k] != '\n'; k++)
                ;
            memmove(buf + at, buf + k, n - k);
            n -= k - at;
            break;
        case 4: /* a digit or sign where it hurts */
            buf[at] = "0-9x= \n"[mtr_below(7)];
            break;
        default: /* insert a few bytes */
            if (n + 8 < len + 64) {
                memmove(buf + at + 8, buf + at, n - at);
                for (k = 0; k < 8; k++)
                    buf[at + k] = (char)mtr_below(256);
                n += 8;
            }
        }
        if (n == 0)
            break;
    }
    *out_len = n;
    return buf;
}

Test(metis_trace, damaged_traces_never_crash_and_name_file_and_line, .timeout = 60)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, "^d\\.trace:[0-9]+: [^ ]", REG_EXTENDED | REG_NOSUB), 0);
    int refused = 0;
    for (int n = 0; n < 2000; n++) {
        struct trace src, t;
        size_t len, dlen;
        char err[1024];
        mtr_trace(&src, 12);
        char *text = mtr_text(&src, &len);
        char *bad = mtr_damage(text, len, &dlen);
        if (trace_parse(bad, dlen, "d.trace", &t, err, sizeof err) < 0) {
            refused++;
            cr_assert_eq(regexec(&re, err, 0, NULL, 0), 0, "damaged trace %d: message '%s'", n, err);
        } else {
            trace_free(&t);
        }
        free(text);
        free(bad);
        trace_free(&src);
    }
    regfree(&re);
    cr_assert_geq(refused, 500, "only %d of 2000 damaged traces were refused", refused);
}

/* ---------- pool membership and the embedded config ---------- */

static const char mtr_cfg_text[] =
    "[fs ref]\ntype = reffs\nsize = 256K\n\n[fs bad]\ntype = reffs\nsize = 256K\n\n"
    "[pool]\ndirs = 1\nfiles = 2\ndepth = 1\nxattr_names = 1\n";

static void mtr_embed(struct trace *t, const char *cfg)
{
    char buf[256];
    for (const char *p = cfg; *p;) {
        const char *nl = strchr(p, '\n');
        snprintf(buf, sizeof buf, "%.*s", (int)(nl - p), p);
        trace_add_cfg_line(t, buf);
        p = nl + 1;
    }
}

static int mtr_check(const char *op_line, char *err, size_t errlen)
{
    struct trace t;
    static struct metis_config cfg;
    int map[METIS_MAX_FS];
    char text[4096];
    snprintf(text, sizeof text, "metis-trace 1\nrun seed=1 hash=md5\n%s"
             "fs 0 name=ref type=reffs fstype=- size=262144\n"
             "fs 1 name=bad type=reffs fstype=- size=262144\n%s\nend ops=1\n", "", op_line);
    cr_assert_eq(trace_parse(text, strlen(text), "p.trace", &t, err, errlen), 0, "%s", err);
    mtr_embed(&t, mtr_cfg_text);
    t.cfg_first_line = 3;
    int rc = trace_check(&t, NULL, &cfg, map, err, errlen);
    if (rc == 0)
        cr_assert(map[0] == 0 && map[1] == 1);
    trace_free(&t);
    return rc;
}

Test(metis_trace, ops_outside_the_pool_refused)
{
    char err[2048];
    if (access("/dev/fuse", R_OK | W_OK) != 0)
        cr_skip_test("no /dev/fuse (config_validate needs it for reffs)");
    cr_assert_eq(mtr_check("op 1 mkdir path=/d0 mode=0755", err, sizeof err), 0, "%s", err);
    cr_assert_eq(mtr_check("op 1 create_file path=/d0/f1 flags=0x40 mode=0644", err, sizeof err), 0, "%s", err);
    cr_assert_eq(mtr_check("op 1 symlink path=/f0 path2=d0/f1", err, sizeof err), 0, "%s", err);
    cr_assert_eq(mtr_check("op 1 setxattr path=/f0 xname=user.x0 size=3 seed=0x1 flags=0x0", err, sizeof err), 0, "%s", err);
    static const char *const bad[] = {
        "op 1 unlink path=/etc/passwd",
        "op 1 mkdir path=/d7 mode=0755",
        "op 1 rename path=/f0 path2=/elsewhere flags=0x0",
        "op 1 link path=/f0 path2=/d0/d0/f0",
        "op 1 symlink path=/f0 path2=etc",
        "op 1 setxattr path=/f0 xname=trusted.x size=3 seed=0x1 flags=0x0",
        "op 1 removexattr path=/f0 xname=user.x5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(mtr_check(bad[i], err, sizeof err), -1, "%s: accepted", bad[i]);
        cr_assert_eq(strncmp(err, "p.trace:5: op 1: ", 17), 0, "%s: message '%s'", bad[i], err);
        cr_assert(strstr(err, "not in the pool"), "%s: message '%s'", bad[i], err);
    }
}

Test(metis_trace, embedded_config_errors_name_the_trace_line)
{
    struct trace t;
    static struct metis_config cfg;
    int map[METIS_MAX_FS];
    char err[2048];
    static const char text[] = "metis-trace 1\nrun seed=1 hash=md5\ncfg [fs ref]\ncfg type = reffs\n"
                               "cfg bogus = 1\nfs 0 name=ref type=reffs fstype=- size=0\nend ops=0\n";
    cr_assert_eq(trace_parse(text, sizeof text - 1, "c.trace", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(trace_check(&t, NULL, &cfg, map, err, sizeof err), -1);
    cr_assert_eq(strncmp(err, "c.trace:5: ", 11), 0, "message '%s'", err);
    trace_free(&t);
    static const char fuse[] = "metis-trace 1\nrun seed=1 hash=md5\ncfg [fs f]\ncfg type = fuse\n"
                               "cfg mount_cmd = touch /tmp/pwned {mnt}\nfs 0 name=f type=fuse fstype=- size=0\nend ops=0\n";
    cr_assert_eq(trace_parse(fuse, sizeof fuse - 1, "c.trace", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(trace_check(&t, NULL, &cfg, map, err, sizeof err), -1);
    cr_assert(strstr(err, "c.trace:3: ") && strstr(err, "--config"), "message '%s'", err);
    trace_free(&t);
}

/* ---------- the prepopulation plan the engine, replay and emit-c share ---------- */

static int mtr_tmpdir(char *path)
{
    strcpy(path, "/tmp/metis-trace-test-XXXXXX");
    cr_assert_not_null(mkdtemp(path));
    return open(path, O_RDONLY | O_DIRECTORY);
}

static void mtr_plan(uint64_t seed, struct op_args **ops, size_t *n)
{
    static struct metis_config cfg;
    struct input in;
    config_defaults(&cfg);
    cfg.pool.prepopulate = 0.6;
    cfg.pool.depth = 2;
    cfg.run.seed = seed;
    cr_assert_eq(input_init(&in, &cfg, seed), 0);
    cr_assert_eq(prepopulate_plan(&cfg, &in.pool, ops, n), 0);
    input_free(&in);
}

Test(metis_trace, prepopulate_plan_is_reproducible_and_writes_data)
{
    char a[64], b[64], cmd[256];
    unsigned char da[TREE_MAX_DIGEST], db[TREE_MAX_DIGEST];
    struct tree_opts ao = { "md5", "", 0, 0 };
    struct op_args *p1, *p2, *p3;
    size_t n1, n2, n3;
    mtr_plan(42, &p1, &n1);
    mtr_plan(42, &p2, &n2);
    mtr_plan(43, &p3, &n3);
    cr_assert_gt(n1, 0);
    cr_assert(n1 == n2 && memcmp(p1, p2, n1 * sizeof *p1) == 0, "same seed, different plans");
    cr_assert(n1 != n3 || memcmp(p1, p3, n1 * sizeof *p1) != 0, "different seeds, same plan");
    int fa = mtr_tmpdir(a), fb = mtr_tmpdir(b);
    prepopulate_run(fa, p1, n1);
    prepopulate_run(fb, p2, n2);
    int la = tree_digest(fa, &ao, da, NULL, NULL), lb = tree_digest(fb, &ao, db, NULL, NULL);
    cr_assert(la > 0 && la == lb && memcmp(da, db, (size_t)la) == 0);
    off_t bytes = 0;
    for (size_t k = 0; k < n1; k++) {
        struct stat st;
        if (p1[k].op == OP_write_file && fstatat(fa, p1[k].path + 1, &st, 0) == 0)
            bytes += st.st_size;
    }
    cr_assert_gt(bytes, 0, "prepopulated files hold no data");
    free(p1);
    free(p2);
    free(p3);
    close(fa);
    close(fb);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", a, b);
    cr_assert_eq(system(cmd), 0);
}

/* ---------- concurrent steps ([run] together) ---------- */

static const char mtr_together[] =
    "metis-trace 1\n"
    "run seed=1 hash=md5\n"
    "fs 0 name=ref type=reffs fstype=- size=262144\n"
    "fs 1 name=race type=reffs fstype=- size=262144\n"
    "op 3 mkdir path=/d0 mode=0755\n"
    "res 3 ref ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "op 9 together tries=3 order=r1,2,1\n"
    "part 9 1 symlink path=/d0/f0 path2=f1\n"
    "part 9 2 mkdir path=/d1 mode=0700\n"
    "res 9 ref ret=0,-1 errno=0,ENOSPC state=fe2426aefbe075f76ab36fe409890a53\n"
    "res 9 race ret=0,0 errno=0,0 state=b26e69e9870802dc752db3e260075698\n"
    "discrepancy 9 fs=race ret=same errno=same state=same serial=differs\n"
    "end ops=2\n";

/* text parsed into t, which must then write text back exactly. */
static void mtr_parse_and_write_back(const char *text, struct trace *t)
{
    char err[1024], *out = NULL;
    size_t len = 0;
    cr_assert_eq(trace_parse(text, strlen(text), "t.trace", t, err, sizeof err), 0, "%s", err);
    FILE *f = open_memstream(&out, &len);
    cr_assert_eq(trace_write(t, f), 0);
    fclose(f);
    cr_assert_str_eq(out, text, "the writer is not the parser's inverse");
    free(out);
}

Test(metis_trace, concurrent_step_round_trip)
{
    struct trace t;
    mtr_parse_and_write_back(mtr_together, &t);
    const struct trace_op *op = &t.ops[1];
    cr_assert_eq(op->tries, 3);
    cr_assert_eq(op->ncalls, 2);
    cr_assert_str_eq(op->order, "r1,2,1");
    cr_assert_eq(op->calls[1].op, OP_mkdir);
    cr_assert_eq(op->res[0].call_err[1], ENOSPC);
    cr_assert_eq(op->disc[1].differs, DIFF_SERIAL);
    trace_free(&t);
}

/* Replaces the first line of mtr_together that starts with prefix by repl: refused at that
 * line, or at line `at` when it is not 0. */
static void mtr_together_refused_at(const char *prefix, const char *repl, int at_line,
                                    const char *what)
{
    char text[2048];
    const char *at = strstr(mtr_together, prefix), *nl = strchr(at, '\n');
    int line = 1;
    for (const char *p = mtr_together; p < at; p++)
        line += *p == '\n';
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - mtr_together), mtr_together, repl, nl);
    mtr_refused_at(text, strlen(text), at_line ? at_line : line, what);
}

static void mtr_together_refused(const char *prefix, const char *repl, const char *what)
{
    mtr_together_refused_at(prefix, repl, 0, what);
}

Test(metis_trace, concurrent_step_damage_refused_with_file_and_line)
{
    mtr_together_refused("part 9 2", "part 9 3 mkdir path=/d1 mode=0700", "part 3 out of place");
    mtr_together_refused("res 9 race", "res 9 race ret=0 errno=0 state=b26e69e9870802dc752db3e260075698",
                         "one outcome for two calls");
    mtr_together_refused("op 9", "op 9 together tries=0 order=1,2", "no tries");
    mtr_together_refused("discrepancy 9", "discrepancy 9 fs=race ret=same errno=same state=same serial=same",
                         "a bad serial field");
    /* An order of calls the step does not have is refused at its first res record. */
    mtr_together_refused_at("op 9", "op 9 together tries=3 order=1,3", 10,
                            "an order of other calls");
}

/* One trace format for every kind of step: a history's restore calls ("call"), a fault step
 * ("fault" after its op) and a concurrent step ("part" records) side by side. */
static const char mtr_mixed[] =
    "metis-trace 1\n"
    "run seed=1 hash=md5\n"
    "fs 0 name=ref type=reffs fstype=- size=262144\n"
    "fs 1 name=race type=reffs fstype=- size=262144\n"
    "call 2 race ret=0 errno=0 truncate path=/f0 size=28\n"
    "op 3 mkdir path=/d0 mode=0755\n"
    "fault 3 kind=eio_write at=1\n"
    "res 3 ref ret=0 errno=0 state=b089e52d90ad33f4e05551ea132fcffd\n"
    "op 9 together tries=2 order=2,1\n"
    "part 9 1 symlink path=/d0/f0 path2=f1\n"
    "part 9 2 mkdir path=/d1 mode=0700\n"
    "res 9 ref ret=0,0 errno=0,0 state=fe2426aefbe075f76ab36fe409890a53\n"
    "call 10 race ret=-1 errno=ENOENT truncate path=/f0 size=3\n"
    "op 11 rmdir path=/d1\n"
    "end ops=3 calls=2\n";

Test(metis_trace, calls_fault_steps_and_concurrent_steps_in_one_trace)
{
    struct trace t;
    mtr_parse_and_write_back(mtr_mixed, &t);
    cr_assert_eq(t.nops, 5);
    cr_assert_eq(t.ncalls, 2);
    cr_assert(t.ops[0].is_call && t.ops[3].is_call);
    cr_assert(t.ops[1].fault.on && !t.ops[2].fault.on);
    cr_assert_eq(t.ops[2].tries, 2);
    cr_assert_eq(t.ops[2].ncalls, 2);
    cr_assert_eq(trace_last_op(&t), 4);
    int n;
    trace_op_calls(&t.ops[0], &n);
    cr_assert_eq(n, 0, "a restore call has no operation of its own");
    /* A copy keeps each step what it is: a call with its outcome, a fault, the calls. */
    struct trace c;
    trace_init(&c);
    for (size_t k = 0; k < t.nops; k++)
        cr_assert_not_null(trace_add_copy(&c, &t.ops[k]));
    cr_assert_eq(c.ncalls, 2);
    cr_assert_eq(c.ops[3].call_res.err, ENOENT);
    cr_assert_eq(c.ops[1].fault.kind, t.ops[1].fault.kind);
    cr_assert_str_eq(c.ops[2].order, "2,1");
    cr_assert_eq(c.ops[2].calls[0].op, OP_symlink);
    trace_free(&c);
    trace_free(&t);
}

Test(metis_trace, a_concurrent_step_is_no_fault_step)
{
    char text[sizeof mtr_mixed + 64];
    const char *at = strstr(mtr_mixed, "res 9 ref");
    snprintf(text, sizeof text, "%.*sfault 9 kind=eio_write at=1\n%s", (int)(at - mtr_mixed),
             mtr_mixed, at);
    mtr_refused_at(text, strlen(text), 12, "a fault record after a concurrent step");
}
