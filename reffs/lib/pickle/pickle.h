/* The pickle file layout shared by the writer (pickle.c) and the reader (unpickle.c). */
#ifndef REFFS_PICKLE_H
#define REFFS_PICKLE_H

#define PICKLE_MAGIC      "REFFSPK1"
#define PICKLE_VERSION    1u
#define PICKLE_SUM_LEN    32                 /* SHA-256 */
#define PICKLE_FIXED_LEN  40                 /* magic, version, flags, count, raw_len, comp_len */
#define PICKLE_HEADER_LEN (PICKLE_FIXED_LEN + 2 * PICKLE_SUM_LEN)
#define PICKLE_RAW_MAX    (1ULL << 36)       /* refuse bodies larger than 64 GiB */
#define PICKLE_ZSTD_LEVEL 3

/* Hidden, so the archive build can make it local: only reffs_ names may leave libreffs.a. */
#pragma GCC visibility push(hidden)
/* SHA-256 of a and b concatenated (b may be empty). */
void pickle_sum(const void *a, size_t na, const void *b, size_t nb, unsigned char out[PICKLE_SUM_LEN]);
#pragma GCC visibility pop

#endif
