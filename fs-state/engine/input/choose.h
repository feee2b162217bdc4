/* State-aware path draws: a share of the paths an operation uses taken from the reference's current tree. */
#ifndef METIS_CHOOSE_H
#define METIS_CHOOSE_H

#include "engine/input/input.h"

/* What kind of path an operation can use. */
enum path_want {
    PW_FILE,        /* an existing regular file: write, truncate, fallocate */
    PW_ENTRY,       /* any existing entry but the root: chmod, chown, chgrp, xattrs */
    PW_NONDIR,      /* an existing non-directory, names of shared inodes favoured: unlink */
    PW_DIR,         /* an existing directory but the root, empty ones favoured: rmdir */
    PW_LINK_SRC,    /* an existing regular file, shared inodes favoured: link's source */
    PW_RENAME_SRC,  /* any existing entry, shared inodes favoured: rename's source */
    PW_NEW_FILE,    /* a missing pool file name whose directory exists: create, link's name */
    PW_NEW_DIR,     /* a missing pool directory name whose parent exists: mkdir */
    PW_NEW_ANY,     /* a missing pool name of either kind whose parent exists: symlink */
    PW_RENAME_DST,  /* an existing entry or a missing pool name, even odds */
};

/* With probability [pool] existing, a path of kind w from in->view; NULL when the draw goes to
 * the pool (the coin, no view, or nothing of that kind). Draws nothing from the generator when
 * existing is 0 or there is no view, so such runs draw exactly as before. */
const char *choose_path(struct input *in, enum path_want w);

/* The path's entry in the view when it is a regular file (its size), else NULL. */
const struct view_entry *choose_regular(const struct input *in, const char *path);

/* dst, or another pool name when renaming src to dst (exchanging them, if asked) would carry
 * an entry of the reference's tree below the pool's depth. Nothing draws such paths again, so
 * they would pile up along the search path: trees that grow with every rename of a full
 * directory, and a search that never meets a state again. Draws only when it replaces dst. */
const char *choose_rename_dst(struct input *in, const char *src, const char *dst, int exchange);

#endif
