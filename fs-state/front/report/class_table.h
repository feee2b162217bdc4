/* The table report.html's discrepancies section opens with: one row per class, what the triage made of it. */
#ifndef METIS_REPORT_CLASS_TABLE_H
#define METIS_REPORT_CLASS_TABLE_H

#include "disc_list.h"

/* One row per class of summary.json's "classes" array (signature, hint, hits, first operation
 * with its flags by name, shrunk length, where the trace starts, the reproducer's verdict). */
void class_table(FILE *f, const struct run_loc *loc, json_object *classes);

#endif
