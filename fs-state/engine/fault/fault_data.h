/* What a failed operation may leave of file data: the state before or after it in everything but regular files' sizes and data, and in those files only bytes that were there before, bytes it wrote, or zeros. */
#ifndef METIS_FAULT_DATA_H
#define METIS_FAULT_DATA_H

#include <stddef.h>
#include <stdint.h>

/*
 * No file system promises that a write which failed left all of its data or none (POSIX leaves
 * a file's contents unspecified after a failed write or fsync; ext4's data=ordered orders data
 * before metadata, it does not make a write atomic). What a later read must never return is a
 * byte no one wrote to that file: another file's stale data, or garbage. So a failed
 * operation's tree that is neither the state before nor after it is judged here: its
 * entries must be one of the two states' in all but regular files' sizes and data, and every
 * byte of those files must be the byte at that offset before, after, or zero (a hole).
 */
struct fault_files;

/* The regular files the tree after the fault (fault_listing) holds differently from the clean
 * run's (clean_listing), both tree.h listings; NULL when out of memory or a listing is bad. */
struct fault_files *fault_files_differing(const char *clean_listing, const char *fault_listing);
/* Reads those files below rootfd as slot shows them: 0 the state before, 1 after, 2 after the
 * fault (a file missing there is noted as missing); -1 when out of memory. */
enum { FAULT_FILES_BEFORE, FAULT_FILES_AFTER, FAULT_FILES_FAULTED };
int fault_files_read(struct fault_files *ff, int slot, int rootfd);
/* The bytes the operation wrote to path at off (at the file's end before it, with append), which
 * a byte after the fault may be too: a file whose name the operation removed has no state after
 * it to show them (open_unlink). -1 when out of memory. */
int fault_files_wrote(struct fault_files *ff, const char *path, uint64_t off, int append,
                      const void *bytes, size_t len);
/* 0 when the tree after the fault is such a mixture; else FAULT_PARTIAL (an entry is neither
 * before nor after in more than its data) or FAULT_STALE (a byte no one wrote), with the first
 * such thing in detail. */
unsigned fault_files_judge(const struct fault_files *ff, const char *before_listing,
                           const char *after_listing, const char *fault_listing, char *detail,
                           size_t len);
void fault_files_free(struct fault_files *ff);

#endif
