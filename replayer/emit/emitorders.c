/* emit-c's concurrent step: what the reference gives in every serial order of its calls (outcomes and end state), each once, for the program to hold its tries against. */
#include "emitstep/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/concurrent/serial.h"
#include "lib/text/buf.h"
#include "replay/session.h"

static int same_tree(const struct rt_tree *a, const struct rt_tree *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return 0;
    return 1;
}

/* The index of tree among e's trees, adding it (taken over) when new; -1 without memory. */
static int tree_index(struct emit *e, struct rt_tree *tree)
{
    size_t cap = (size_t)e->ntrees;
    for (int i = 0; i < e->ntrees; i++)
        if (same_tree(&e->trees[i], tree)) {
            rt_free(tree);
            return i;
        }
    if (array_reserve(&e->trees, &cap, (size_t)e->ntrees + 1, sizeof *e->trees))
        return -1;
    e->trees[e->ntrees] = *tree;
    return e->ntrees++;
}

/* Adds an outcome the orders did not give yet; -1 without memory. */
static int add_order(struct emit *e, const char *name, const struct op_result *res, int tree)
{
    size_t cap = (size_t)e->norders;
    for (int i = 0; i < e->norders; i++)
        if (e->orders[i].tree == tree &&
            !memcmp(e->orders[i].res, res, (size_t)e->set.k * sizeof *res))
            return 0;
    if (array_reserve(&e->orders, &cap, (size_t)e->norders + 1, sizeof *e->orders))
        return -1;
    struct emit_order *o = &e->orders[e->norders++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    memcpy(o->res, res, (size_t)e->set.k * sizeof *res);
    o->tree = tree;
    return 0;
}

int emit_orders(struct session *s, struct emit *e, uint64_t sid, char *err, size_t errlen)
{
    static struct serial_table t;
    struct op_result res[TOGETHER_MAX];
    char name[64];
    serial_all_orders(&t, e->set.k);
    for (int o = 0; o < t.n; o++) {
        struct rt_tree tree = { 0 };
        memset(res, 0, sizeof res);
        if (session_order_on_reference(s, &e->set, t.order[o].atom, sid, res) < 0)
            return snprintf(err, errlen, "infrastructure failure: %s", s->err), -1;
        if (emit_list_reference(s, &tree, err, errlen) < 0)
            return -1;
        together_atoms_text(t.order[o].atom, e->set.k, name, sizeof name);
        int ti = tree_index(e, &tree);
        if (ti < 0 || add_order(e, name, res, ti) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
    }
    return 0;
}

void emit_orders_free(struct emit *e)
{
    for (int i = 0; i < e->ntrees; i++)
        rt_free(&e->trees[i]);
    free(e->trees);
    free(e->orders);
    e->trees = NULL;
    e->orders = NULL;
    e->ntrees = e->norders = 0;
}
