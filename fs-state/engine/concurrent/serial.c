/* The serial-order check: the orders of a concurrent step's calls (whole, then with early resolutions) run on the reference, and an outcome matched against them. */
#include "engine/concurrent/serial.h"
#include "lib/system/helpers.h"

#include <stdio.h>
#include <string.h>

/* ---- sets of orders ---- */

void serial_set_clear(struct serial_set *m)
{
    memset(m, 0, sizeof *m);
}

void serial_set_add(struct serial_set *m, int o)
{
    m->w[o / 64] |= 1ull << (o % 64);
}

int serial_set_first(const struct serial_set *m)
{
    for (int w = 0; w < SERIAL_SET_WORDS; w++)
        if (m->w[w])
            return w * 64 + __builtin_ctzll(m->w[w]);
    return -1;
}

void serial_set_and(struct serial_set *m, const struct serial_set *other)
{
    for (int w = 0; w < SERIAL_SET_WORDS; w++)
        m->w[w] &= other->w[w];
}

/* ---- the orders ---- */

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

void serial_whole_orders(struct serial_table *t, int k)
{
    unsigned char c[TOGETHER_MAX];
    memset(t, 0, sizeof *t);
    t->k = k;
    t->last = -1;
    for (int j = 0; j < k; j++)
        c[j] = (unsigned char)j;
    do {
        struct serial_order *o = &t->order[t->n];
        memcpy(o->acts, c, sizeof c);
        together_whole_atoms(c, k, o->atom);
        o->calls = t->n++;
    } while (next_order(c, k));
    t->whole = t->n;
}

/* The atoms of acts where the call acting at position p resolves right after the first
 * slot[p] acts (slot[p] == p: right before its act). */
static void early_atoms(const unsigned char *acts, const int *slot, int k, unsigned char *atom)
{
    int n = 0;
    for (int p = 0; p < k; p++) {
        for (int q = p + 1; q < k; q++)
            if (slot[q] == p)
                atom[n++] = acts[q] | ATOM_RESOLVE;
        if (slot[p] == p)
            atom[n++] = acts[p] | ATOM_RESOLVE;
        atom[n++] = acts[p];
    }
}

/* The next placement of resolutions (slot[p] from 0 to p); 0 after the last. */
static int next_slots(int *slot, int k)
{
    for (int p = k - 1; p >= 0; p--) {
        if (slot[p] < p) {
            slot[p]++;
            return 1;
        }
        slot[p] = 0;
    }
    return 0;
}

/* Adds every order of the acts of whole order w with some resolution earlier than its act. */
static void add_early(struct serial_table *t, int w)
{
    int slot[TOGETHER_MAX] = { 0 }, whole;
    do {
        whole = 1;
        for (int p = 0; p < t->k; p++)
            whole &= slot[p] == p;
        if (whole || t->n >= SERIAL_MAX_ORDERS)
            continue;
        struct serial_order *o = &t->order[t->n++];
        memcpy(o->acts, t->order[w].acts, sizeof o->acts);
        o->calls = w;
        early_atoms(o->acts, slot, t->k, o->atom);
    } while (next_slots(slot, t->k));
}

void serial_all_orders(struct serial_table *t, int k)
{
    serial_whole_orders(t, k);
    for (int w = 0; w < t->whole; w++)
        add_early(t, w);
    t->early_run = 1;
}

/* ---- running them on the reference ---- */

struct order_job {
    const struct together_set *set;
    struct serial_order *o;
    struct fsgroup *g;
};

static int run_order(int fs, int rootfd, void *ctx)
{
    struct order_job *j = ctx;
    together_run_atoms(rootfd, j->set, j->o->atom, j->o->res);
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

int serial_run_whole(struct fsgroup *g, const struct together_set *set, uint64_t from,
                     uint64_t parent, struct serial_table *t, size_t *ref_history)
{
    serial_whole_orders(t, set->k);
    for (int o = 0; o < t->n; o++) {
        if (pass_order(g, set, t, o, o ? parent : from, STEP_NO_STATE, o > 0) < 0)
            return -1;
        if (o == 0)
            *ref_history = g->be[0]->history.len;
    }
    return 0;
}

int serial_run_early(struct fsgroup *g, const struct together_set *set, uint64_t parent,
                     struct serial_table *t)
{
    int first = t->n;
    if (t->early_run)
        return 0;
    t->early_run = 1;
    for (int w = 0; w < t->whole; w++)
        add_early(t, w);
    for (int o = first; o < t->n; o++)
        if (pass_order(g, set, t, o, parent, STEP_NO_STATE, 1) < 0)
            return -1;
    return 0;
}

/* ---- matching ---- */

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

int serial_calls_differ(const struct serial_table *t, int o, const struct fs_config *fs,
                        const struct op_result *res)
{
    return differing_calls(&t->order[o], t->k, fs, res);
}

static int same_state(const struct serial_order *o, const unsigned char *digest, int dlen)
{
    return o->dlen == dlen && memcmp(o->digest, digest, (size_t)dlen) == 0;
}

int serial_matches(const struct serial_table *t, const struct fs_config *fs,
                   const struct op_result *res, const unsigned char *digest, int dlen,
                   struct serial_set *m)
{
    int n = 0;
    serial_set_clear(m);
    for (int o = 0; o < t->n; o++)
        if (!differing_calls(&t->order[o], t->k, fs, res) && same_state(&t->order[o], digest, dlen)) {
            serial_set_add(m, o);
            n++;
        }
    return n;
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
