/* The serial-order check: every order of a concurrent step's calls run on the reference, and an outcome matched against them. */
#include "serial.h"
#include "lib/helpers.h"

#include <stdio.h>
#include <string.h>

/* Next permutation in lexicographic order; 0 after the last. */
static int next_order(unsigned char *c, int k)
{
    int i = k - 2;
    while (i >= 0 && c[i] >= c[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = k - 1;
    while (c[j] <= c[i])
        j--;
    unsigned char t = c[i];
    c[i] = c[j];
    c[j] = t;
    for (int a = i + 1, b = k - 1; a < b; a++, b--) {
        t = c[a];
        c[a] = c[b];
        c[b] = t;
    }
    return 1;
}

void serial_orders(struct serial_table *t, int k)
{
    unsigned char c[TOGETHER_MAX];
    memset(t, 0, sizeof *t);
    t->k = k;
    t->last = -1;
    for (int j = 0; j < k; j++)
        c[j] = (unsigned char)j;
    do
        memcpy(t->order[t->n++].call, c, sizeof c);
    while (t->n < SERIAL_MAX_ORDERS && next_order(c, k));
}

/* One order made on the reference, one call after another. */
struct order_job {
    const struct together_set *set;
    struct serial_order *o;
    struct fsgroup *g;
};

static int run_order(int fs, int rootfd, void *ctx)
{
    struct order_job *j = ctx;
    together_serial(rootfd, j->set, j->o->call, j->o->res);
    j->g->out[fs].res = j->o->res[0];
    for (int c = 0; c < j->set->k; c++)
        if (backend_errno_of_dead_daemon(j->o->res[c].err))
            j->g->out[fs].res = j->o->res[c];
    return 0;
}

/* Order o on the reference from from (STEP_NO_STATE: the state it holds), saved as to. */
static int pass_order(struct fsgroup *g, const struct together_set *set, struct serial_table *t,
                      int o, uint64_t from, uint64_t to, int again)
{
    struct order_job job = { set, &t->order[o], g };
    struct step_pass p = { from, to, 1u, again, run_order, &job, "a serial order of the calls" };
    double t0 = now_seconds();
    int rc = fsgroup_pass(g, &p);
    t->seconds += now_seconds() - t0;
    if (rc < 0)
        return -1;
    t->order[o].dlen = g->out[0].dlen;
    memcpy(t->order[o].digest, g->out[0].digest, sizeof t->order[o].digest);
    t->last = o;
    return 0;
}

int serial_run_all(struct fsgroup *g, const struct together_set *set, uint64_t from,
                   uint64_t parent, int again, struct serial_table *t)
{
    serial_orders(t, set->k);
    for (int o = 0; o < t->n; o++)
        if (pass_order(g, set, t, o, o ? parent : from, STEP_NO_STATE, again || o > 0) < 0)
            return -1;
    return 0;
}

/* Calls whose outcome differs from order o's. */
static int differing_calls(const struct serial_order *o, int k, const struct fs_config *fs,
                           const struct op_result *res)
{
    int n = 0;
    for (int c = 0; c < k; c++)
        n += res[c].ret != o->res[c].ret ||
             (res[c].err != o->res[c].err && !fs_errno_equivalent(fs, res[c].err, o->res[c].err));
    return n;
}

static int same_state(const struct serial_order *o, const unsigned char *digest, int dlen)
{
    return o->dlen == dlen && memcmp(o->digest, digest, (size_t)dlen) == 0;
}

uint32_t serial_matches(const struct serial_table *t, const struct fs_config *fs,
                        const struct op_result *res, const unsigned char *digest, int dlen)
{
    uint32_t m = 0;
    for (int o = 0; o < t->n; o++)
        if (!differing_calls(&t->order[o], t->k, fs, res) && same_state(&t->order[o], digest, dlen))
            m |= 1u << o;
    return m;
}

int serial_closest(const struct serial_table *t, const struct fs_config *fs,
                   const struct op_result *res, const unsigned char *digest, int dlen)
{
    int best = 0, best_d = 1 << 30;
    for (int o = 0; o < t->n; o++) {
        int d = differing_calls(&t->order[o], t->k, fs, res) * 2 +
                !same_state(&t->order[o], digest, dlen);
        if (d < best_d)
            best = o, best_d = d;
    }
    return best;
}

int serial_keep(struct fsgroup *g, const struct together_set *set, struct serial_table *t,
                int o, uint64_t parent, uint64_t to)
{
    if (t->last != o)
        return pass_order(g, set, t, o, parent, to, 1);
    g->out[0].res = t->order[o].res[0];
    return fsgroup_save_as(g, to, 1u);
}

void serial_order_text(const struct serial_table *t, int o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < t->k && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", c ? "," : "",
                                 t->order[o].call[c] + 1);
}

int serial_order_parse(const struct serial_table *t, const char *text)
{
    char buf[32];
    for (int o = 0; o < t->n; o++) {
        serial_order_text(t, o, buf, sizeof buf);
        if (strcmp(buf, text) == 0)
            return o;
    }
    return -1;
}

int serial_history(const struct together_set *set, const struct serial_table *t, int o,
                   char *buf, size_t len)
{
    char text[METIS_OP_LINE_MAX];
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < t->k; c++) {
        if (op_format(&set->op[t->order[o].call[c]], text, sizeof text) < 0)
            return -1;
        int n = snprintf(buf + used, len - used, "%s%s", c ? "\n" : "", text);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}
