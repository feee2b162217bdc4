/* The engine's concurrent steps: run on the group, written to the log, counted per operation pair, and reported when no serial order explains one. */
#include "engine/run/together_run.h"
#include "engine/run/engine.h"
#include "engine/run/searches.h"
#include "lib/text/errnos.h"
#include "lib/system/helpers.h"
#include "engine/records/log.h"

#include <stdio.h>
#include <string.h>

/* ---- text of outcomes ---- */

/* "ret=0,-1 errno=0,ENOSPC": a fs's outcomes of the calls, by call number. */
static void outcomes_text(const struct op_result *res, int k, char *buf, size_t len)
{
    char rets[96] = "", errs[160] = "";
    size_t r = 0, e = 0;
    for (int c = 0; c < k; c++) {
        r += (size_t)snprintf(rets + r, sizeof rets - r, "%s%ld", c ? "," : "", res[c].ret);
        e += (size_t)snprintf(errs + e, sizeof errs - e, "%s%s", c ? "," : "",
                              errno_name(res[c].err));
    }
    snprintf(buf, len, "ret=%s errno=%s", rets, errs);
}

/* "2,1" (r1,2,1: call 1 resolved before call 2 acted), or "none": the first order of m. */
static void order_text(const struct serial_table *t, int o, char *buf, size_t len)
{
    if (o >= 0)
        together_atoms_text(t->order[o].atom, t->k, buf, len);
    else
        snprintf(buf, len, "none");
}

/* ---- the log ---- */

static void log_calls(const struct together_set *set, uint64_t seq)
{
    char text[METIS_OP_LINE_MAX];
    for (int c = 0; c < set->k; c++)
        if (op_format(&set->op[c], text, sizeof text) >= 0)
            log_line("part %llu %d %s", (unsigned long long)seq, c + 1, text);
}

static void log_outcomes(const struct engine *e, const struct together_set *set,
                         const struct concurrent_verdict *v)
{
    char out[300], hex[2 * TREE_MAX_DIGEST + 1], order[32], near[32];
    for (int i = 0; i < e->g.nfs; i++) {
        outcomes_text(v->fs[i].res, set->k, out, sizeof out);
        hex_encode(e->g.out[i].digest, (size_t)e->g.out[i].dlen, hex);
        log_line("res %llu %s %s state=%s", (unsigned long long)e->ops, e->cfg.fs[i].name, out,
                 hex);
    }
    for (int i = 1; i < e->g.nfs; i++) {
        const struct concurrent_fs *f = &v->fs[i];
        order_text(&v->orders, f->failed ? -1 : serial_set_first(&f->last), order, sizeof order);
        order_text(&v->orders, f->closest, near, sizeof near);
        log_line("serial %llu fs=%s tries=%d passes=%d order=%s closest=%s%s",
                 (unsigned long long)e->ops, e->cfg.fs[i].name, f->tries, f->passes, order, near,
                 f->serial_differs ? " one-at-a-time-differs" : "");
    }
}

static void log_step(const struct engine *e, const struct together_set *set,
                     const struct concurrent_verdict *v, long depth, uint64_t to)
{
    char kept[32];
    order_text(&v->orders, v->kept, kept, sizeof kept);
    log_line("op %llu depth=%ld from=%llu together tries=%d order=%s", (unsigned long long)e->ops,
             depth, (unsigned long long)e->cur_sid, e->cfg.run.together_tries, kept);
    log_calls(set, e->ops);
    log_outcomes(e, set, v);
    if (v->diverged)
        log_line("diverged %llu", (unsigned long long)e->ops);
    log_line("save %llu sid=%llu", (unsigned long long)e->ops, (unsigned long long)to);
}

static void count_reach(struct engine *e, const struct together_set *set,
                        const struct concurrent_verdict *v)
{
    for (int i = 0; i < e->g.nfs; i++)
        for (int c = 0; c < set->k; c++)
            reach_count(&e->reach, i, e->cfg.fs[i].name, &set->op[c], &v->fs[i].res[c], 0);
    input_count_result(&e->in, v->fs[0].res[set->k - 1].err);
    search_note(&e->search, e->cur_sid, v->fs[0].res[0].err);
}

int together_run(struct engine *e, const struct together_set *set, uint64_t from, uint64_t to,
                 long depth, struct concurrent_verdict *v)
{
    int stepped = concurrent_step(&e->g, set, e->cfg.run.together_tries, from, e->cur_sid, to, v);
    engine_log_history(e, e->ops);      /* its restores' calls, before its op record */
    if (stepped < 0)
        return -1;
    count_reach(e, set, v);
    together_count(&e->together, set, v, e->g.nfs);
    log_step(e, set, v, depth, to);
    return 0;
}

/* ---- a step no order explains ---- */

/* "ret=0,0 errno=0,0; nearest serial order 2,1 (state differs too): ret=0,-1 errno=0,ENOSPC" */
static void evidence(const struct engine *e, const struct together_set *set,
                     const struct concurrent_verdict *v, int i, char *buf, size_t len)
{
    char got[300], want[300], near[32];
    const struct concurrent_fs *f = &v->fs[i];
    const struct serial_order *o = &v->orders.order[f->closest];
    const struct fs_outcome *out = &e->g.out[i];
    int state = o->dlen != out->dlen || memcmp(o->digest, out->digest, (size_t)o->dlen) != 0;
    outcomes_text(f->res, set->k, got, sizeof got);
    outcomes_text(o->res, set->k, want, sizeof want);
    order_text(&v->orders, f->closest, near, sizeof near);
    snprintf(buf, len, "try %d of %d: %.200s; nearest serial order %s%s: %.200s", f->tries,
             e->cfg.run.together_tries, got, near, state ? " (its state differs too)" : "", want);
}

static void sign(const struct engine *e, const struct together_set *set,
                 const struct concurrent_verdict *v, int i, struct dclass *c)
{
    char label[200];
    together_label(set, label, sizeof label);
    memset(c, 0, sizeof *c);
    c->op = (int)set->op[0].op;
    c->variant = -1;
    c->fs = i;
    c->kinds = DIFF_SERIAL;
    c->attr = TREE_DIFF_NONE;
    c->ref = v->orders.order[v->fs[i].closest].res[0];
    c->res = v->fs[i].res[0];
    snprintf(c->signature, sizeof c->signature, "together %.90s %.40s not serializable", label,
             e->cfg.fs[i].name);
    evidence(e, set, v, i, c->d.entry, sizeof c->d.entry);
}

/* Each failing fs's hit; k[] gets the classes (fresh ones as themselves, others as -1 - k). */
static int classify(struct engine *e, const struct together_set *set,
                    const struct concurrent_verdict *v, int *idx)
{
    int n = 0;
    e->step_unknown = 0;
    for (int i = 1; i < e->g.nfs; i++) {
        struct dclass c;
        int fresh;
        if (!v->fs[i].failed)
            continue;
        log_line("discrepancy %llu fs=%s ret=same errno=same state=same serial=differs",
                 (unsigned long long)e->ops, e->cfg.fs[i].name);
        sign(e, set, v, i, &c);
        double secs = now_seconds() - (e->search.index > 1 ? e->search.prior.t_first : e->t_start);
        int k = classes_add(&e->classes, &c, e->ops, secs, &fresh);
        if (k < 0) {
            e->step_unknown++;
            continue;
        }
        log_line("class %llu fs=%s id=%d new=%d hits=%llu signature=%s", (unsigned long long)e->ops,
                 e->cfg.fs[i].name, e->classes.v[k].id, fresh,
                 (unsigned long long)e->classes.v[k].hits, e->classes.v[k].signature);
        idx[n++] = fresh ? k : -1 - k;
        e->step_unknown += !engine_class_known(e, k);
    }
    return n;
}

static void describe_orders(const struct together_set *set, const struct concurrent_verdict *v,
                            FILE *f)
{
    char text[300], hex[2 * TREE_MAX_DIGEST + 1], name[32];
    fprintf(f, "\n## the reference's serial orders (each from the state before the step)\n");
    for (int o = 0; o < v->orders.n; o++) {
        order_text(&v->orders, o, name, sizeof name);
        outcomes_text(v->orders.order[o].res, set->k, text, sizeof text);
        hex_encode(v->orders.order[o].digest, (size_t)v->orders.order[o].dlen, hex);
        fprintf(f, "order %s: %s state=%s\n", name, text, hex);
    }
}

static void describe_step(struct engine *e, const struct together_set *set,
                          const struct concurrent_verdict *v, FILE *f)
{
    char text[METIS_OP_LINE_MAX], out[300], hex[2 * TREE_MAX_DIGEST + 1], kept[32];
    fprintf(f, "operation %llu: together tries=%d:", (unsigned long long)e->ops,
            e->cfg.run.together_tries);
    for (int c = 0; c < set->k; c++) {
        op_format(&set->op[c], text, sizeof text);
        fprintf(f, "%s %d) %s", c ? " |" : "", c + 1, text);
    }
    fputc('\n', f);
    order_text(&v->orders, v->kept, kept, sizeof kept);
    for (int i = 0; i < e->g.nfs; i++) {
        outcomes_text(v->fs[i].res, set->k, out, sizeof out);
        hex_encode(e->g.out[i].digest, (size_t)e->g.out[i].dlen, hex);
        if (i == 0)
            fprintf(f, "%-12s serial order %s: %s state=%s\n", e->cfg.fs[i].name, kept, out, hex);
        else
            fprintf(f, "%-12s calls at once, try %d: %s state=%s%s\n", e->cfg.fs[i].name,
                    v->fs[i].tries, out, hex, v->fs[i].failed ? " [not serializable]" : "");
    }
}

static void write_detail(struct engine *e, const struct together_set *set,
                         const struct concurrent_verdict *v, const int *idx, int n)
{
    char path[1200], dir[1200], line[2000];
    snprintf(path, sizeof path, "%s/discrepancy-%u.txt", e->out_dir, ++e->classes.details);
    FILE *f = fopen(path, "w");
    if (!f)
        f = stderr;
    describe_step(e, set, v, f);
    for (int j = 0; j < n; j++) {
        struct dclass *c = &e->classes.v[idx[j] >= 0 ? idx[j] : -1 - idx[j]];
        if (idx[j] >= 0)
            snprintf(c->detail, sizeof c->detail, "%s", strrchr(path, '/') + 1);
        classes_describe(c, &e->cfg, line, sizeof line);
        fprintf(f, "%s%s\n", line, idx[j] >= 0 ? " [new]" : "");
        if (idx[j] >= 0)
            fprintf(stderr, "metis: discrepancy at operation %llu (details in %s): %s%s\n",
                    (unsigned long long)e->ops, path, line,
                    engine_class_known(e, idx[j]) ? " [known]" : "");
    }
    describe_orders(set, v, f);
    snprintf(dir, sizeof dir, "%s/states", e->out_dir);
    engine_export_ring(e, f, dir);
    for (int i = 0; i < e->g.nfs; i++)
        engine_write_listing(e, f, i);
    if (f != stderr)
        fclose(f);
}

void together_report(struct engine *e, const struct together_set *set,
                     const struct concurrent_verdict *v)
{
    int idx[METIS_MAX_FS], fresh = 0;
    e->discrepancies++;
    int n = classify(e, set, v, idx);
    for (int j = 0; j < n; j++)
        fresh += idx[j] >= 0;
    if (fresh)
        write_detail(e, set, v, idx, n);
    log_flush();
}

void together_describe(const struct metis_config *cfg, char *buf, size_t len)
{
    const struct run_config *r = &cfg->run;
    if (r->together <= 0) {
        buf[0] = '\0';
        return;
    }
    char count[32] = "2";
    if (r->together_max > 2)
        snprintf(count, sizeof count, "2 to %d", r->together_max);
    snprintf(buf, len, "concurrent steps: %g%% of the steps issue %s operations at once on each "
             "fs under test (a thread each, released together), %d time%s from the state before "
             "the step; each try must give what some serial order of them gives on %s (every "
             "call's result and the state after)", r->together * 100, count, r->together_tries,
             r->together_tries == 1 ? "" : "s", cfg->fs[0].name);
}
