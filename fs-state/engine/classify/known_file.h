/* The known-classes file: discrepancy classes a team already knows, one record per signature, with a note and a link. */
#ifndef METIS_KNOWN_FILE_H
#define METIS_KNOWN_FILE_H

#include <stddef.h>

/* The format, plain text a team keeps in its own repository (`metis known add` appends):
 *
 *   # comment lines and blank lines are ignored
 *   class: mkdir bad state mode        <- a class signature, exactly as classes.txt shows it
 *   note: setgid dropped on subdirs     <- optional, free text (later note: lines append)
 *   link: https://bugs.example/123      <- optional
 *
 *   group: lacks:fallocate:punch_hole fuse2fs  <- a cause group, exactly as classes.txt shows
 *   note: libfuse 2 aliasing                      it: covers every class of that group
 *
 * Signatures and group keys are compared exactly: a Metis whose signatures read differently
 * (other operation, fs or attribute names, or another ranking of differences) or whose cause
 * ids change makes the file stale. A class record wins over its group's record. */

#define KNOWN_SIG_MAX 160        /* as struct dclass's signature */
#define KNOWN_TEXT_MAX 512

struct known_class {
    char signature[KNOWN_SIG_MAX];   /* a class's signature, or a group record's key */
    char note[KNOWN_TEXT_MAX];
    char link[KNOWN_TEXT_MAX];
    int group;                       /* 1: a "group:" record */
};

struct known_list {
    struct known_class *v;
    int n;
    size_t cap;
};

/* Reads path into k (empty first): 0, or -1 with "FILE:LINE: why" in err (k then empty). */
int known_load(const char *path, struct known_list *k, char *err, size_t errlen);
/* The index of the class record of signature in k, or -1. */
int known_find(const struct known_list *k, const char *signature);
/* The index of the group record of key in k, or -1. */
int known_find_group(const struct known_list *k, const char *key);
/* The record that covers a class: its own class record, else its group's (group may be NULL
 * or "": none); -1 when neither is there. */
int known_match(const struct known_list *k, const char *signature, const char *group);
/* Adds a copy of c to k in memory: 0, or -1 when out of memory. */
int known_add(struct known_list *k, const struct known_class *c);
/* Appends one record to path (made, with a header, when missing): 0, or -1 with err. */
int known_append(const char *path, const struct known_class *c, char *err, size_t errlen);
void known_free(struct known_list *k);

#endif
