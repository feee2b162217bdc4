/* The repro command: the newest exported state plus the last operation, then older states, then the whole path. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/text/buf.h"
#include "lib/system/helpers.h"
#include "replay/import.h"
#include "replay/replay.h"
#include "replay/session.h"

/* State ids the replayer gives imported states: far above the ones it saves itself. */
#define IMPORT_SID_BASE (1ull << 40)

/* One way to reproduce: load the state made by operation seq, replay from trace index first. */
struct approach {
    uint64_t seq, sid;
    size_t first;
    const char *files[METIS_MAX_FS];
};

struct repro {
    struct cli_opts o;
    struct runlog rl;
    struct metis_config cfg;
    int map[METIS_MAX_FS];
    unsigned want[METIS_MAX_FS];
    struct session s;
    char (*tries)[600];
    int ntries;
    size_t tries_cap;
};

static void note_try(struct repro *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_try(struct repro *r, const char *fmt, ...)
{
    if (array_reserve(&r->tries, &r->tries_cap, (size_t)r->ntries + 1, sizeof *r->tries))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->tries[r->ntries++], sizeof r->tries[0], fmt, ap);
    va_end(ap);
}

static int trace_index_after(const struct trace *t, uint64_t seq, size_t *first)
{
    if (seq == 0) {
        *first = 0;
        return 0;
    }
    for (size_t k = 0; k < t->nops; k++)
        if (t->ops[k].seq == seq && !t->ops[k].is_call) {
            *first = k + 1;
            return 0;
        }
    return -1;
}

/* The exported states before the last operation, newest first, with a file for every fs. */
static size_t list_approaches(struct repro *r, struct approach *out, size_t cap)
{
    const struct trace *t = &r->rl.trace;
    uint64_t last = t->nops ? t->ops[t->nops - 1].seq : 0;
    size_t n = 0;
    for (size_t e = r->rl.nexports; e-- > 0 && n < cap;) {
        const struct runlog_export *x = &r->rl.exports[e];
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= out[k].sid == x->sid;
        if (dup || (t->nops && x->seq >= last))
            continue;
        struct approach a = { .seq = x->seq, .sid = x->sid };
        if (trace_index_after(t, x->seq, &a.first) < 0)
            continue;
        int complete = 1;
        for (int i = 0; i < r->cfg.nfs; i++)
            complete &= (a.files[i] = runlog_export_file(&r->rl, x->sid, r->cfg.fs[i].name)) != NULL;
        if (complete)
            out[n++] = a;
    }
    return n;
}

static int restart(struct repro *r)
{
    session_stop(&r->s);
    if (session_start(&r->s, &r->cfg) == 0)
        return 0;
    fprintf(stderr, "metis-replay: infrastructure failure: %s\n", r->s.err);
    return -1;
}

static void report_success(struct repro *r, const char *from, size_t nops, double secs, int k)
{
    char d[512];
    replay_describe(&r->cfg, r->want, d, sizeof d);
    printf("repro: reproduced (%s) from %s + %zu operation%s in %.3f s (try %d)\n", d, from, nops,
           nops == 1 ? "" : "s", secs, k);
}

/* Tries approach a up to R times; 1 when reproduced, 0 when not, -1 on a failure to stop. */
static int try_approach(struct repro *r, const struct approach *a)
{
    char from[128], d[512];
    snprintf(from, sizeof from, "the state after operation %" PRIu64 " (sid %" PRIu64 ")", a->seq,
             a->sid);
    for (int k = 1; k <= r->o.tries; k++) {
        struct replay_outcome out;
        double t0 = now_seconds();
        if (session_import(&r->s, a->files, IMPORT_SID_BASE + a->sid) < 0) {
            note_try(r, "%s: cannot load it: %s", from, r->s.err);
            return restart(r) < 0 ? -1 : 0;
        }
        replay_ops(&r->s, &r->rl.trace, r->map, a->first, NULL, 0, &out);
        if (out.infra || out.interrupted) {
            fprintf(stderr, "metis-replay: %s\n", out.infra ? r->s.err : "interrupted");
            return -1;
        }
        if (replay_same_disc(out.last, r->want, r->cfg.nfs)) {
            report_success(r, from, out.ops, now_seconds() - t0, k);
            return 1;
        }
        replay_describe(&r->cfg, out.last, d, sizeof d);
        note_try(r, "%s + %zu operations, try %d: %s", from, out.ops, k, d);
    }
    return 0;
}

/* fresh: the session is still in its initial state (no approach was tried on it). */
static int from_start(struct repro *r, int fresh)
{
    char d[512];
    for (int k = 1; k <= r->o.tries; k++) {
        struct replay_outcome out;
        double t0 = now_seconds();
        if ((k > 1 || !fresh) && restart(r) < 0)
            return -1;
        replay_ops(&r->s, &r->rl.trace, r->map, 0, NULL, 0, &out);
        if (out.infra || out.interrupted) {
            fprintf(stderr, "metis-replay: %s\n", out.infra ? r->s.err : "interrupted");
            return -1;
        }
        if (replay_same_disc(out.last, r->want, r->cfg.nfs)) {
            report_success(r, "the initial state", out.ops, now_seconds() - t0, k);
            return 1;
        }
        replay_describe(&r->cfg, out.last, d, sizeof d);
        note_try(r, "the initial state + %zu operations, try %d: %s", out.ops, k, d);
    }
    return 0;
}

static int run_repro(struct repro *r)
{
    struct approach *list = calloc(r->rl.nexports + 1, sizeof *list);
    size_t n = list ? list_approaches(r, list, r->rl.nexports) : 0;
    int rc = 0;
    if (session_start(&r->s, &r->cfg) < 0) {
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", r->s.err);
        free(list);
        return EXIT_INFRA;
    }
    if (!n)
        printf("repro: no exported states to start from: replaying from the initial state\n");
    int importable = 1;
    for (int i = 0; i < r->cfg.nfs; i++)
        importable &= import_supported(&r->cfg.fs[i]);
    if (n && !importable)
        printf("repro: a file system here cannot load saved states: replaying from the start\n");
    size_t tried = 0;
    for (; tried < n && importable && rc == 0; tried++)
        rc = try_approach(r, &list[tried]);
    if (rc == 0)
        rc = from_start(r, tried == 0);
    free(list);
    session_stop(&r->s);
    if (rc < 0)
        return session_interrupted() ? EXIT_INTERRUPTED : EXIT_INFRA;
    if (rc > 0)
        return EXIT_REPRODUCED;
    printf("repro: nondeterministic: the discrepancy did not reproduce in %d tries of each "
           "approach\n", r->o.tries);
    for (int k = 0; k < r->ntries; k++)
        printf("  %s\n", r->tries[k]);
    return EXIT_NONDETERMINISTIC;
}

int cmd_repro(int argc, char **argv)
{
    static struct repro r;
    char d[512];
    int parsed = cli_parse(argc, argv, "repro", &r.o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (cli_load(r.o.input, r.o.fs, &r.rl) < 0)
        return EXIT_BAD_INPUT;
    if (cli_check(&r.rl.trace, r.o.config, &r.cfg, r.map) < 0) {
        runlog_free(&r.rl);
        return EXIT_BAD_INPUT;
    }
    replay_expected(&r.rl.trace, r.map, r.cfg.nfs, r.want);
    if (!replay_has_disc(r.want, r.cfg.nfs)) {
        fprintf(stderr, "metis-replay: %s records no discrepancy: use run to replay it\n",
                r.o.input);
        runlog_free(&r.rl);
        return EXIT_BAD_INPUT;
    }
    session_install_cleanup();
    replay_describe(&r.cfg, r.want, d, sizeof d);
    long last = trace_last_op(&r.rl.trace);
    printf("repro: %s: %s after operation %" PRIu64 " (%zu operations %s)\n", r.o.input, d,
           last >= 0 ? r.rl.trace.ops[last].seq : 0, r.rl.trace.nops - r.rl.trace.ncalls,
           r.rl.trace.ncalls ? "and restore calls of the target's history" : "on the search path");
    int rc = run_repro(&r);
    free(r.tries);
    runlog_free(&r.rl);
    return rc;
}
