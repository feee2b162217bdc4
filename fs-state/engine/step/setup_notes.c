/* What set-up adapted to on a target, as notes for classes: root attributes kept or refused (equalize_root), and a root link count below 2, taken as dir_nlink declared. */
#include "engine/step/setup_notes.h"
#include "backend/logical/states/equalize.h"
#include "engine/config/config.h"
#include "tree/tree.h"
#include <stdio.h>
#include <string.h>

static struct setup_note *add_note(struct setup_notes *out, int fs, enum setup_what what,
                                   const char *attr, const char *word)
{
    if (out->n >= SETUP_MAX_NOTES)
        return NULL;
    struct setup_note *n = &out->v[out->n++];
    memset(n, 0, sizeof *n);
    n->fs = fs;
    n->what = what;
    n->attr = attr;
    n->word = word;
    return n;
}

/* The kept or refused attributes of one target: a note each. */
static void root_notes(const struct root_adapt *a, int fs, struct setup_notes *out)
{
    for (int k = 0; k < 2; k++) {
        unsigned bit = k ? ROOT_ATTR_OWNER : ROOT_ATTR_MODE;
        if (!((a->kept | a->refused) & bit))
            continue;
        struct setup_note *n = add_note(out, fs, a->refused & bit ? SETUP_REFUSED : SETUP_KEPT,
                                        k ? "owner" : "mode", k ? "owners" : "modes");
        if (!n)
            return;
        n->err = a->refused & bit ? a->err : 0;
        if (k) {
            snprintf(n->ref, sizeof n->ref, "%u:%u", (unsigned)a->ref_uid, (unsigned)a->ref_gid);
            snprintf(n->other, sizeof n->other, "%u:%u", (unsigned)a->now_uid,
                     (unsigned)a->now_gid);
        } else {
            snprintf(n->ref, sizeof n->ref, "%04o", (unsigned)a->ref_mode);
            snprintf(n->other, sizeof n->other, "%04o", (unsigned)a->now_mode);
        }
    }
}

/* Below 2, a directory's own "." and its name are not counted; 2^32-1 is a FUSE daemon's
 * "unknown" (-1 in its 32-bit field). */
static int counts_no_links(unsigned long long nlink)
{
    return nlink < 2 || nlink >= 0xffffffffULL;
}

/* A target that does not count directory links: dir_nlink for every fs, as if declared. */
static void nlink_note(const struct metis_config *cfg, const struct free_counts *applied,
                       struct tree_opts *abs, int nfs, int i, struct setup_notes *out)
{
    unsigned long long ref = applied[0].adapt.nlink, own = applied[i].adapt.nlink;
    if (!counts_no_links(own) || counts_no_links(ref) ||
        (abs[0].ignore & (TREE_IGNORE_DIR_NLINK | TREE_IGNORE_ROOT_NLINK)))
        return;
    struct setup_note *n = add_note(out, i, SETUP_NLINK, "nlink", "dir_nlink");
    if (!n)
        return;
    snprintf(n->ref, sizeof n->ref, "%llu", ref);
    snprintf(n->other, sizeof n->other, "%lld", own >= 0xffffffffULL ? -1LL : (long long)own);
    for (int j = 0; j < nfs; j++)
        abs[j].ignore |= TREE_IGNORE_DIR_NLINK;
    equalize_tell("metis: %s: its root's link count is %s (the reference's %s): it does not "
                  "count directory links, which lacks = dir_nlink declares; the run goes on as "
                  "if it were declared (directories' link counts are not compared), a class of "
                  "its own\n", cfg->fs[i].name, n->other, n->ref);
}

void setup_notes_make(const struct metis_config *cfg, const struct free_counts *applied,
                      struct tree_opts *abs, int nfs, struct setup_notes *out)
{
    out->n = 0;
    for (int i = 1; i < nfs; i++) {
        root_notes(&applied[i].adapt, i, out);
        nlink_note(cfg, applied, abs, nfs, i, out);
    }
}

const char *setup_note_says(const struct setup_note *n)
{
    switch (n->what) {
    case SETUP_KEPT:
        return strcmp(n->attr, "mode") == 0
                   ? "the fs answered a chmod of its root with success and kept its own mode"
                   : "the fs answered a chown of its root with success and kept its own owner";
    case SETUP_REFUSED:
        return strcmp(n->attr, "mode") == 0 ? "the fs refused a chmod of its root"
                                            : "the fs refused a chown of its root";
    case SETUP_NLINK:
        return "the fs does not count directory links";
    }
    return "";
}
