/* A listing's lines ("PATH TYPE MODE NLINK UID GID SIZE CONTENTS XATTRS", one per entry), looked up by path: what the crash checks compare trees with. */
#ifndef METIS_CRASH_LISTING_H
#define METIS_CRASH_LISTING_H

#include <stddef.h>

/* The length of line l without its newline. */
size_t listing_line_len(const char *l);
/* The line of path (in the listing's form) in text, or NULL. */
const char *listing_find(const char *text, const char *path);
/* 1 when both lines are the same, or both are NULL. */
int listing_same(const char *a, const char *b);
/* The line after l, or NULL at the end: for (l = text; l; l = listing_next(l)). */
const char *listing_next(const char *l);
/* The path of line l, copied to out. */
void listing_path(const char *l, char *out, size_t len);

#endif
