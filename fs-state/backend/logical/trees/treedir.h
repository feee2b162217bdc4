/* Recorded trees written out as a directory and read back in: the saved states of file systems that have no image (a tmpfs, a FUSE fs's backing directories). */
#ifndef METIS_TREEDIR_H
#define METIS_TREEDIR_H

#include <stddef.h>
#include <stdint.h>
#include "backend/logical/trees/fstree.h"

/*
 * A directory is the one form such a state takes outside Metis: every entry with its type,
 * mode, owner, link group, size, data (holes kept, written zeros written), symlink target and
 * xattrs, as fstree.h records them; times are not kept. Each returns 0 or -1 with a one-line
 * reason in err.
 */

/* Makes the directory dirfd hold t (the difference from what it holds, by the calls of
 * logical_apply.h; callers give it an empty one) and checks by recording it again that it does. */
int td_fill(struct ft_store *st, int dirfd, const struct ft_tree *t, char *err, size_t errlen);
/* Writes t as the new directory path (one left there by an earlier export is replaced). */
int td_write(struct ft_store *st, const struct ft_tree *t, const char *path, char *err,
             size_t errlen);
/* The tree of the directory path (NULL with the reason in err). */
struct ft_tree *td_read(struct ft_store *st, const char *path, char *err, size_t errlen);

struct backend;
/* td_write and td_read for a backend's export_state and import_state: a failure's reason goes
 * to b->err (0 or -1; the tree or NULL). */
int td_export(struct backend *b, struct ft_store *st, const struct ft_tree *t, uint64_t id,
              const char *path);
struct ft_tree *td_import(struct backend *b, struct ft_store *st, const char *path);

#endif
