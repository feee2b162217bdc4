/* Paths resolved below a mount's root and never outside it: what operations and restore calls run through. */
#ifndef METIS_BENEATH_H
#define METIS_BENEATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* openat2 of rel below rootfd (RESOLVE_BENEATH, no magic links), close-on-exec, and
 * O_NONBLOCK unless O_PATH: a FIFO opened without it waits for a peer forever. */
int beneath_open(int rootfd, const char *rel, uint64_t flags, mode_t mode);
/* The parent directory of path ("/a/b": "/" and "a") as an O_PATH fd below rootfd; *last
 * points at its last component inside buf (buflen bytes). -1 with errno. */
int beneath_parent(int rootfd, const char *path, char *buf, size_t buflen, const char **last);
/* The /proc/self/fd path of fd, so path-based syscalls act on exactly that inode. */
const char *beneath_fd_path(int fd, char *buf, size_t len);
/* Closes fd (if open) without disturbing errno; returns ret. */
long beneath_close(int fd, long ret);

#endif
