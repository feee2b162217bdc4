/* A bounded search's verdict: every state within the depth checked and none differing, or how far it got. */
#include "engine/outputs/bounded_report.h"
#include "lib/system/helpers.h"
#include <inttypes.h>

int bounded_complete(const struct bounded_progress *p)
{
    return p->done >= p->limit || (p->done > 0 && p->closed);
}

/* A search that met no state at its own depth checked every reachable state: the states one
 * depth shallower are all there are. */
static void depth_text(const struct bounded_progress *p, char *buf, size_t len)
{
    if (p->closed && p->done > 0)
        snprintf(buf, len, "depth <= %ld (every reachable state: none lies past depth %ld)",
                 p->limit, p->done - 1);
    else
        snprintf(buf, len, "depth <= %ld", p->limit);
}

static void not_complete(const struct bounded_progress *p, char *buf, size_t len)
{
    snprintf(buf, len, "not complete: depth %ld of %ld completed, %" PRIu64 " states%s, %" PRIu64
             " on the frontier", p->done, p->limit, p->states,
             p->symmetric ? SYMMETRY_STATES : "", p->frontier);
}

/* A swarm VT checked the states below its share of the first two transitions only, and not
 * below the states it left to other VTs' claims. */
static void share_text(const struct bounded_progress *p, char *buf, size_t len)
{
    buf[0] = '\0';
    if (p->shares > 1 && p->claims)
        snprintf(buf, len, " (share %d of %d of the first two transitions, %" PRIu64 " states "
                 "left to other VTs' claims)", p->share + 1, p->shares, p->deferred);
    else if (p->shares > 1)
        snprintf(buf, len, " (share %d of %d of the first two transitions)", p->share + 1,
                 p->shares);
    else if (p->claims)
        snprintf(buf, len, " (%" PRIu64 " states left to other VTs' claims)", p->deferred);
}

void bounded_verdict(const struct engine *e, char *buf, size_t len)
{
    char share[160];
    share_text(&e->search.bounded, share, sizeof share);
    const struct bounded_progress *p = &e->search.bounded;
    char depth[160];
    if (e->discrepancies) {
        snprintf(buf, len, "not verified: %d discrepancy class%s within depth <= %ld (depth %ld "
                 "of %ld completed)", e->classes.n, e->classes.n == 1 ? "" : "es", p->depth,
                 p->done, p->limit);
        return;
    }
    if (!bounded_complete(p)) {
        not_complete(p, buf, len);
        return;
    }
    depth_text(p, depth, sizeof depth);
    snprintf(buf, len, "verified: %" PRIu64 " states%s, %" PRIu64 " transitions, %s, %s%s: no "
             "discrepancy", p->states, p->symmetric ? SYMMETRY_STATES : "",
             p->ops, depth, p->bounds, share);
}

void bounded_write_json(const struct engine *e, FILE *f)
{
    const struct bounded_progress *p = &e->search.bounded;
    char verdict[1024], escaped[2100], bounds[1100];
    bounded_verdict(e, verdict, sizeof verdict);
    json_escape(verdict, escaped, sizeof escaped);
    json_escape(p->bounds, bounds, sizeof bounds);
    fprintf(f, ",\"complete\":%s,\"bounded\":{\"verdict\":\"%s\",\"verified\":%s,"
            "\"depth_limit\":%ld,\"depth_completed\":%ld,\"states\":%" PRIu64 ",\"frontier\":%"
            PRIu64 ",\"transitions\":%" PRIu64 ",\"per_state\":%" PRIu64 ",\"closed\":%s,"
            "\"share\":%d,\"shares\":%d,\"claims\":%s,\"deferred\":%" PRIu64 ",\"bounds\":\"%s\","
            "\"symmetry\":\"%s\"}",
            bounded_complete(p) ? "true" : "false", escaped,
            bounded_complete(p) && !e->discrepancies ? "true" : "false", p->limit, p->done,
            p->states, p->frontier, p->ops, p->per_state, p->closed ? "true" : "false", p->share, p->shares ? p->shares : 1,
            p->claims ? "true" : "false", p->deferred, bounds, p->symmetric ? "names" : "off");
}
