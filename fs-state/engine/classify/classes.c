/* Discrepancy classes: signs each disagreement of a step, counts hits per signature, writes the classes of a run. */
#include "engine/classify/classes.h"
#include "lib/text/buf.h"
#include "lib/text/errnos.h"
#include "engine/classify/hints.h"
#include "lib/system/helpers.h"
#include <stdlib.h>
#include <string.h>

static void kinds_text(unsigned d, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", d & DIFF_SETUP ? "setup," : "",
             d & DIFF_RET ? "ret," : "",
             d & DIFF_ERRNO ? "errno," : "", d & DIFF_STATE ? "state," : "",
             d & DIFF_CRASH ? "crash," : "", d & DIFF_CRASH_MOUNT ? "crash-mount," : "",
             d & DIFF_CRASH_FSCK ? "crash-fsck," : "",
             d & DIFF_DAEMON_DIED ? "daemon-died," : "", d & DIFF_HANG ? "hang," : "",
             d & DIFF_RESTORE_UNREACHABLE ? "restore-unreachable," : "",
             d & DIFF_UNREADABLE ? "unreadable," : "",
             d & DIFF_UNMOUNT_FAILED ? "unmount-failed," : "", d & DIFF_FAULT_LOST ? "fault-lost," : "",
             d & DIFF_FAULT_PARTIAL ? "fault-partial," : "",
             d & DIFF_FAULT_FSCK ? "fault-fsck," : "", d & DIFF_FAULT_ERRNO ? "fault-errno," : "",
             d & DIFF_FAULT_MOUNT ? "fault-mount," : "", d & DIFF_FAULT_STALE ? "fault-stale," : "",
             d & DIFF_REMOUNT ? "remount," : "", d & DIFF_SERIAL ? "not-serializable," : "");
    size_t n = strlen(buf);
    if (n)
        buf[n - 1] = '\0';
    else
        snprintf(buf, len, "none");
}

struct listing_job {
    struct fsgroup *g;
    int i;
};

/* fs i read back between a begin and an end, as the step reads it. */
static int list_mounted(void *ctx, FILE *f)
{
    struct listing_job *j = ctx;
    struct backend *b = j->g->be[j->i];
    unsigned char digest[TREE_MAX_DIGEST];
    int rc = b->ops->begin(b);
    if (rc == 0) {
        rc = backend_read_back(b, &j->g->abs[j->i], digest, f, NULL) < 0 ? -1 : 0;
        if (b->ops->end(b) < 0)
            rc = -1;
    }
    return rc;
}

char *classes_read_listing(struct fsgroup *g, int i)
{
    struct listing_job j = { g, i };
    return tree_listing_text(list_mounted, &j);
}

/* The first difference between the reference's tree and fs i's. */
static void state_difference(struct fsgroup *g, int i, struct state_diff *d)
{
    char *ref = classes_read_listing(g, 0);
    char *other = ref ? classes_read_listing(g, i) : NULL;
    if (!other) {
        memset(d, 0, sizeof *d);
        snprintf(d->entry, sizeof d->entry, "(tree not readable: %.400s)",
                 g->be[ref ? i : 0]->err);
    } else if (classify_listings(ref, other, d) < 0) {
        char line[sizeof d->entry];
        snprintf(line, sizeof line, "%s", d->entry);
        snprintf(d->entry, sizeof d->entry, "(not a listing line: %.400s)", line);
    }
    free(ref);
    free(other);
}

/* "rename/exchange", "mkdir", or "initial": the operation and the variant it was drawn as. */
static const char *op_label(const struct dclass *c, char *buf, size_t len)
{
    if (c->op < 0)
        return "initial";
    if (c->variant < 0)
        return op_name((enum op_id)c->op);
    snprintf(buf, len, "%s/%s", op_name((enum op_id)c->op), op_variant_name(c->variant));
    return buf;
}

/* An outcome as a signature shows it: the errno of a failure; a success as "0", or as "ok"
 * when it returned a count, since counts vary with the arguments and split one cause. */
static const char *outcome(const struct op_result *r)
{
    return r->ret < 0 ? errno_name(r->err) : r->ret == 0 ? "0" : "ok";
}

/* A differing return value or errno is the cause; whatever the state shows after it is its
 * consequence, so it is left out: "rename/exchange fuse2fs errno EINVAL, reference 0". Two
 * successes that differ in their counts: "write_file bad ret below reference". */
static void sign_outcomes(struct dclass *c, const char *op, const char *fs)
{
    if (c->res.ret >= 0 && c->ref.ret >= 0)
        snprintf(c->signature, sizeof c->signature, "%.48s %.32s ret %s reference", op, fs,
                 c->res.ret < c->ref.ret ? "below" : "above");
    else
        snprintf(c->signature, sizeof c->signature, "%.48s %.32s errno %s, reference %s", op, fs,
                 outcome(&c->res), outcome(&c->ref));
}

static void sign(struct dclass *c, const struct metis_config *cfg)
{
    char kinds[256], label[96];
    const char *fs = cfg->fs[c->fs].name, *op = op_label(c, label, sizeof label);
    kinds_text(c->kinds, kinds, sizeof kinds);
    if (c->kinds & DIFF_TARGET)     /* whatever the operation: "daemon-died bindfs" */
        snprintf(c->signature, sizeof c->signature, "%.64s %.64s", kinds, fs);
    else if (c->kinds & DIFF_REMOUNT)   /* the checkpoint's step is not its cause */
        snprintf(c->signature, sizeof c->signature, "remount %.32s state %.24s", fs,
                 tree_diff_name(c->attr));
    else if ((c->kinds & (DIFF_RET | DIFF_ERRNO)) && !(c->kinds & DIFF_OWN_PROMISE))
        sign_outcomes(c, op, fs);
    else              /* the state alone, or a crash or fault check: what it shows first */
        snprintf(c->signature, sizeof c->signature, "%.48s %.32s %.52s %.24s", op, fs, kinds,
                 tree_diff_name(c->attr));
}

void classes_classify(struct fsgroup *g, int i, const struct op_args *a, struct dclass *c)
{
    memset(c, 0, sizeof *c);
    c->op = a ? (int)a->op : -1;
    c->variant = a ? op_variant_of(a) : -1;
    c->fs = i;
    c->kinds = g->out[i].differs;
    c->ref = g->out[0].res;
    c->res = g->out[i].res;
    if (c->kinds & DIFF_REMOUNT)
        c->d = g->out[i].remount.d;    /* the cause: the device is not what the mount showed */
    else if ((c->kinds & DIFF_STATE) && g->out[i].have_fresh)
        c->d = g->out[i].fresh;        /* what the step added to the known delta */
    else if (c->kinds & DIFF_STATE)
        state_difference(g, i, &c->d);
    else if (c->kinds & (DIFF_FAULT_LOST | DIFF_FAULT_PARTIAL))
        c->d = g->out[i].fault.diff;   /* against its own clean run, not the reference */
    c->attr = c->d.attr;
    sign(c, g->cfg);
    struct hint_case h = { g->cfg, i, a, c->kinds, c->ref, c->res,
                           c->kinds & DIFF_STATE ? &c->d : NULL };
    hints_find(&h, c->hint, sizeof c->hint);
    const char *title = hints_cause(&h, c->cause_id, sizeof c->cause_id);
    snprintf(c->cause, sizeof c->cause, "%s", title ? title : "");
    if (!strncmp(c->cause_id, "lacks:", 6))
        snprintf(c->lacks, sizeof c->lacks, "%s", hints_lacks_word(&h));
}

void classes_target_failure(struct fsgroup *g, int i, unsigned kind, const struct op_args *a,
                            struct dclass *c)
{
    memset(c, 0, sizeof *c);
    c->op = a ? (int)a->op : -1;
    c->variant = a ? op_variant_of(a) : -1;
    c->fs = i;
    c->kinds = kind & DIFF_TARGET;
    c->ref = g->out[0].res;
    c->res = g->out[i].res;
    c->attr = TREE_DIFF_NONE;
    snprintf(c->d.entry, sizeof c->d.entry, "%.500s", g->err);
    sign(c, g->cfg);
}

int classes_find(const struct dclass_table *t, const char *signature)
{
    for (int k = 0; k < t->n; k++)
        if (strcmp(t->v[k].signature, signature) == 0)
            return k;
    return -1;
}

int classes_add(struct dclass_table *t, const struct dclass *c, uint64_t seq, double secs,
                int *fresh)
{
    *fresh = 0;
    int known = classes_find(t, c->signature);
    if (known >= 0) {
        t->v[known].hits++;
        return known;
    }
    size_t room = (size_t)t->cap;
    if (array_reserve(&t->v, &room, (size_t)t->n + 1, sizeof *t->v))
        return -1;
    t->cap = (int)room;
    struct dclass *n = &t->v[t->n];
    *n = *c;
    n->id = ++t->n;
    n->hits = 1;
    n->first_seq = seq;
    n->first_s = secs;
    *fresh = 1;
    return t->n - 1;
}

/* "(mode of /d0: reference 2755, bad 0755)", "(ret 0, reference -1; errno 0, reference
 * ENODATA)": what the class's first example showed. */
static void evidence(const struct dclass *c, const struct metis_config *cfg, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    if (c->kinds & (DIFF_TARGET | DIFF_SERIAL)) {
        snprintf(out, len, "%s", c->d.entry);
        return;
    }
    if (c->kinds & DIFF_REMOUNT) {
        snprintf(out, len, "%s of %s: live %s, after the remount %s", tree_diff_name(c->attr),
                 c->d.entry, c->d.ref, c->d.other);
        return;
    }
    if (c->kinds & (DIFF_RET | DIFF_ERRNO))
        n += (size_t)snprintf(out, len, "ret=%ld errno=%s, reference ret=%ld errno=%s",
                              c->res.ret, errno_name(c->res.err), c->ref.ret,
                              errno_name(c->ref.err));
    if (c->attr != TREE_DIFF_NONE && n < len)
        snprintf(out + n, len - n, "%s%s of %s: reference %s, %s %s", n ? "; " : "",
                 tree_diff_name(c->attr), c->d.entry, c->d.ref, cfg->fs[c->fs].name, c->d.other);
    else if ((c->kinds & DIFF_STATE) && n < len)
        snprintf(out + n, len - n, "%s%s", n ? "; " : "", c->d.entry);
}

void classes_describe(const struct dclass *c, const struct metis_config *cfg, char *out,
                      size_t len)
{
    char kinds[256], ev[1200];
    kinds_text(c->kinds, kinds, sizeof kinds);
    evidence(c, cfg, ev, sizeof ev);
    if (c->kinds & DIFF_TARGET) {
        snprintf(out, len, "class %d: %s on %s at %s (%s)", c->id, kinds, cfg->fs[c->fs].name,
                 c->op < 0 ? "the initial state" : op_name((enum op_id)c->op), ev);
        return;
    }
    if (c->kinds & DIFF_SETUP) {
        snprintf(out, len, "class %d: set-up on %s: the root's %s: reference %s, %s %s",
                 c->id, cfg->fs[c->fs].name, tree_diff_name(c->attr), c->d.ref,
                 cfg->fs[c->fs].name, c->d.other);
        return;
    }
    if (c->kinds & DIFF_SERIAL) {   /* the signature names the calls: "together A+B fs ..." */
        snprintf(out, len, "class %d: %s (%s)", c->id, c->signature, ev);
        return;
    }
    if (c->kinds & DIFF_REMOUNT) {
        snprintf(out, len, "class %d: the remount check of %s at a checkpoint after %s: the "
                 "tree on its device is not the one it showed (%s)", c->id, cfg->fs[c->fs].name,
                 c->op < 0 ? "the initial state" : op_name((enum op_id)c->op), ev);
        return;
    }
    snprintf(out, len, "class %d: %s on %s: %s differ%s (%s)", c->id,
             c->op < 0 ? "initial state" : op_name((enum op_id)c->op), cfg->fs[c->fs].name,
             kinds, strchr(kinds, ',') ? "" : "s", ev);
}

/* What groups the class with others: its group key, the cause's title, and the known delta it
 * was found below. */
static void json_group(const struct dclass *c, FILE *f)
{
    char group[400], cause[500], below[700];
    json_escape(c->group[0] ? c->group : c->signature, group, sizeof group);
    json_escape(c->cause, cause, sizeof cause);
    json_escape(c->below_delta, below, sizeof below);
    fprintf(f, ",\"group\":\"%s\",\"cause\":\"%s\",\"below_delta\":\"%s\"", group, cause,
            below);
    if (c->lacks[0])            /* a word of the vocabulary: nothing to escape */
        fprintf(f, ",\"lacks\":\"%s\"", c->lacks);
}

static void json_class(const struct dclass *c, const struct metis_config *cfg, FILE *f)
{
    char kinds[256], entry[1100], ref[300], other[300], hint[2100], sig[400];
    kinds_text(c->kinds, kinds, sizeof kinds);
    json_escape(c->d.entry, entry, sizeof entry);
    json_escape(c->d.ref, ref, sizeof ref);
    json_escape(c->d.other, other, sizeof other);
    json_escape(c->hint, hint, sizeof hint);
    json_escape(c->signature, sig, sizeof sig);
    fprintf(f, "{\"class\":%d,\"signature\":\"%s\",\"operation\":\"%s\",\"fs\":\"%s\","
            "\"kinds\":\"%s\",\"attribute\":\"%s\",\"hits\":%llu,\"first_op\":%llu,"
            "\"first_s\":%.3f,\"entry\":\"%s\",\"reference_value\":\"%s\",\"value\":\"%s\","
            "\"ret\":%ld,\"errno\":\"%s\",\"reference_ret\":%ld,\"reference_errno\":\"%s\","
            "\"detail\":\"%s\",\"hint\":\"%s\"",
            c->id, sig, c->kinds & DIFF_SERIAL ? "together" :
            c->op < 0 ? "initial" : op_name((enum op_id)c->op),
            cfg->fs[c->fs].name, kinds, tree_diff_name(c->attr), (unsigned long long)c->hits,
            (unsigned long long)c->first_seq, c->first_s, entry, ref, other, c->res.ret,
            errno_name(c->res.err), c->ref.ret, errno_name(c->ref.err), c->detail, hint);
    json_group(c, f);
    fputc('}', f);
}

void classes_write_json(const struct dclass_table *t, const struct metis_config *cfg, FILE *f)
{
    fputs("\"classes\":[", f);
    for (int k = 0; k < t->n; k++) {
        if (k)
            fputc(',', f);
        json_class(&t->v[k], cfg, f);
    }
    fputc(']', f);
}

void classes_free(struct dclass_table *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}
