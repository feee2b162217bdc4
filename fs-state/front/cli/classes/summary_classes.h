/* A run's discrepancy classes as its summary.json lists them, for the front end's triage and the swarm's merge. */
#ifndef METIS_CLASSFILE_H
#define METIS_CLASSFILE_H

#include <stddef.h>

struct run_class {
    int id;
    char signature[160], fs[64], detail[64], hint[1100];
    double hits, first_op;
    double first_s;             /* seconds into the run of its first hit; -1: not recorded */
    char trace[64], repro[80], triage[300];   /* what the triage wrote; "" before it ran */
    double trace_ops;
    char start[160];            /* where the shrunk trace starts: "initial state" or a saved state */
    double shrink_s;            /* how long its shrink took */
    double exit_target, exit_ref;  /* the reproducer's exit on each; -1 when not run */
    double runs, bites;         /* the reproducer's runs on the target, and how many exited 1 */
    double rerun_s;             /* how long its runs again took (the triage's, not in the summary) */
    char why[700];              /* why it may not bite (when it did not every time), else "" */
    char group[160], cause[200];   /* its cause group's key, and the cause's title ("": none) */
    char below[300];            /* the known delta it was found below, else "" */
    char lacks[64];             /* a refusal: the lacks word that would declare it, else "" */
    int known;                  /* in the known file (--known); 0 without one */
    char note[512], link[512];  /* the known file's note and link */
    int group_record;           /* known_not_seen: a "group:" record (signature holds its key) */
};

/* The classes of a summary.json's text ("classes" array): their count (0 when there is none)
 * with *out a new array, or -1 when out of memory. */
int classfile_parse(const char *json, struct run_class **out);
/* classfile_parse, but -2 (*out NULL) when the text (NULL, or not JSON) lists no "classes"
 * array at all: written by a metis without classes. */
int classfile_listed(const char *json, struct run_class **out);
/* The "known_not_seen" array (signature, note, link of known classes a run did not find): their
 * count, 0 when there is none, -1 when out of memory. */
int classfile_not_seen(const char *json, struct run_class **out);
/* The lacks words summary.json's "lacks" says fs declared, ", "-separated, into out ("" for
 * none, or a summary without them). */
void classfile_declared_lacks(const char *json, const char *fs, char *out, size_t len);
/* Adds text after the first field of class id's object ({"class":ID,...); returns a new
 * string, or NULL when the class is not there or out of memory. */
char *classfile_insert(const char *json, int id, const char *text);
/* json with text put in at byte offset at (a summary grows by fields spliced into its text, so
 * that the rest of it stays byte for byte as written); a new string, or NULL. */
char *classfile_splice(const char *json, size_t at, const char *text);

#endif
