/* Run-owned tmpfs scratch space: the directories a file system keeps its data in ({dir} of a mount command, overlay's layers). */
#ifndef METIS_SCRATCH_H
#define METIS_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

struct backend;

/*
 * A tmpfs of its own, mounted at <run dir>/mnt-<fs name>.<suffix>: beside the fs's mount
 * point, so backend_sweep (which unmounts every "/metis-RUN/mnt-" mount) removes it after a
 * crash, and so that its free space and inodes are bounded by the fs's size and can be
 * equalized. Directories made in it vanish with it: scratch_fresh gives an empty one.
 */
struct scratch {
    char path[1024];            /* mount point; "" before scratch_mount */
    uint64_t size, inodes;      /* tmpfs size= and nr_inodes= (0: the kernel's defaults) */
    int mounted;
};

/* Makes the mount point and mounts an empty tmpfs there; 0 or -1 (message in b->err). */
int scratch_mount(struct backend *b, struct scratch *s, const char *suffix, uint64_t size,
                  uint64_t inodes);
/* Replaces the tmpfs by an empty one (what a fresh mount of the fs starts from). */
int scratch_fresh(struct backend *b, struct scratch *s);
/* Makes the directory name (one component) in s, mode 0755; its path in out. */
int scratch_subdir(struct backend *b, struct scratch *s, const char *name, char *out, size_t len);
/* Unmounts (lazily if busy) and removes the mount point; safe to call twice. */
void scratch_unmount(struct scratch *s);

#endif
