/* emit-c's reference: the trace replayed on fresh file systems, the reference's outcome of every step and its final tree listed. */
#include "emitstep/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/import.h"
#include "replay/replay.h"
#include "replay/session.h"

/* The state id a loaded saved state gets (far above the ones steps would save). */
#define IMPORT_SID (1ull << 40)


/* With a trace that starts from a saved state whose exported files are still there and every
 * fs can load: that state, so the operations that made it need not be replayed (a long path
 * from the empty fs is slow, and a flaky target may not get through it). Returns the first
 * operation to replay: t->start when loaded, else 0. */
static size_t load_start(struct session *s, struct emit *e)
{
    const char *files[METIS_MAX_FS] = { 0 };
    if (!e->t->start)
        return 0;
    for (int i = 0; i < e->cfg->nfs; i++) {
        int ti = e->map[i];
        if (ti < 0 || !e->t->start_state[ti][0] || access(e->t->start_state[ti], R_OK) != 0 ||
            !import_supported(&e->cfg->fs[i]))
            return 0;
        files[i] = e->t->start_state[ti];
    }
    if (session_import(s, files, IMPORT_SID) == 0)
        return e->t->start;
    fprintf(stderr, "metis-replay: emit-c: cannot load the saved state (%s): replaying the "
            "operations that made it\n", s->err);
    session_stop(s);
    return session_start(s, e->cfg) == 0 ? 0 : (size_t)-1;
}

/* Steps every operation (from the saved state when it loads; a concurrent step made at once
 * is left for emit_orders); the reference's outcomes go to e->ref and e->calls. */
static int replay_steps(struct session *s, struct emit *e, char *err, size_t errlen)
{
    size_t first = load_start(s, e), last = e->t->nops - (e->at_once ? 1 : 0);
    if (first == (size_t)-1)
        return snprintf(err, errlen, "infrastructure failure: %s", s->err), -1;
    for (size_t k = first; k < last; k++) {
        if (session_interrupted())
            return snprintf(err, errlen, "interrupted"), -1;
        if (replay_step(s, e->t, &e->t->ops[k], 0, SESSION_NO_STATE, SESSION_NO_STATE) < 0)
            return snprintf(err, errlen, "infrastructure failure: %s", s->err), -1;
        e->ref[k] = s->g.out[0].res;
        for (int c = 0; c < s->out[0].ncalls; c++)
            e->calls[k][c] = (struct op_result){ s->out[0].call_ret[c], s->out[0].call_err[c] };
        int rec = e->map[0] >= 0 && !e->t->ops[k].is_call ? e->map[0] : -1;
        const struct trace_outcome *r = rec >= 0 ? &e->t->ops[k].res[rec] : NULL;
        if (r && r->have && (r->ret != e->ref[k].ret || r->err != e->ref[k].err))
            fprintf(stderr, "metis-replay: emit-c: warning: step %zu on %s gave ret=%ld errno=%s "
                    "when replayed, the trace records ret=%ld errno=%s; the program expects "
                    "the replayed one\n", k + 1, e->cfg->fs[0].name, e->ref[k].ret,
                    trace_errno_name(e->ref[k].err), r->ret, trace_errno_name(r->err));
    }
    return 0;
}

/* The state before a concurrent step the program issues at once: its orders start there. */
#define EMIT_BEFORE_SID (1ull << 42)

/* Set-up gives the reference a target's root when the target keeps its own (equalize.h): the
 * program must start every fs from that root, not from the usual 0755 0:0. */
static void root_after_setup(struct session *s, struct emit *e)
{
    struct stat st;
    e->root_mode = 0755;
    e->root_uid = e->root_gid = 0;
    if (stat(s->g.be[0]->mnt, &st) == 0) {
        e->root_mode = st.st_mode & 07777;
        e->root_uid = st.st_uid;
        e->root_gid = st.st_gid;
    }
}

int emit_replay_reference(struct emit *e, char *err, size_t errlen)
{
    static struct session s;
    e->ref = calloc(e->t->nops + 1, sizeof *e->ref);
    e->calls = calloc(e->t->nops + 1, sizeof *e->calls);
    if (!e->ref || !e->calls)
        return snprintf(err, errlen, "out of memory"), -1;
    session_install_cleanup();
    if (session_start(&s, e->cfg) < 0) {
        snprintf(err, errlen, "infrastructure failure: %s", s.err);
        session_stop(&s);
        return -1;
    }
    e->fill_inodes = s.g.fillers[e->fut].inodes;
    e->fill_bytes = s.g.fillers[e->fut].bytes;
    e->fill_slack = s.g.fillers[e->fut].slack;
    e->fill_made = !s.g.fillers[e->fut].fill_failed;
    root_after_setup(&s, e);
    int rc = replay_steps(&s, e, err, errlen);
    if (rc == 0 && e->at_once && (rc = session_save(&s, EMIT_BEFORE_SID)) < 0)
        snprintf(err, errlen, "infrastructure failure: %s", s.err);
    if (rc == 0 && e->at_once)
        rc = emit_orders(&s, e, EMIT_BEFORE_SID, err, errlen);
    else if (rc == 0)
        rc = emit_list_reference(&s, &e->tree, err, errlen);
    session_stop(&s);
    return rc;
}

void emit_free(struct emit *e)
{
    free(e->ref);
    e->ref = NULL;
    free(e->calls);
    e->calls = NULL;
    rt_free(&e->tree);
    emit_orders_free(e);
}
