/* The run's cache staleness as a user reads it: summary.json's "cache_stale" and the end of run's line per file system. */
#include "engine/outputs/cache_stale.h"
#include "engine/runstate/engine_types.h"
#include "lib/system/helpers.h"

/* The option that turns the cache off, on libfuse's daemons (fuse(8)). */
#define CACHE_OFF_OPTION "-o attr_timeout=0"

void cache_stale_write_json(const struct engine *e, FILE *f)
{
    char what[420];
    int n = 0;
    fputs(",\"cache_stale\":[", f);
    for (int i = 1; i < e->g.nfs; i++) {
        const struct cache_stale *s = &e->stale[i];
        if (!s->count)
            continue;
        json_escape(s->first, what, sizeof what);
        fprintf(f, "%s{\"fs\":\"%s\",\"differences\":%llu,\"first_op\":%llu,\"first\":\"%s\","
                "\"option\":\"%s\"}", n++ ? "," : "", e->cfg.fs[i].name,
                (unsigned long long)s->count, (unsigned long long)s->first_op, what,
                CACHE_OFF_OPTION);
    }
    fputs("]", f);
}

void cache_stale_print(const struct engine *e, FILE *f)
{
    for (int i = 1; i < e->g.nfs; i++) {
        const struct cache_stale *s = &e->stale[i];
        if (s->count)
            fprintf(f, "metis: cache staleness on %s: %llu state difference%s went away when "
                    "read again past the kernel's attribute cache (first: %s, operation %llu): "
                    "not classes; mount it with %s to compare without the cache\n",
                    e->cfg.fs[i].name, (unsigned long long)s->count, s->count == 1 ? "" : "s",
                    s->first, (unsigned long long)s->first_op, CACHE_OFF_OPTION);
    }
}
