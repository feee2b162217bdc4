/* Flag arguments by name, for people: open flags, rename flags, xattr flags, fallocate modes, mknod types. */
#ifndef METIS_OPFLAGS_H
#define METIS_OPFLAGS_H

#include <stddef.h>
#include <stdio.h>
#include "engine/ops/ops.h"

/* The flags argument of a by name ("O_WRONLY|O_APPEND", "RENAME_EXCHANGE", "S_IFIFO"), bits
 * without a name in hex; 0 when written, -1 when a has no flags argument. */
int op_flags_name(const struct op_args *a, char *out, size_t len);
/* op_format's text with flags=0x... replaced by the names: only for text people read (the
 * machine-read log and traces keep the numbers). 0, or -1 as op_format. */
int op_format_named(const struct op_args *a, char *buf, size_t len);

/* " (flags=NAMES)" after an operation's text in a detail file; nothing when it has no flags. */
void op_print_flag_names(FILE *f, const struct op_args *a);

#endif
