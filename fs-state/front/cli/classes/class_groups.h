/* A run's classes in their cause groups (each class's "group" in summary.json): the order and the counts classes.txt, JUnit and the swarm list them by. */
#ifndef METIS_CLASS_GROUPS_H
#define METIS_CLASS_GROUPS_H

#include "summary_classes.h"

/* The index of the first class of v[k]'s group (k itself when it opens its group). */
int class_group_head(const struct run_class *v, int k);
/* How many groups the n classes form. */
int class_groups_count(const struct run_class *v, int n);
/* Fills order[0..n-1] with the class indexes group by group, each group in the order of its
 * first class and its classes in the order found; gid[k] (may be NULL) gets class k's group
 * number, 1 for the first group. */
void class_groups_order(const struct run_class *v, int n, int *order, int *gid);
/* 1 when the class shares a probable cause (its group is not just itself). */
int class_has_cause(const struct run_class *c);

#endif
