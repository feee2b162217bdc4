/* The cause groups of report.html: one row per group of classes that share a probable cause, and the grouped order the class table follows. */
#ifndef METIS_REPORT_GROUP_TABLE_H
#define METIS_REPORT_GROUP_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "front/json/json_reader.h"

/* Fills order[] with indexes into classes, group by group as summary.json's "groups" lists
 * them (each group's class ids), and gid[] (by index) with the group's number from 1; classes
 * no group names (a summary written before groups) follow, each a group of its own. Both
 * arrays have room for every class. Returns the number of groups. */
int group_order(json_object *classes, json_object *groups, size_t *order, int *gid);
/* The table of groups: number, key, cause, its classes (linked to their panels), hits, and
 * with a known file whether all its classes are known. */
void group_table(FILE *f, json_object *classes, json_object *groups);
/* After the groups, for each fs whose refusals name a lacks word (a class's "lacks"): the one
 * "lacks = ..." line that would declare them all, after the words declared (summary.json's
 * "lacks", by fs); nothing when no class is such a refusal. */
void group_lacks(FILE *f, json_object *classes, json_object *declared);

#endif
