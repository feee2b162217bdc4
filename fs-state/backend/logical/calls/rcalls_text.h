/* The text form of restore calls ("KIND key=value ..."): what the run log's and traces' call records hold, and its exact inverse. */
#ifndef METIS_RCALLS_TEXT_H
#define METIS_RCALLS_TEXT_H

#include <stddef.h>
#include "lib/text/buf.h"
#include "backend/logical/calls/rcalls.h"

/* The name of a kind ("write"), NULL out of range. */
const char *rcall_kind_name(enum rcall_kind k);
/* Appends c's text form to b (no newline): names and targets with bytes outside the printable
 * ASCII, space or '%' as %XX; data as lowercase hex, a run of 8 or more zero bytes as zN. (N
 * in decimal), none as "-". 0, or -1 out of memory. */
int rcall_format(const struct rcall *c, struct buf *b);
/* Parses text (changed in place: c's names point into it); a value's bytes go to *data
 * (malloc'd, the caller frees it; NULL when c has none). Paths must be absolute below the
 * root, without empty, "." or ".." components. 0, or -1 with a message in err. */
int rcall_parse(char *text, struct rcall *c, unsigned char **data, char *err, size_t errlen);
/* One call and its outcome as a record's text: "ret=R errno=E KIND ARGS". */
int rcall_format_outcome(const struct rcall *c, long ret, int err, struct buf *b);

#endif
