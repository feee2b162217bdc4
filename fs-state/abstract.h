/* Abstract state: a digest over a mounted tree's sorted entries and the metadata that matters. */
#ifndef METIS_ABSTRACT_H
#define METIS_ABSTRACT_H

#include <stddef.h>
#include <stdio.h>

#define ABSTRACT_MAX_DIGEST 64

struct abstract_opts {
    const char *hash;           /* OpenSSL digest name ("md5") */
    const char *exclude;        /* comma-separated root entries left out (lost+found, ...) */
    unsigned ignore;            /* ABS_IGNORE_* */
};
enum {
    ABS_IGNORE_DIR_NLINK = 1 << 0,
    ABS_IGNORE_XATTRS    = 1 << 1,
    ABS_IGNORE_MODE      = 1 << 2,
    ABS_IGNORE_OWNER     = 1 << 3,
};
/* Parses a config "ignore" list; -1 on an unknown name (named in err). */
int abstract_parse_ignore(const char *list, unsigned *out, char *err, size_t errlen);

/* Walks the tree below rootfd without following symlinks. Writes the digest to out
 * (returns its length), and when listing is non-NULL one line per entry to it
 * (the human-readable form logged with a discrepancy). -errno on failure. */
int abstract_state(int rootfd, const struct abstract_opts *o, unsigned char *out, FILE *listing);
int abstract_digest_len(const char *hash);   /* -1 if OpenSSL does not know it */

#endif
