/* The calls a logical restore makes on a mount, each a record of its own: what a replay of a target's history repeats, in the engine, the replayer and every reproducer. */
#ifndef METIS_RCALLS_H
#define METIS_RCALLS_H

#include <stddef.h>
#include <stdint.h>

/* Each call is self-contained: one that acts through a descriptor opens and closes its own,
 * so a call can be replayed, or left out, alone. */
enum rcall_kind {
    RC_UNLINK, RC_RMDIR, RC_MKDIR, RC_CREATE, RC_WRITE, RC_TRUNCATE, RC_PUNCH, RC_LINK,
    RC_SYMLINK, RC_MKNOD, RC_CHOWN, RC_CHMOD, RC_SETXATTR, RC_REMOVEXATTR, RC_NKINDS
};

/* Paths are below the mount's root, as operations' are: "/" is the root, "/d0/f1" an entry. */
struct rcall {
    enum rcall_kind kind;
    const char *path;
    const char *path2;          /* link: the name that exists; symlink: the target */
    const char *xname;          /* setxattr, removexattr */
    uint64_t off, size;         /* write: off; truncate: size; punch: off and size */
    unsigned mode;              /* mkdir, create, chmod: the permission bits; mknod: with the type */
    uint32_t uid, gid;          /* chown */
    const unsigned char *data;  /* write: its bytes; setxattr: the value */
    size_t len;
};

/* Runs c on the mount whose root directory is rootfd, never reaching outside it: the call's
 * return (a write's: the bytes written), or -1 with errno. */
long rcall_exec(int rootfd, const struct rcall *c);

#endif
