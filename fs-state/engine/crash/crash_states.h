/* The crash states of a recorded block stream: the faulty device's log parsed, and the states a power cut during the step could leave, bounded. */
#ifndef METIS_CRASH_STATES_H
#define METIS_CRASH_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "faultdev_states.h"

/* One record of the stream (faultdev_proto.h's struct faultdev_rec, its data pointed to). */
struct stream_rec {
    uint32_t kind;              /* FAULTDEV_REC_WRITE, _DISCARD, _FLUSH, _MARK */
    uint32_t len;               /* bytes written or discarded; a mark's number */
    uint64_t off;
    const unsigned char *data;  /* a write's bytes, in the log buffer */
};

struct stream {
    struct stream_rec *rec;
    unsigned *kind;             /* rec[i].kind, for the enumeration (faultdev_states.h) */
    size_t n;
};

/* Parses the log buf (kept: the records point into it); -1 when it is malformed or out of
 * memory, with errno EINVAL or ENOMEM. */
int stream_parse(const char *buf, size_t len, struct stream *s);
void stream_free(struct stream *s);
/* 1 for a write or a discard: a record a crash state holds or not. */
int stream_lands(const struct stream_rec *r);
/* 1 when a mark with number mark is among the records before index at. */
int stream_marked_before(const struct stream *s, size_t at, uint32_t mark);

/* The states of s (faultdev_states.h's crash_states_of, which bin/metis-faultdev --states
 * shares): at most max written to out; the return is how many there are in all. */
size_t stream_states(const struct stream *s, int reorder, struct crash_state *out, size_t max);

/* The blocks (of block bytes) that any write or discard of s touches, ascending, each once:
 * *out (malloc'd; NULL when none) holds *n of them. -1 with errno ENOMEM. Every state of s
 * is its base but in these blocks. */
int stream_touched(const struct stream *s, size_t block, size_t **out, size_t *n);

struct crash_image;
/* Makes img's copy state st: the step's base and the writes and discards st holds. touched
 * (stream_touched's, ntouched of them) are the only blocks a state of s differs from the base
 * in: between two states of s only they are put back. */
void stream_build(const struct stream *s, const struct crash_state *st, struct crash_image *img,
                  const size_t *touched, size_t ntouched);

#endif
