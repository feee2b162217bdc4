/* Run report implementation: what a user reads during and after a run. */
#include "engine/outputs/run_outputs.h"
#include "engine/outputs/bounded_report.h"
#include "engine/outputs/cache_stale.h"
#include "lib/system/helpers.h"
#include "engine/step/step.h"
#include "engine/classify/causes.h"
#include "engine/vocab/features.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *status_name(enum metis_exit st)
{
    switch (st) {
    case METIS_EXIT_OK: return "ok";
    case METIS_EXIT_DISCREPANCY: return "discrepancy";
    case METIS_EXIT_INFRA: return "infrastructure-failure";
    case METIS_EXIT_STOPPED: return "interrupted";
    default: return "unknown";   /* not an ending of the engine's run */
    }
}

static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static double ops_per_second(const struct engine *e, double now)
{
    double t = now - e->t_start;
    return t > 0 ? e->ops / t : 0;
}

static struct report_sample counters(const struct engine *e, double now)
{
    return (struct report_sample){ now - e->t_start, e->ops, e->stored, e->matched, e->restores,
                                   e->discrepancies };
}

/* The known file's records no class of the run matched: a group record is seen when any class
 * of its group is found (and not covered by a class record of its own). */
static int known_not_seen(const struct engine *e)
{
    int gone = 0;
    for (int r = 0; r < e->known.n; r++) {
        int seen = 0;
        for (int k = 0; k < e->classes.n && !seen; k++)
            seen = known_match(&e->known, e->classes.v[k].signature, e->classes.v[k].group) == r;
        gone += !seen;
    }
    return gone;
}

/* " classes=N groups=G" only once there is a discrepancy: a clean run's lines stay as they
 * were; with a known file, " new=N known=M not_seen=K" splits them and counts the known
 * records not found. */
static void print_classes_count(const struct engine *e)
{
    int known = 0;
    for (int k = 0; k < e->classes.n; k++)
        known += engine_class_known(e, k);
    if (e->discrepancies)
        fprintf(stderr, " classes=%d groups=%d", e->classes.n, causes_count(&e->classes));
    if (e->have_known)
        fprintf(stderr, " new=%d known=%d not_seen=%d", e->classes.n - known, known,
                known_not_seen(e));
    fputc('\n', stderr);
}

void progress_tick(struct engine *e, double now)
{
    struct report_sample v = counters(e, now);
    report_sampler_tick(&e->sampler, &v);
    static int tty = -1;
    if (tty < 0)
        tty = isatty(2);
    if (now - e->last_progress < (tty ? 1.0 : 10.0))
        return;
    e->last_progress = now;
    fprintf(stderr, "[%7.1fs] ops=%llu (%.0f/s) states=%.0f matched=%.0f depth=%zu restores=%llu "
            "discrepancies=%llu", now - e->t_start, (unsigned long long)e->ops,
            ops_per_second(e, now), e->stored, e->matched, e->depth,
            (unsigned long long)e->restores, (unsigned long long)e->discrepancies);
    print_classes_count(e);
}

static void write_timing_json(const struct engine *e, FILE *f)
{
    fputs("\"time_per_op_us\":{", f);
    for (int i = 0; i < e->g.nfs; i++) {
        const struct fs_outcome *o = &e->g.out[i];
        double n = e->ops ? (double)e->ops : 1;
        fprintf(f, "%s\"%s\":{\"restore_mount\":%.1f,\"operation\":%.1f,\"abstract\":%.1f,"
                "\"unmount_save\":%.1f,\"crash\":%.1f,\"fault\":%.1f,\"fault_steps\":%llu,"
                "\"held_bytes\":%llu}", i ? "," : "",
                e->cfg.fs[i].name, o->t_prepare / n * 1e6, o->t_op / n * 1e6,
                o->t_abstract / n * 1e6, o->t_finish / n * 1e6, o->t_crash / n * 1e6,
                o->t_fault / n * 1e6, (unsigned long long)o->fault_steps,
                e->g.be[i] ? (unsigned long long)e->g.be[i]->ops->held_bytes(e->g.be[i]) : 0ULL);
    }
    fputs("}", f);
}

/* Where each crash check's time went (crash_parts), for the file systems that have one. */
static void write_crash_parts_json(const struct engine *e, FILE *f)
{
    int first = 1;
    fputs(",\"crash_parts_s\":{", f);
    for (int i = 0; i < e->g.nfs; i++) {
        struct crash_parts p;
        if (!e->g.crash[i])
            continue;
        crash_parts(e->g.crash[i], &p);
        fprintf(f, "%s\"%s\":{\"copy\":%.3f,\"build\":%.3f,\"store\":%.3f,\"mount\":%.3f,"
                "\"read\":%.3f,\"umount\":%.3f,\"fsck_wait\":%.3f,\"fsck_run\":%.3f,\"judge\":%.3f,"
                "\"states\":%llu,\"distinct\":%llu}", first ? "" : ",", e->cfg.fs[i].name, p.copy,
                p.build, p.store, p.mount, p.read, p.umount, p.fsck, p.fsck_run, p.judge, p.states,
                p.distinct);
        first = 0;
    }
    fputs("}", f);
}

/* How each backend restored states (its stats hook), what equalization filled and left, and
 * whether its root was given the reference's mode and owner. */
static void write_backends_json(const struct engine *e, FILE *f)
{
    const struct free_counts *fc = e->g.free_after, *got = e->g.fillers;
    uint64_t min_b = UINT64_MAX, min_i = UINT64_MAX;
    for (int i = 0; i < e->g.nfs; i++) {
        min_b = fc[i].bytes < min_b ? fc[i].bytes : min_b;
        min_i = fc[i].inodes < min_i ? fc[i].inodes : min_i;
    }
    fprintf(f, ",\"equalize_limit\":%llu,\"backends\":{",
            (unsigned long long)e->cfg.run.equalize_limit);
    for (int i = 0; i < e->g.nfs; i++) {
        struct backend *b = e->g.be[i];
        fprintf(f, "%s\"%s\":{\"equalized_bytes\":%llu,\"equalized_inodes\":%llu,"
                "\"unequal_bytes\":%llu,\"unequal_inodes\":%llu", i ? "," : "", e->cfg.fs[i].name,
                (unsigned long long)got[i].bytes, (unsigned long long)got[i].inodes,
                (unsigned long long)(fc[i].bytes - min_b),
                (unsigned long long)(fc[i].inodes == UINT64_MAX ? 0 : fc[i].inodes - min_i));
        fprintf(f, ",\"root_equalized\":%s", got[i].root_set ? "true" : "false");
        if (b && b->ops->stats) {
            fputs(",", f);
            b->ops->stats(b, f);
        }
        fputs("}", f);
    }
    fputs("}", f);
}

/* The run's declarations: "lacks" per fs (its words), then what they leave out of every fs's
 * state and draws. */
static void write_lacks_json(const struct metis_config *cfg, FILE *f)
{
    char ignored[200];
    fputs(",\"lacks\":{", f);
    for (int i = 0; i < cfg->nfs; i++) {
        fprintf(f, "%s\"%s\":[", i ? "," : "", cfg->fs[i].name);
        for (int w = 0, n = 0; w < features_count(); w++)
            if ((cfg->fs[i].lacks_words >> w) & 1)
                fprintf(f, "%s\"%s\"", n++ ? "," : "", feature_word(w));
        fputs("]", f);
    }
    features_ignore_text(cfg->lacked_ignore, ignored, sizeof ignored);
    fprintf(f, "},\"lacks_not_compared\":\"%s\",\"lacks_never_drawn\":[", ignored);
    int n = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if ((cfg->lacked_ops >> op) & 1)
            fprintf(f, "%s\"%s\"", n++ ? "," : "", op_name(op));
    for (int v = 0; v < op_variant_count(); v++)
        if ((cfg->lacked_variants >> v) & 1)
            fprintf(f, "%s\"%s/%s\"", n++ ? "," : "", op_name(op_variant_op(v)),
                    op_variant_name(v));
    fputs("]", f);
}

/* States as the run counts them: a bounded search's distinct abstract states within the depth
 * it completed (SPIN's count adds every depth's search and the states stored twice by REACH). */
static double states_counted(const struct engine *e)
{
    return e->search.bounded.on ? (double)e->search.bounded.states : e->stored;
}

/* The deepest operation count: a bounded search's is the depth it completed (SPIN's depth
 * starts past the model's own first steps). */
static long depth_counted(const struct engine *e)
{
    return e->search.bounded.on ? e->search.bounded.done : e->max_depth_seen;
}

static void write_summary_json(struct engine *e, enum metis_exit st, const char *why,
                               double now, FILE *f)
{
    char reason[512], config[2100];
    json_escape(why, reason, sizeof reason);
    json_escape(e->cfg.path, config, sizeof config);
    fprintf(f, "{\"status\":\"%s\",\"reason\":\"%s\",\"config\":\"%s\",\"run_id\":\"%s\","
            "\"seed\":%llu,\"ops\":%llu,\"seconds\":%.3f,\"ops_per_s\":%.1f,\"states\":%.0f,"
            "\"matched\":%.0f,\"restores\":%llu,\"discrepancies\":%llu,\"max_depth\":%ld,"
            "\"peak_rss_kib\":%ld,", status_name(st), reason, config, e->run_id,
            (unsigned long long)e->cfg.run.seed, (unsigned long long)e->ops, now - e->t_start,
            ops_per_second(e, now), states_counted(e), e->matched,
            (unsigned long long)e->restores, (unsigned long long)e->discrepancies,
            depth_counted(e), peak_rss_kib());
    fprintf(f, "\"searches\":%d,\"last_search_complete\":%s,\"base_seed\":%llu,",
            e->search.index, e->search.completed ? "true" : "false",
            (unsigned long long)e->search.base_seed);
    fprintf(f, "\"discrepancy_classes\":%d,", e->classes.n);
    causes_write_json(&e->classes, f);
    classes_write_json(&e->classes, &e->cfg, f);
    fputs(",\"fs\":[", f);
    for (int i = 0; i < e->g.nfs; i++)
        fprintf(f, "%s\"%s\"", i ? "," : "", e->cfg.fs[i].name);
    fputs("]", f);
    write_lacks_json(&e->cfg, f);
    fputs(",", f);
    write_timing_json(e, f);
    write_crash_parts_json(e, f);
    write_backends_json(e, f);
    fputs(",\"reach\":", f);
    reach_write_json(&e->reach, f);
    fputs(",\"coverage\":", f);
    coverage_write_json(&e->in, f);
    fputs(",", f);
    together_write_json(&e->together, f);
    cache_stale_write_json(e, f);
    if (e->search.bounded.on)
        bounded_write_json(e, f);
    fputs("}\n", f);
}

static FILE *open_out(const struct engine *e, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", e->out_dir, name);
    return fopen(path, "w");
}

void report_write(struct engine *e, enum metis_exit st, const char *reason)
{
    double now = now_seconds();
    if (e->t_start == 0)
        e->t_start = now;
    struct report_sample v = counters(e, now);
    report_sampler_close(&e->sampler, &v);
    FILE *f = open_out(e, "summary.json");
    if (f) {
        write_summary_json(e, st, reason, now, f);
        fclose(f);
    }
    e->reach.lacked_ops = e->cfg.lacked_ops;
    e->reach.lacked_variants = e->cfg.lacked_variants;
    if ((f = open_out(e, "reach.txt"))) {
        reach_write_text(&e->reach, e->cfg.op_weight, f);
        together_write_text(&e->together, f);
        fputc('\n', f);
        coverage_write_paths(&e->in, f);
        fclose(f);
    }
    if ((f = open_out(e, "coverage.txt"))) {
        coverage_write_text(&e->in, f);
        fclose(f);
    }
    if (e->search.restarting)
        return;                 /* the run goes on: its last search prints the totals */
    if (e->ops)
        reach_print_unreached(&e->reach, e->cfg.op_weight, stderr);
    cache_stale_print(e, stderr);
    fprintf(stderr, "ops=%llu states=%.0f matched=%.0f restores=%llu discrepancies=%llu "
            "ops_per_s=%.1f searches=%d last_complete=%s", (unsigned long long)e->ops,
            states_counted(e), e->matched, (unsigned long long)e->restores,
            (unsigned long long)e->discrepancies, ops_per_second(e, now), e->search.index,
            e->search.completed ? "yes" : "no");
    print_classes_count(e);
}
