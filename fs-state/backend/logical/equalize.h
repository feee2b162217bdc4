/* Free-space equalization before a run: see equalize.c. 0 or -1 everywhere: with errno for one
 * fs (rootfd), with the message in the failing b->err for a set of backends. */
#ifndef METIS_EQUALIZE_H
#define METIS_EQUALIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "backend/logical/equalize_root.h"

#define FILLER_DIR ".metis-filler"



struct backend;

struct tree_opts;
struct metis_config;

/* What rootfd's fs has free (after a syncfs); 0 or -1 with errno. */
int free_counts(int rootfd, struct free_counts *fc);
/* Before anything is made on them: a reference that can grow (RefFS: its limits are only
 * numbers) with less room than every target, by more than fillers can make up (bytes above
 * limit, or more than 4096 inodes), is set up again with the least of theirs, and says so on
 * stderr. -1 with the message in the failing b->err. */
int equalize_grow_reference(struct backend **be, int n, uint64_t limit);
/* Makes free inodes and bytes of every backend (set up, unmounted) as equal as fillers can:
 * fc receives what each has free afterwards, applied the fillers each got. A difference in
 * bytes above limit is left (with a warning on stderr). -1 with the message in the failing
 * b->err. */
int equalize_backends(struct backend **be, int n, struct free_counts *fc,
                      struct free_counts *applied, uint64_t limit);
/* After equalization: more fillers on every backend, until only bytes and inodes are free
 * (UINT64_MAX: leave that count alone; inodes only when at most 4096 more fillers do it; the
 * part of bytes below a block as an xattr of the filler, where the fs takes one); fc and
 * applied as above. */
int equalize_fill(struct backend **be, int n, uint64_t bytes, uint64_t inodes,
                  struct free_counts *fc, struct free_counts *applied);
/* Makes the same fillers and root attributes again on a freshly mounted fs that keeps no image (restore by replay).
 * 0 or -1 with errno. */
int equalize_replay(int rootfd, const struct free_counts *applied);
/* Makes the filler directory and its space file, and extra_inodes empty fillers: 0, or -1 with
 * errno (E2BIG: too many to fill one by one, none made). */
int equalize_inodes(int rootfd, uint64_t extra_inodes);
/* Fills extra_bytes over as many filler files as it takes; *filled (may be NULL) is what the
 * fs took. 0, or -1 with errno (EFBIG: the files took no more, ENOSPC: the fs took no more). */
int equalize_space(int rootfd, uint64_t extra_bytes, uint64_t *filled);

#endif
