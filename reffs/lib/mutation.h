/* Planted mutations of the RefFS mutant build: each one breaks one named rule on purpose. */
#ifndef REFFS_MUTATION_H
#define REFFS_MUTATION_H

/* X(identifier, rule the mutation breaks). Names are matched without the MUT_ prefix too. */
#define REFFS_MUTATIONS(X) \
    X(MUT_TRUNC_STALE_TAIL, "bytes cut off by a shrinking truncate read back as zeros after a later extend") \
    X(MUT_RMDIR_NONEMPTY, "rmdir of a non-empty directory fails with ENOTEMPTY") \
    X(MUT_RENAME_NOREPLACE_IGNORED, "rename with RENAME_NOREPLACE onto an existing name fails with EEXIST") \
    X(MUT_XATTR_CREATE_IGNORED, "setxattr with XATTR_CREATE of an existing attribute fails with EEXIST") \
    X(MUT_CHMOD_DROP_STICKY, "chmod keeps the sticky bit it is given") \
    X(MUT_LINK_NO_CTIME, "link updates the st_ctime of the inode it links") \
    X(MUT_WRITE_NO_MTIME, "a write updates st_mtime and st_ctime") \
    X(MUT_UNLINK_LEAKS_SPACE, "unlinking the last link of a closed file returns its blocks to statfs")

enum reffs_mutation {
    MUT_NONE = 0,
#define REFFS_MUT_ENUM(id, rule) id,
    REFFS_MUTATIONS(REFFS_MUT_ENUM)
#undef REFFS_MUT_ENUM
    MUT_COUNT
};

/* The mutation of the file system whose lock this thread holds (set by fs_lock). */
extern __thread int reffs_active_mutation;

#ifdef REFFS_MUTANT
#define mutated(m) (reffs_active_mutation == (m))
#else
#define mutated(m) 0
#endif

/* MUT_NONE for NULL or "", -1 for an unknown name. */
int reffs_mutation_by_name(const char *name);

#endif
