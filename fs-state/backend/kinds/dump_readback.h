/* Read-back by a daemon's tree dump (REFFS_IOC_DUMP): RefFS's, or any FUSE daemon's that answers it. */
#ifndef METIS_DUMPBACK_H
#define METIS_DUMPBACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "backend/base/backend_types.h"

struct dumpback {
    int ctlfd;                  /* the mount's root, for the ioctl (not owned) */
    char path[1100];            /* where the daemon writes its dump: /dev/shm, swept with the run */
    int fd, fd_open;            /* the dump file, opened at the first read-back and kept: the
                                   daemon rewrites the same file every time */
    void *buf;                  /* the dump read back, reused */
    size_t cap;
    uint64_t reads;             /* read-backs so far, for readback_check */
    const char *who;            /* "RefFS", "the daemon": names the culprit of a cross-check */
};

/* Sets d up for b (its dump file beside b's image); 0 or -1 with the message in b->err. */
int dumpback_init(struct dumpback *d, struct backend *b, int ctlfd, const char *who);
/* 1 if the daemon answers the dump request, else 0. */
int dumpback_probe(struct dumpback *d);
/* The digest of the daemon's dump (b mounted, between begin and end); every
 * cfg->readback_check-th time, and for every listing, the mount is walked too and the two must
 * agree. The digest length, or -1 with the message in b->err. */
int dumpback_read_back(struct dumpback *d, struct backend *b, const struct tree_opts *o,
                       unsigned char *out, FILE *listing, struct tree_index *index);
/* Removes the dump file and frees the buffer; safe to call twice. */
void dumpback_free(struct dumpback *d);

#endif
