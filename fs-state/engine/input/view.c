/* Tree views: the reference's entries per search-path state, with paths interned so that a deep search path stays small. */
#include "engine/input/view.h"
#include "lib/text/buf.h"
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* Every path a view has held, once: views of neighbouring states share nearly all of them,
 * and a view entry is then 24 bytes whatever the name length (names of 255 bytes would
 * otherwise cost a few KiB per state on a path thousands of states deep). */
struct interned {
    UT_hash_handle hh;
    char path[];
};
static struct interned *interned;

static const char *intern(const char *path)
{
    struct interned *it;
    size_t n = strlen(path);
    HASH_FIND(hh, interned, path, n, it);
    if (it)
        return it->path;
    if (!(it = malloc(sizeof *it + n + 1)))
        return NULL;
    memcpy(it->path, path, n + 1);
    HASH_ADD_KEYPTR(hh, interned, it->path, n, it);
    return it->path;
}

struct tree_view *view_make(const struct tree_index *t)
{
    struct tree_view *v = malloc(sizeof *v + t->n * sizeof v->e[0]);
    if (!v)
        return NULL;
    v->n = t->n;
    for (size_t i = 0; i < t->n; i++) {
        const struct tree_index_entry *x = &t->e[i];
        const char *p = intern(t->names + x->path);
        if (!p) {
            free(v);
            return NULL;
        }
        uint32_t nlink = x->nlink > UINT32_MAX ? UINT32_MAX : (uint32_t)x->nlink;
        v->e[i] = (struct view_entry){ p, x->mode, nlink, x->size };
    }
    return v;
}

void view_free(struct tree_view *v)
{
    free(v);
}

const struct view_entry *view_find(const struct tree_view *v, const char *path)
{
    size_t lo = 0, hi = v ? v->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v->e[mid].path, path);
        if (c == 0)
            return &v->e[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int view_stack_push(struct view_stack *s, struct tree_view *v)
{
    if (array_reserve(&s->v, &s->cap, s->n + 1, sizeof *s->v)) {
        view_free(v);
        return -1;
    }
    s->v[s->n++] = v;
    return 0;
}

void view_stack_truncate(struct view_stack *s, size_t n)
{
    while (s->n > n)
        view_free(s->v[--s->n]);
}

const struct tree_view *view_stack_top(const struct view_stack *s)
{
    return s->n ? s->v[s->n - 1] : NULL;
}
