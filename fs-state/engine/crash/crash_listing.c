/* A listing's lines looked up by path: the comparisons of trees the crash checks make. */
#include "engine/crash/crash_listing.h"

#include <stdio.h>
#include <string.h>

size_t listing_line_len(const char *l)
{
    return strcspn(l, "\n");
}

const char *listing_next(const char *l)
{
    const char *nl = l ? strchr(l, '\n') : NULL;
    return nl && nl[1] ? nl + 1 : NULL;
}

const char *listing_find(const char *text, const char *path)
{
    size_t n = strlen(path);
    for (const char *l = text && *text ? text : NULL; l; l = listing_next(l))
        if (strncmp(l, path, n) == 0 && l[n] == ' ')
            return l;
    return NULL;
}

int listing_same(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    size_t n = listing_line_len(a);
    return n == listing_line_len(b) && strncmp(a, b, n) == 0;
}

void listing_path(const char *l, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(l, " \n"), l);
}
