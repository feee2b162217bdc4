/* Cause groups of a run's classes as the front end lists them: heads, counts and the grouped order. */
#include "class_groups.h"
#include <string.h>

int class_group_head(const struct run_class *v, int k)
{
    for (int j = 0; j < k; j++)
        if (!strcmp(v[j].group, v[k].group))
            return j;
    return k;
}

int class_groups_count(const struct run_class *v, int n)
{
    int g = 0;
    for (int k = 0; k < n; k++)
        g += class_group_head(v, k) == k;
    return g;
}

void class_groups_order(const struct run_class *v, int n, int *order, int *gid)
{
    int at = 0, g = 0;
    for (int h = 0; h < n; h++) {
        if (class_group_head(v, h) != h)
            continue;
        g++;
        for (int k = h; k < n; k++)
            if (class_group_head(v, k) == h) {
                order[at++] = k;
                if (gid)
                    gid[k] = g;
            }
    }
}

int class_has_cause(const struct run_class *c)
{
    return c->group[0] && strcmp(c->group, c->signature) != 0;
}
