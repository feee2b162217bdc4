/* The class of what set-up adapted to on a target (setup_notes.h): signed by the fs, the root's attribute and what the fs did, its hint the lacks word that declares it. */
#include "engine/classify/setup_class.h"
#include "lib/text/errnos.h"
#include <stdio.h>
#include <string.h>

/* "kept", "refused ENOSYS", "not counted". */
static void what_text(const struct setup_note *n, char *out, size_t len)
{
    if (n->what == SETUP_REFUSED)
        snprintf(out, len, "refused %s", errno_name(n->err));
    else
        snprintf(out, len, "%s", n->what == SETUP_KEPT ? "kept" : "not counted");
}

void classes_setup(const struct metis_config *cfg, const struct setup_note *n, struct dclass *c)
{
    char what[64];
    memset(c, 0, sizeof *c);
    c->op = -1;
    c->variant = -1;
    c->fs = n->fs;
    c->kinds = DIFF_STATE | DIFF_SETUP;
    c->attr = (enum tree_diff)tree_diff_by_name(n->attr);
    c->d.attr = c->attr;
    c->d.nentries = 1;
    snprintf(c->d.ref, sizeof c->d.ref, "%s", n->ref);
    snprintf(c->d.other, sizeof c->d.other, "%s", n->other);
    snprintf(c->d.entry, sizeof c->d.entry, "/");
    what_text(n, what, sizeof what);
    snprintf(c->signature, sizeof c->signature, "setup %.64s root %s %s", cfg->fs[n->fs].name,
             n->attr, what);
    size_t k = (size_t)snprintf(c->hint, sizeof c->hint, "%s%s%s; ", setup_note_says(n),
                                n->what == SETUP_REFUSED ? ": " : "",
                                n->what == SETUP_REFUSED ? errno_name(n->err) : "");
    if (n->what == SETUP_NLINK)
        snprintf(c->hint + k, sizeof c->hint - k, "set-up took lacks = dir_nlink as declared "
                 "for the run, so directories' link counts are not compared (a FUSE daemon that "
                 "reports 0 or 1 for them does not count them); declare it in [fs %s] if that is "
                 "meant", cfg->fs[n->fs].name);
    else
        snprintf(c->hint + k, sizeof c->hint - k, "set-up gave the reference's root the fs's %s and the "
                 "run went on from there; a file system that does not keep %ss declares lacks = "
                 "%s in [fs %s] (then set-up never sets it, and %ss are not compared)", n->attr,
                 n->attr, n->word, cfg->fs[n->fs].name, n->attr);
}
