/* A claim table several processes of one host share: keys (with a level) to the largest budget a process claimed under each, in a fixed-size file mapped MAP_SHARED. */
#ifndef METIS_CLAIMS_H
#define METIS_CLAIMS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A fixed-size open-addressing table in one file (CLAIMS_PREFIX in /dev/shm), its slots taken
 * and raised with atomic compare-and-swap, never removed: a key is claimed once per level by
 * the first process to insert it, and its budget only grows. Every answer errs on the side of
 * more work: a full table, a long probe or a slot another process is still writing make the
 * caller explore as if nobody had claimed the key (a key may then sit in two slots: waste, not
 * error).
 *
 * The file lives as long as a process holds it (an flock, shared, through each holder's own
 * descriptor): the last holder to let go removes it, and claims_sweep removes one nobody holds
 * (a holder killed outright). A process that opened the file just as it was removed finds out
 * (its inode is no longer the name's) and makes it anew.
 */

#define CLAIMS_DIR "/dev/shm"
#define CLAIMS_PREFIX "metis-claims-"
#define CLAIMS_SLOTS 65536u          /* at most half of them filled */

struct claims;

enum claim_answer {
    CLAIM_EXPLORE,   /* the caller's claim stands (made, raised, or its own already as large),
                        or no slot was free: explore */
    CLAIM_DEFER      /* another owner claims the key with at least this budget: cut below it */
};

/* 1 when name (a file name, no directory) is one a claim table may have: CLAIMS_PREFIX and
 * then letters, digits and '-'. */
int claims_name_ok(const char *name);
/* Holds the table at path, making it (empty) when it is not there: the descriptor, or -1 with a
 * one-line message in err. */
int claims_hold(const char *path, char *err, size_t errlen);
/* Lets go of a hold; the last holder removes the file. */
void claims_let_go(int fd, const char *path);
/* Maps the table at path (held, made and sized as needed) for keys of klen bytes: NULL with a
 * one-line message in err when it cannot, or when it was made for another key length. */
struct claims *claims_open(const char *path, size_t klen, char *err, size_t errlen);
void claims_close(struct claims *c);
/* owner (below 2^31) explores key at level with budget: the answer, after claiming or raising
 * the key's claim to budget when no other owner's is as large. */
enum claim_answer claims_take(struct claims *c, const unsigned char *key, uint32_t level,
                              uint32_t budget, uint32_t owner);
/* Removes the table at path when no process holds it: 1 when it did. */
int claims_remove_if_free(const char *path);
/* Removes every claim table in dir that no process holds; how many. */
int claims_sweep(const char *dir);

#endif
