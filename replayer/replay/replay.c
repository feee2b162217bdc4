/* Replay of trace operations: every result, errno and abstract state against the trace and against fs 0. */
#include "replay.h"
#include "trace/callers.h"
#include "backend/logical/calls/rcalls_text.h"
#include "lib/text/buf.h"
#include "lib/system/helpers.h"

#include <inttypes.h>
#include <string.h>


#define REPORT_LIMIT 20

void replay_expected(const struct trace *t, const int map[METIS_MAX_FS], int nfs,
                     unsigned want[METIS_MAX_FS])
{
    unsigned rec[METIS_MAX_FS];
    trace_final_discrepancy(t, rec);
    for (int i = 0; i < METIS_MAX_FS; i++)
        want[i] = i < nfs && map[i] >= 0 ? rec[map[i]] : 0;
}

int replay_has_disc(const unsigned want[METIS_MAX_FS], int nfs)
{
    for (int i = 0; i < nfs; i++)
        if (want[i])
            return 1;
    return 0;
}

int replay_same_disc(const unsigned a[METIS_MAX_FS], const unsigned b[METIS_MAX_FS], int nfs)
{
    for (int i = 0; i < nfs; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

const char *replay_kinds(unsigned d, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", d & DIFF_RET ? "ret," : "",
             d & DIFF_ERRNO ? "errno," : "", d & DIFF_STATE ? "state," : "",
             d & DIFF_CRASH ? "crash," : "", d & DIFF_CRASH_MOUNT ? "crash-mount," : "",
             d & DIFF_CRASH_FSCK ? "crash-fsck," : "", d & DIFF_FAULT_LOST ? "fault-lost," : "",
             d & DIFF_FAULT_PARTIAL ? "fault-partial," : "",
             d & DIFF_FAULT_FSCK ? "fault-fsck," : "", d & DIFF_FAULT_ERRNO ? "fault-errno," : "",
             d & DIFF_FAULT_MOUNT ? "fault-mount," : "", d & DIFF_FAULT_STALE ? "fault-stale," : "",
             d & DIFF_REMOUNT ? "remount," : "", d & DIFF_SERIAL ? "not-serializable," : "",
             d ? "" : "none");
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ',')
        buf[n - 1] = '\0';
    return buf;
}

void replay_describe(const struct metis_config *cfg, const unsigned d[METIS_MAX_FS], char *buf,
                     size_t len)
{
    char kinds[200];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nfs && used < len; i++)
        if (d[i] && i > 0 && (d[i] & DIFF_SERIAL))
            used += (size_t)snprintf(buf + used, len - used, "%sfs %s: no serial order of the "
                                     "calls on %s explains what they did at once",
                                     used ? "; " : "", cfg->fs[i].name, cfg->fs[0].name);
        else if (d[i] && i > 0 && (d[i] & (DIFF_RET | DIFF_ERRNO | DIFF_STATE)))
            used += (size_t)snprintf(buf + used, len - used, "%sfs %s differs from %s in %s",
                                     used ? "; " : "", cfg->fs[i].name, cfg->fs[0].name,
                                     replay_kinds(d[i], kinds, sizeof kinds));
        else if (d[i] & DIFF_REMOUNT)
            used += (size_t)snprintf(buf + used, len - used, "%sfs %s fails its remount check",
                                     used ? "; " : "", cfg->fs[i].name);
        else if (d[i])
            used += (size_t)snprintf(buf + used, len - used, "%sfs %s fails its %s check: %s",
                                     used ? "; " : "", cfg->fs[i].name,
                                     d[i] & DIFF_CRASH_ANY ? "crash" : "fault",
                                     replay_kinds(d[i], kinds, sizeof kinds));
    if (!used)
        snprintf(buf, len, "no discrepancy");
}

int replay_at_once(const struct trace *t, const struct trace_op *op)
{
    for (int i = 0; op->tries && i < t->nfs; i++)
        if (op->disc[i].have && (op->disc[i].differs & DIFF_SERIAL))
            return 1;
    return 0;
}

/* The session fs (bit i) that make call step j of the sequence (trace_call_made_on_in). */
static unsigned call_fs_mask(const struct session *s, const struct trace *t, const size_t *idx,
                             size_t n, size_t j)
{
    unsigned on = 0;
    for (int i = 0; i < s->g.nfs; i++)
        for (int k = 0; k < t->nfs; k++)
            if (!strcmp(s->cfg.fs[i].name, t->fs[k].name) &&
                trace_call_made_on_in(t, idx, n, j, k))
                on |= 1u << i;
    return on;
}

int replay_step(struct session *s, const struct trace *t, const struct trace_op *op, int tries,
                uint64_t from, uint64_t to)
{
    return replay_step_in(s, t, NULL, t->nops, (size_t)(op - t->ops), tries, from, to);
}

int replay_step_in(struct session *s, const struct trace *t, const size_t *idx, size_t n,
                   size_t j, int tries, uint64_t from, uint64_t to)
{
    const struct trace_op *op = &t->ops[idx ? idx[j] : j];
    struct together_set set;
    if (trace_op_set(op, &set) < 0) {
        unsigned on = op->is_call ? call_fs_mask(s, t, idx, n, j) : 0;
        if (session_trace_step(s, op, on, from, to) < 0)
            return -1;
        if (!op->is_call)
            session_compare(s, 0);
        return 0;
    }
    int at_once = replay_at_once(t, op);
    return session_together(s, &set, at_once ? (tries ? tries : op->tries) : 0, op->order, from,
                            to);
}

static int same_outcome(const struct trace_outcome *a, const struct trace_outcome *b, int initial)
{
    if (!initial && (a->ret != b->ret || a->err != b->err))
        return 0;
    for (int c = 0; !initial && c < a->ncalls && c < b->ncalls; c++)
        if (a->call_ret[c] != b->call_ret[c] || a->call_err[c] != b->call_err[c])
            return 0;
    return a->dlen == b->dlen && memcmp(a->digest, b->digest, (size_t)a->dlen) == 0;
}

static void print_outcome(FILE *f, const char *label, const struct trace_outcome *o)
{
    char hex[2 * TREE_MAX_DIGEST + 1];
    trace_hex_encode(o->digest, (size_t)o->dlen, hex);
    fprintf(f, "%s ret=", label);
    for (int c = 0; c < (o->ncalls ? o->ncalls : 1); c++)
        fprintf(f, "%s%ld", c ? "," : "", o->ncalls ? o->call_ret[c] : o->ret);
    fputs(" errno=", f);
    for (int c = 0; c < (o->ncalls ? o->ncalls : 1); c++)
        fprintf(f, "%s%s", c ? "," : "", trace_errno_name(o->ncalls ? o->call_err[c] : o->err));
    fprintf(f, " state=%s", hex);
}

/* Compares every fs's replayed outcome with the recorded one of its trace fs. */
static void compare_recorded(struct session *s, const struct trace_outcome *rec,
                             const int map[METIS_MAX_FS], uint64_t seq, int initial,
                             FILE *report, struct replay_outcome *o)
{
    for (int i = 0; i < s->g.nfs; i++) {
        if (map[i] < 0 || !rec[map[i]].have)
            continue;
        o->compared++;
        if (same_outcome(&s->out[i], &rec[map[i]], initial))
            continue;
        if (o->mismatched++ < REPORT_LIMIT && report) {
            fprintf(report, "mismatch %s %" PRIu64 " fs=%s: ", initial ? "init" : "op", seq,
                    s->cfg.fs[i].name);
            print_outcome(report, "replayed", &s->out[i]);
            print_outcome(report, "; trace", &rec[map[i]]);
            fputc('\n', report);
        }
    }
}

/* A call is compared on the fs that made it, by its outcome there (no state: it is no step of
 * the search, the operation after it is). */
static void compare_call(struct session *s, const struct trace_op *op, const int map[METIS_MAX_FS],
                         FILE *report, struct replay_outcome *o)
{
    for (int i = 0; i < s->g.nfs; i++) {
        if (map[i] != op->call_fs)
            continue;
        o->compared++;
        if (s->out[i].ret == op->call_res.ret && s->out[i].err == op->call_res.err)
            continue;
        if (o->mismatched++ < REPORT_LIMIT && report)
            fprintf(report, "mismatch call before op %" PRIu64 " fs=%s: replayed ret=%ld "
                    "errno=%s; trace ret=%ld errno=%s\n", op->seq, s->cfg.fs[i].name,
                    s->out[i].ret, trace_errno_name(s->out[i].err), op->call_res.ret,
                    trace_errno_name(op->call_res.err));
    }
}

static void print_call(FILE *f, const struct session *s, const struct trace_op *op)
{
    struct buf b = { 0 };
    if (rcall_format(&op->call, &b) == 0)
        fprintf(f, "call %" PRIu64 " %.200s%s\n", op->seq, b.p, b.len > 200 ? "..." : "");
    buf_free(&b);
    for (int i = 0; i < s->g.nfs; i++)
        fprintf(f, "  %-12sret=%ld errno=%s\n", s->cfg.fs[i].name, s->out[i].ret,
                trace_errno_name(s->out[i].err));
}

static void print_step(FILE *f, const struct session *s, const struct trace_op *op)
{
    char text[2 * METIS_PATH_MAX + 512];
    if (op->is_call) {
        print_call(f, s, op);
        return;
    }
    int n;
    const struct op_args *calls = trace_op_calls(op, &n);
    for (int c = 0; c < n; c++) {
        op_format(&calls[c], text, sizeof text);
        fprintf(f, "%s %" PRIu64 " %s\n", op->tries ? "part" : "op", op->seq, text);
    }
    for (int i = 0; i < s->g.nfs; i++) {
        fprintf(f, "  %-12s", s->cfg.fs[i].name);
        print_outcome(f, "", &s->out[i]);
        fputc('\n', f);
    }
}

/* After the initial state, or a step whose differs[] replay_step set already. */
static void note_disc(struct session *s, int initial, struct replay_outcome *o)
{
    int n = 0;
    if (initial)
        session_compare(s, 1);
    for (int i = 0; i < s->g.nfs; i++)
        n += s->differs[i] != 0;
    o->disc_ops += n > 0;
    memcpy(o->last, s->differs, sizeof o->last);
}

void replay_ops(struct session *s, const struct trace *t, const int map[METIS_MAX_FS], size_t first,
                FILE *report, int verbose, struct replay_outcome *o)
{
    double t0 = now_seconds();
    memset(o, 0, sizeof *o);
    if (first == 0) {
        compare_recorded(s, t->init, map, 0, 1, report, o);
        note_disc(s, 1, o);
    }
    for (size_t k = first; k < t->nops; k++) {
        if (session_interrupted()) {
            o->interrupted = 1;
            break;
        }
        const struct trace_op *op = &t->ops[k];
        s->g.checkpoint_next = k + 1 == t->nops;    /* where the run found what it found */
        if (replay_step(s, t, op, 0, SESSION_NO_STATE, SESSION_NO_STATE) < 0) {
            o->infra = 1;
            break;
        }
        o->ops++;
        if (verbose && report)
            print_step(report, s, op);
        if (op->is_call) {
            o->calls++;
            compare_call(s, op, map, report, o);
            continue;
        }
        /* Calls at once give what the race gives: only whether an order explains it counts. */
        if (!replay_at_once(t, op))
            compare_recorded(s, op->res, map, op->seq, 0, report, o);
        note_disc(s, 0, o);
    }
    if (o->mismatched > REPORT_LIMIT && report)
        fprintf(report, "... %zu more mismatches\n", o->mismatched - REPORT_LIMIT);
    o->seconds = now_seconds() - t0;
}
