/* Errno names both ways, as the log, the config (errno_equiv) and the reach table write them. */
#ifndef METIS_ERRNOS_H
#define METIS_ERRNOS_H

#define ERRNO_MAX 134           /* errnos below this are named and counted */

const char *errno_name(int err);       /* ENOENT -> "ENOENT", 0 -> "0", unknown -> "E?" */
int errno_by_name(const char *name);   /* "ENOENT" -> ENOENT, -1 if unknown */

#endif
