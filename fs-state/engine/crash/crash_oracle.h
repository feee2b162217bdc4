/* What a crash state of a recorded step must hold, whatever was synced: the entries the step left alone, and its operation all there or not at all; on listing texts. */
#ifndef METIS_CRASH_ORACLE_H
#define METIS_CRASH_ORACLE_H

#include <stddef.h>

/*
 * pre is the listing of the tree the step started from (durable: the fs was unmounted), post
 * the live one after the operation, rec the recovered crash state's. Each function returns 0
 * when rec keeps the rule, else 1 with the first breach, one line, in why.
 */

/* Every entry whose line is the same in pre and post is in rec with that line (it was durable
 * and the step did not touch it); every path in rec is in pre or post (no garbage). */
int crash_oracle_kept(const char *pre, const char *post, const char *rec, char *why, size_t len);
/* The entries the operation changed (their lines differ between pre and post) are all as in
 * pre or all as in post: an operation in flight is all there or not at all. A data operation
 * (data_op: its bytes reach the device in any order before a sync) may leave a file's size
 * and contents anywhere between; its changed entries must then only keep a type of pre's or
 * post's. */
int crash_oracle_atomic(const char *pre, const char *post, const char *rec, int data_op,
                        char *why, size_t len);

#endif
