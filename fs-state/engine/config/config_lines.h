/* The config file's logical lines: a key's value may go on over indented lines (a real mount command does not fit in one). */
#ifndef METIS_CONFIG_LINES_H
#define METIS_CONFIG_LINES_H

#include <stdio.h>
#include "lib/text/buf.h"

struct config_lines {
    FILE *f;
    int phys;                   /* physical lines read so far */
    char *raw;                  /* getline's buffer */
    size_t rawcap;
    int held;                   /* raw holds a line read ahead, not yet handed out */
    struct buf line;            /* the logical line handed out last */
    size_t longest;             /* its longest physical line, blanks before it left out */
};

/* 1 if the stripped line text reads as "NAME = ..." with NAME a key of the current section: such
 * an indented line starts a key of its own and continues nothing. */
typedef int config_is_key_fn(void *ctx, const char *text);

/* The next logical line, leading blanks and a first line's UTF-8 BOM gone, the newline kept:
 * one physical line, or a key's line with every indented line after it that is not blank, not a
 * comment, not a section and not a key (is_key) appended with one space between. A line with an
 * inline comment (" ;") ends the value: what came after it would vanish with the comment.
 * *first gets its first physical line's number. NULL at the end of the file or on a read error
 * (ferror tells), or with errno ENOMEM. */
const char *config_lines_next(struct config_lines *r, config_is_key_fn *is_key, void *ctx,
                              int *first);
void config_lines_free(struct config_lines *r);

#endif
