/* The reasons a reproducer may not bite, each from a fact the run recorded: the class's cause, the known delta it was found below, and how each fs was kept and restored (summary.json's backends). */
#include "repro_why.h"
#include <stdio.h>
#include <string.h>

struct reasons {
    char *out;
    size_t len, used;
};

static void add(struct reasons *r, const char *text)
{
    if (r->used < r->len)
        r->used += (size_t)snprintf(r->out + r->used, r->len - r->used, "%s%s",
                                    r->used ? "; " : "", text);
}

/* A daemon that lives across steps (a FUSE fs without a remount per step) may hold state that
 * a fresh daemon, as the reproducer starts, does not. */
static void daemon_lifetime(struct reasons *r, const char *fs, json_object *b)
{
    char text[400];
    const char *restore = rj_str(b, "restore", "");
    if (!rj_get(b, "mounts") || !strcmp(restore, "image") || !restore[0])
        return;
    snprintf(text, sizeof text, "daemon lifetime: the search kept one daemon of %s running "
             "across its steps (%s%s), and the reproducer starts a fresh one, without what the "
             "old one held in memory", fs, rj_get(b, "kept") ? "an image kept mounted, restored "
             : "restore = ", rj_get(b, "kept") ? "logically" : restore);
    add(r, text);
}

/* Restores made by calls that no log records: the trace lacks them, so the reproducer's fs
 * does not go through what the search's did. */
static void unlogged_restores(struct reasons *r, const char *fs, json_object *b)
{
    char text[400];
    int kept = rj_get(b, "kept") != NULL, devless = !rj_get(b, "mounts");
    if (strcmp(rj_str(b, "restore", ""), "logical") || !(kept || devless))
        return;
    snprintf(text, sizeof text, "a restore the trace lacks: %s is restored logically (%s) and "
             "such restores are not logged, so the trace holds none of the calls they made", fs,
             kept ? "an image kept mounted" : "tmpfs or overlay");
    add(r, text);
}

static void below_delta(struct reasons *r, const struct run_class *c)
{
    char text[500];
    if (!c->below[0])
        return;
    snprintf(text, sizeof text, "a class below a known delta (%.300s): the reproducer names the "
             "first difference, which may be the delta's cause and not this class's", c->below);
    add(r, text);
}

void repro_why(const struct run_class *c, json_object *summary, const char *ref, char *out,
               size_t len)
{
    struct reasons r = { out, len, 0 };
    json_object *backends = rj_get(summary, "backends");
    out[0] = '\0';
    daemon_lifetime(&r, c->fs, rj_get(backends, c->fs));
    unlogged_restores(&r, c->fs, rj_get(backends, c->fs));
    if (c->exit_ref != 0 && ref[0])
        unlogged_restores(&r, ref, rj_get(backends, ref));
    below_delta(&r, c);
    if (!r.used)
        add(&r, "no cause the run knows of: the search's file systems may hold what the trace "
                "does not (timing, memory); metis-replay run of the trace replays it by hand");
}
