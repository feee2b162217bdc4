/* The tree model: what two file systems must agree on, the one vocabulary of the walk, the listing, the digest and the comparison. */
#ifndef METIS_TREE_H
#define METIS_TREE_H

/* Attributes a comparison or a digest leaves out ([fs] ignore in a config). */
enum {
    TREE_IGNORE_DIR_NLINK = 1 << 0,
    TREE_IGNORE_XATTRS    = 1 << 1,
    TREE_IGNORE_MODE      = 1 << 2,
    TREE_IGNORE_OWNER     = 1 << 3,
};

/* The one listing format: one line per entry, sorted by path, fields separated by one space:
 *   PATH TYPE MODE NLINK UID GID SIZE [m=MTIME] DATA XATTRS
 * An ignored attribute reads "-"; the m= field is there only with compare_mtime. */
enum tree_field {
    TREE_F_PATH, TREE_F_TYPE, TREE_F_MODE, TREE_F_NLINK, TREE_F_UID, TREE_F_GID, TREE_F_SIZE,
    TREE_F_DATA, TREE_F_XATTRS, TREE_F_COUNT
};

#endif
