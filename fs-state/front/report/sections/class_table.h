/* The table report.html's discrepancies section opens with: one row per class, what the triage made of it. */
#ifndef METIS_REPORT_CLASS_TABLE_H
#define METIS_REPORT_CLASS_TABLE_H

#include "front/report/runfiles/report_types.h"
#include "front/json/json_reader.h"
#include <stddef.h>
#include <stdio.h>

/* One row per class of summary.json's "classes" array (signature, hint, hits, first operation
 * with its flags by name, shrunk length, where the trace starts, its cause group, the
 * reproducer's verdict and why it may not bite), in the order of order[] (group_table.h);
 * gid[] by class index: its group's number. */
void class_table(FILE *f, const struct run_loc *loc, json_object *classes, const size_t *order,
                 const int *gid);

#endif
