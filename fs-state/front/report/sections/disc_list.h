/* The discrepancies section of report.html: classes from summary.json, else discrepancy-N.txt. */
#ifndef METIS_REPORT_DISC_LIST_H
#define METIS_REPORT_DISC_LIST_H

#include "front/report/runfiles/report_types.h"
#include "front/json/json_reader.h"
#include <limits.h>
#include <stdio.h>

#define DISC_DETAILED 20         /* discrepancies shown in full; the others are listed */
#define DISC_LISTED 1000         /* listed at most; the run directory has them all */

/* One discrepancy or class: file paths absolute or relative to the run directory, "" if none. */
struct disc_ref {
    char title[256], signature[1024];
    double hits, first_op;       /* < 0: unknown */
    char detail[PATH_MAX], trace[PATH_MAX], repro[PATH_MAX];
    char known[1100];            /* "" without a known file, "new", or "known: NOTE (LINK)" */
    char group[600];             /* its cause group ("KEY: CAUSE"), "" for a group of its own */
};

/* The href from report.html to path (resolved inside loc's directory), or "" if it is outside. */
void run_href(const struct run_loc *loc, const char *path, char *out, size_t len);
/* A discrepancy's section: title, counts, links, and with detail its parsed detail file. */
void disc_ref_show(FILE *f, const struct run_loc *loc, const struct disc_ref *r, int detail);
/* The run's discrepancies section; summary may be NULL. */
void disc_section(FILE *f, const struct run_loc *loc, json_object *summary);
/* Fills r from one element of a "classes" array. */
void disc_ref_from_class(json_object *cls, int index, struct disc_ref *r);
/* r->known from a class's "known", "note" and "link" (written with --known). */
void disc_ref_known(json_object *cls, struct disc_ref *r);
/* With --known: the known file, the new/known split and the known classes not seen. */
void disc_known_split(FILE *f, json_object *summary);

#endif
