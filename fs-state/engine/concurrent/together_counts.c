/* The counts of concurrent steps per operation pair, and their sections in reach.txt and summary.json. */
#include "engine/concurrent/together_counts.h"

#include <stdio.h>

/* ---- counts ---- */

/* Whether order o makes call x before call y. */
static int made_before(const struct serial_table *t, int o, int x, int y)
{
    for (int p = 0; p < t->k; p++) {
        if (t->order[o].acts[p] == x)
            return 1;
        if (t->order[o].acts[p] == y)
            return 0;
    }
    return 0;
}

/* Which of the two calls' orders the fs's passing tries met: bit 0 x first, bit 1 y first. */
static unsigned orders_met(const struct serial_table *t, uint32_t met, int x, int y)
{
    unsigned seen = 0;
    for (int o = 0; o < t->whole; o++)
        if ((met >> o) & 1)
            seen |= made_before(t, o, x, y) ? 1u : 2u;
    return seen;
}

static void count_pair(struct together_counts *c, const struct together_set *set,
                       const struct concurrent_verdict *v, int nfs, int x, int y)
{
    int a = set->op[x].op, b = set->op[y].op;
    if (a > b) {                  /* the pair's row is (lower op, higher op) */
        int t = x;
        x = y, y = t;
        a = set->op[x].op, b = set->op[y].op;
    }
    struct together_pair *p = &c->pair[a][b];
    unsigned seen = 0;
    p->steps++;
    for (int i = 1; i < nfs; i++) {
        p->tries += (uint64_t)v->fs[i].tries;
        p->passes += (uint64_t)v->fs[i].passes;
        p->failed += (uint64_t)v->fs[i].failed;
        seen |= orders_met(&v->orders, v->fs[i].met, x, y);
    }
    p->met_a_first += seen & 1;
    p->met_b_first += (seen >> 1) & 1;
}

void together_count(struct together_counts *c, const struct together_set *set,
                    const struct concurrent_verdict *v, int nfs)
{
    c->steps++;
    c->failed += v->failed != 0;
    c->diverged += (uint64_t)v->diverged;
    c->orders_run += (uint64_t)v->orders.n;
    c->order_us += (uint64_t)(v->orders.seconds * 1e6);
    for (int i = 1; i < nfs; i++) {
        c->tries += (uint64_t)v->fs[i].tries;
        c->passes += (uint64_t)v->fs[i].passes;
    }
    for (int x = 0; x < set->k; x++)
        for (int y = x + 1; y < set->k; y++)
            count_pair(c, set, v, nfs, x, y);
}

/* ---- reports ---- */

void together_write_text(const struct together_counts *c, FILE *f)
{
    if (!c->steps)
        return;
    fprintf(f, "\nconcurrent steps ([run] together): %llu steps, %llu tries at once, %llu "
            "explained by a serial order, %llu steps not serializable, %llu leaves where the "
            "file systems took different orders; %llu serial orders run on the reference in "
            "%.3f s\n", (unsigned long long)c->steps, (unsigned long long)c->tries,
            (unsigned long long)c->passes, (unsigned long long)c->failed,
            (unsigned long long)c->diverged, (unsigned long long)c->orders_run,
            (double)c->order_us / 1e6);
    fprintf(f, "%-32s %8s %8s %8s %8s %10s %10s\n", "operations", "steps", "tries", "passes",
            "failed", "met a,b", "met b,a");
    for (int a = 0; a < OP_COUNT; a++)
        for (int b = a; b < OP_COUNT; b++) {
            const struct together_pair *p = &c->pair[a][b];
            char name[64];
            if (!p->steps)
                continue;
            snprintf(name, sizeof name, "%s+%s", op_name(a), op_name(b));
            fprintf(f, "%-32s %8llu %8llu %8llu %8llu %10llu %10llu\n", name,
                    (unsigned long long)p->steps, (unsigned long long)p->tries,
                    (unsigned long long)p->passes, (unsigned long long)p->failed,
                    (unsigned long long)p->met_a_first, (unsigned long long)p->met_b_first);
        }
}

void together_write_json(const struct together_counts *c, FILE *f)
{
    int n = 0;
    fprintf(f, "\"together\":{\"steps\":%llu,\"tries\":%llu,\"passes\":%llu,\"failed\":%llu,"
            "\"diverged\":%llu,\"orders_run\":%llu,\"orders_seconds\":%.3f,\"pairs\":[",
            (unsigned long long)c->steps, (unsigned long long)c->tries,
            (unsigned long long)c->passes, (unsigned long long)c->failed,
            (unsigned long long)c->diverged, (unsigned long long)c->orders_run,
            (double)c->order_us / 1e6);
    for (int a = 0; a < OP_COUNT; a++)
        for (int b = a; b < OP_COUNT; b++) {
            const struct together_pair *p = &c->pair[a][b];
            if (!p->steps)
                continue;
            fprintf(f, "%s{\"a\":\"%s\",\"b\":\"%s\",\"steps\":%llu,\"tries\":%llu,"
                    "\"passes\":%llu,\"failed\":%llu,\"met_a_first\":%llu,\"met_b_first\":%llu}",
                    n++ ? "," : "", op_name(a), op_name(b), (unsigned long long)p->steps,
                    (unsigned long long)p->tries, (unsigned long long)p->passes,
                    (unsigned long long)p->failed, (unsigned long long)p->met_a_first,
                    (unsigned long long)p->met_b_first);
        }
    fputs("]}", f);
}

