/* What a crash state of a recorded step must hold, whatever was synced: the entries the step left alone, and its operation all there or not at all; on listing texts. */
#ifndef METIS_CRASH_ORACLE_H
#define METIS_CRASH_ORACLE_H

#include <stddef.h>

/*
 * pre is the listing of the tree the step started from (durable: the fs was unmounted), post
 * the live one after the operation, rec the recovered crash state's. Each function returns 0
 * when rec keeps the rule, else 1 with the first breach, one line, in why.
 */

/* The paths an operation names: its path and path2 (rename's and link's second name; "" or
 * NULL for none) and their parent directories. A line the same before and after does not make
 * one of them untouched: rename over a symlink of the same target leaves /d1's line as it was,
 * yet /d1 is now another inode, and a crash in flight may show either. */
#define CRASH_NAMED_MAX 4
#define CRASH_NAMED_ROOM 4096
struct crash_named {
    int n;
    char path[CRASH_NAMED_MAX][CRASH_NAMED_ROOM];
};
void crash_oracle_names(const char *path, const char *path2, struct crash_named *out);

/* Every entry whose line is the same in pre and post, and that the operation does not name
 * (named: NULL for none) nor is another name of a named inode (a line of pre with a link count
 * above 1 and the same fields as a named path's), is in rec with that line (it was durable and
 * the step did not touch it); every path in rec is in pre or post (no garbage). */
int crash_oracle_kept(const char *pre, const char *post, const char *rec,
                      const struct crash_named *named, char *why, size_t len);
/* The entries the operation changed (their lines differ between pre and post) and the ones it
 * names are all as in pre or all as in post: an operation in flight is all there or not at
 * all. A data operation (data_op: its bytes reach the device in any order before a sync) may
 * leave a file's size and contents anywhere between; its changed entries must then only keep a
 * type of pre's or post's. */
int crash_oracle_atomic(const char *pre, const char *post, const char *rec,
                        const struct crash_named *named, int data_op, char *why, size_t len);

#endif
