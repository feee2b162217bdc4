/* What set-up adapted to on a target, as notes the run reports as classes of their own: a root attribute it keeps or refuses, a root link count that says it does not count directory links. */
#ifndef METIS_SETUP_NOTES_H
#define METIS_SETUP_NOTES_H

#include "engine/config/config_types.h"

struct free_counts;
struct tree_opts;
struct metis_config;

enum setup_what {
    SETUP_KEPT,                 /* answered a set of the root's attribute and kept its own */
    SETUP_REFUSED,              /* refused a set of it (err) */
    SETUP_NLINK,                /* its root's link count is below 2: directories not counted */
};

/* One adaptation: the run went on from it (the reference took the target's root attribute, or
 * dir_nlink was taken as declared for the run). */
struct setup_note {
    int fs;                     /* config index of the target */
    enum setup_what what;
    const char *attr;           /* "mode", "owner", "nlink" (tree_diff_name's words) */
    const char *word;           /* the [fs] lacks word that declares it */
    char ref[32], other[32];    /* the reference's value and the target's, as listings show them */
    int err;                    /* SETUP_REFUSED: the errno */
};

#define SETUP_MAX_NOTES (3 * METIS_MAX_FS)

struct setup_notes {
    struct setup_note v[SETUP_MAX_NOTES];
    int n;
};

/* After equalize_root: the notes of what it adapted to (applied[i].adapt) for each target, and
 * a target whose root link count is below 2 (or the FUSE "unknown", 2^32-1) where the reference
 * counts links: dir_nlink goes into every fs's abs ignore, as if declared, and stderr says so
 * (equalize_tell). */
void setup_notes_make(const struct metis_config *cfg, const struct free_counts *applied,
                      struct tree_opts *abs, int nfs, struct setup_notes *out);
/* "the root's mode: the fs answered a chmod with success and kept its own" and the like. */
const char *setup_note_says(const struct setup_note *n);

#endif
