/* Planted mutations of the RefFS mutant build: each one breaks one named rule on purpose. */
#ifndef REFFS_MUTATION_H
#define REFFS_MUTATION_H

/* X(identifier, rule the mutation breaks). Names are matched without the MUT_ prefix too. */
#define REFFS_MUTATIONS(X) \
    X(MUT_TRUNC_STALE_TAIL, "bytes cut off by a shrinking truncate read back as zeros after a later extend") \
    X(MUT_RMDIR_NONEMPTY, "rmdir of a non-empty directory fails with ENOTEMPTY") \
    X(MUT_XATTR_CREATE_IGNORED, "setxattr with XATTR_CREATE of an existing attribute fails with EEXIST") \
    X(MUT_CHMOD_DROP_STICKY, "chmod keeps the sticky bit it is given") \
    X(MUT_UNLINK_LEAKS_SPACE, "unlinking the last link of a closed file returns its blocks to statfs") \
    X(MUT_WRITE_BOUNDARY_BYTE, "a write crossing a 4096-byte block boundary stores every byte (here the first byte of each further block is lost)") \
    X(MUT_HOLE_GARBAGE, "holes read as zeros: a block a write allocates is zero outside the bytes written") \
    X(MUT_EXTEND_TRUNC_GARBAGE, "an extending truncate exposes zeros between the old and the new size") \
    X(MUT_FALLOC_ZEROES_DATA, "fallocate only fills holes: data already in the range stays") \
    X(MUT_WRITE_PAST_EOF_SIZE, "a write starting past EOF sets st_size to its end (here one byte short)") \
    X(MUT_WRITE_ENOSPC_NOT_SHORT, "a write that runs out of space part-way returns the short count, not ENOSPC") \
    X(MUT_FALLOC_ENOSPC_PARTIAL, "fallocate that fails with ENOSPC changes nothing (here mode 0 keeps the blocks that fitted and the size over them)") \
    X(MUT_REWRITE_NEEDS_SPACE, "rewriting already allocated blocks never needs free space") \
    X(MUT_XATTR_ENOSPC_IGNORED, "setxattr fails with ENOSPC when name + value bytes exceed the capacity") \
    X(MUT_SYMLINK_ENOSPC_IGNORED, "symlink fails with ENOSPC when its target bytes exceed the capacity") \
    X(MUT_INODE_LIMIT_IGNORED, "creating an inode beyond the inode limit fails with ENOSPC") \
    X(MUT_RENAME_NO_REPLACE, "rename onto an existing name replaces it (here it fails with EEXIST)") \
    X(MUT_RENAME_TARGET_NLINK, "a file replaced by rename loses the link of the name it had") \
    X(MUT_RENAME_OVER_NONEMPTY, "rename onto a non-empty directory fails with ENOTEMPTY") \
    X(MUT_RENAME_DIR_NLINK, "a directory moved to another parent moves its '..' link: old parent's st_nlink - 1, new + 1") \
    X(MUT_LINK_NLINK_TWICE, "link raises st_nlink by exactly one (here by two)") \
    X(MUT_UNLINK_NLINK, "unlink of one of several links lowers st_nlink by one (here it stays)") \
    X(MUT_MKDIR_PARENT_NLINK, "mkdir raises the parent's st_nlink by one: directory nlink = 2 + subdirectories (here not below the root)") \
    X(MUT_RMDIR_PARENT_NLINK, "rmdir lowers the parent's st_nlink by one (directory nlink = 2 + subdirectories)") \
    X(MUT_READDIR_RESUME_SKIP, "a listing continued at a cookie returns every remaining entry (here the first is lost)") \
    X(MUT_NAME_MAX_254, "names of up to 255 bytes are valid (here 255 is ENAMETOOLONG)") \
    X(MUT_SYMLINK_TARGET_MAX, "symlink targets of up to 4095 bytes are valid (here above 255 is ENAMETOOLONG)") \
    X(MUT_SETGID_DIR_GID, "a setgid directory hands its gid to new entries") \
    X(MUT_SETGID_SUBDIR_MODE, "a setgid directory hands S_ISGID to new subdirectories") \
    X(MUT_CHMOD_DROP_SETGID, "chmod keeps the setgid bit it is given") \
    X(MUT_MKNOD_DROP_SUID, "a new file keeps all 07777 bits of its mode, S_ISUID included") \
    X(MUT_MKNOD_SPECIAL_MODE, "mknod of a FIFO or socket keeps the permission bits it is given (here group and other write are dropped)") \
    X(MUT_LINK_SPECIAL_EPERM, "a FIFO or socket can be hard-linked like any non-directory (here link fails with EPERM)") \
    X(MUT_UNLINK_OPEN_FREES, "an unlinked file lives until its last close (here it dies at once, even while open)") \
    X(MUT_UTIMES_IGNORED, "utimes sets the mtime it is given (here the file keeps its own)") \
    X(MUT_CHGRP_CLOBBERS_UID, "chown(f, -1, gid) keeps the owner (here it becomes 0)") \
    X(MUT_FALLOC_KEEP_SIZE_GROWS, "fallocate with FALLOC_FL_KEEP_SIZE leaves st_size unchanged") \
    X(MUT_FALLOC_NO_EXTEND, "fallocate mode 0 past EOF extends st_size to offset + len") \
    X(MUT_XATTR_REPLACE_IGNORED, "setxattr with XATTR_REPLACE of a missing attribute fails with ENODATA (here it creates it)") \
    X(MUT_REMOVEXATTR_NOOP, "removexattr removes the attribute (here it reports success and keeps it)") \
    X(MUT_XATTR_VALUE_TRUNC, "xattr values of up to 65536 bytes are stored whole (here cut to 1024)") \
    X(MUT_XATTR_EMPTY_VALUE, "an xattr with an empty value exists after setxattr") \
    X(MUT_RMDIR_NONEMPTY_EEXIST, "rmdir of a non-empty directory fails with ENOTEMPTY (here EEXIST, as POSIX allows)") \
    X(MUT_RENAME_NONEMPTY_EEXIST, "rename onto a non-empty directory fails with ENOTEMPTY (here EEXIST, as POSIX allows)") \
    X(MUT_XATTR_REPLACE_ENOENT, "setxattr with XATTR_REPLACE of a missing attribute fails with ENODATA (here ENOENT)") \
    X(MUT_REMOVEXATTR_ENOENT, "removexattr of a missing attribute fails with ENODATA (here ENOENT)") \
    X(MUT_LOOKUP_EACCES, "lookup of a missing name fails with ENOENT (here EACCES in a non-empty directory)") \
    X(MUT_PUNCH_PARTIAL_KEEPS_DATA, "fallocate PUNCH_HOLE zeroes the bytes of a partly covered block (here the block at its start keeps them)") \
    X(MUT_ZERO_RANGE_KEEPS_DATA, "fallocate ZERO_RANGE zeroes the data in its range (here it only allocates, as mode 0 does)") \
    X(MUT_COLLAPSE_SHIFT_SHORT, "fallocate COLLAPSE_RANGE moves the data after the range back by its length (here by one block less)") \
    X(MUT_INSERT_SKIPS_FIRST_BLOCK, "fallocate INSERT_RANGE moves the block at the offset on too (here the hole opens one block later)") \
    X(MUT_COPY_RANGE_HOLE_SKIPPED, "copy_file_range copies a hole of the source as zeros (here the destination keeps its bytes there)") \
    X(MUT_WRITE_END_BOUNDARY, "a write stores its last byte (here not when the write ends on a 4096-byte boundary)") \
    X(MUT_UNLINK_NLINK_MANY, "unlink lowers st_nlink by one (here by two when the inode has three or more links)") \
    X(MUT_APPEND_AT_ZERO, "an O_APPEND write goes to the end of the file (here to offset 0 once the file is larger than 8 KiB)") \
    X(MUT_CHOWN_GID_UID0, "chown(f, -1, gid) that changes the group keeps the owner (here the owner becomes 0)") \
    X(MUT_NEW_MODE_OX, "a new file, directory or node gets the mode it is given (here other-execute is flipped)") \
    X(MUT_ROOT_KEEPS_0700, "the root directory starts 0755 and takes the mode a chmod gives it (here it starts 0700 and keeps it, answering the chmod with success)") \
    X(MUT_ROOT_NLINK_0, "the root directory reports its link count, 2 and one per subdirectory (here 0, the FUSE convention of a file system that does not count directory links)") \
    X(MUT_ROOT_CHOWN_ENOSYS, "the root directory starts owned by 0:0 and a chown of any file takes (here the root starts owned by 1:1 and every chown fails with ENOSYS)") \
    X(MUT_CHGRP_STORES_MINUS_ONE, "chown(f, -1, gid) keeps the owner (here the owner becomes (uid_t)-1, which the kernel cannot map, as a high-level libfuse daemon's chown(path, -1, gid) stores it when it takes the -1 for an id)") \
    X(MUT_RACE_INODE_LIMIT, "two creations at once never pass the inode limit together (here the lock is let go for 2 ms between the limit check and the count, so both may)")

enum reffs_mutation {
    MUT_NONE = 0,
#define REFFS_MUT_ENUM(id, rule) id,
    REFFS_MUTATIONS(REFFS_MUT_ENUM)
#undef REFFS_MUT_ENUM
    MUT_COUNT
};

/* A set of mutations is a bit mask (bit m for mutation m), so two can be planted at once. */
_Static_assert(MUT_COUNT <= 64, "a mutation set is a 64-bit mask");

/* The mutations of the file system whose lock this thread holds (set by fs_lock). */
extern __thread unsigned long long reffs_active_mutation;

#ifdef REFFS_MUTANT
#define mutated(m) ((reffs_active_mutation >> (m)) & 1ULL)
#else
#define mutated(m) 0
#endif

/* MUT_NONE for NULL or "", -1 for an unknown name. */
int reffs_mutation_by_name(const char *name);
/* The mask of "NAME[+NAME...]" (empty or NULL: 0); -1 if a name is unknown or empty. */
int reffs_mutation_mask(const char *spec, unsigned long long *mask);

/* Helpers of mutation sites that live in one file and are called from another; hidden like
 * internal.h's, since they are library-private. */
struct reffs;
struct rinode;
#pragma GCC visibility push(hidden)
/* MUT_EXTEND_TRUNC_GARBAGE: fills the bytes an extending truncate to len exposes in the last block. */
void mut_soil_extend(struct reffs *fs, struct rinode *ip, long long len);
#pragma GCC visibility pop

#endif
