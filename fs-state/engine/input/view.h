/* Tree views: immutable copies of the reference's entries at the states of the search path, for state-aware path draws. */
#ifndef METIS_VIEW_H
#define METIS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "tree/digest.h"

struct view_entry {
    const char *path;           /* interned: equal paths share one string for the whole run */
    mode_t mode;
    uint32_t nlink;
    uint64_t size;
};

/* Entries sorted by path (strcmp), the root "/" among them. */
struct tree_view {
    size_t n;
    struct view_entry e[];
};

/* A view of t (sorted as tree/digest.c leaves it); NULL when out of memory. */
struct tree_view *view_make(const struct tree_index *t);
void view_free(struct tree_view *v);
const struct view_entry *view_find(const struct tree_view *v, const char *path);

/* One view per state of the engine's search path, index = position on the path. */
struct view_stack {
    struct tree_view **v;
    size_t n, cap;
};
int view_stack_push(struct view_stack *s, struct tree_view *v);   /* takes v; -1 if no memory */
void view_stack_truncate(struct view_stack *s, size_t n);         /* frees the views above n */
const struct tree_view *view_stack_top(const struct view_stack *s);

#endif
