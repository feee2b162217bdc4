/* Extended-attribute sets as shared, copy-on-write objects: release, clone and their space charge. */
#include "internal.h"

void rxattrs_put(struct rxattrs *x)
{
    if (!x || --x->refs)
        return;
    for (size_t i = 0; i < x->n; i++) {
        free(x->v[i].name);
        free(x->v[i].value);
    }
    free(x->v);
    free(x);
}

uint64_t xattrs_charge(const struct rxattrs *x)
{
    uint64_t c = 0;
    for (size_t i = 0; x && i < x->n; i++)
        c += strlen(x->v[i].name) + x->v[i].size;
    return c;
}

struct rxattrs *rxattrs_clone(const struct rxattrs *x)
{
    struct rxattrs *c = xcalloc(1, sizeof *c);
    c->refs = 1;
    c->n = c->cap = x->n;
    c->v = xcalloc(x->n, sizeof *c->v);
    for (size_t i = 0; i < x->n; i++) {
        c->v[i].name = xstrdup(x->v[i].name);
        c->v[i].size = x->v[i].size;
        c->v[i].value = xmalloc(x->v[i].size);
        memcpy(c->v[i].value, x->v[i].value, x->v[i].size);
    }
    return c;
}
