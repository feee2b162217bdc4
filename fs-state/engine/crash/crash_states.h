/* The crash states of a recorded block stream: the faulty device's log parsed, and the states a power cut during the step could leave, bounded. */
#ifndef METIS_CRASH_STATES_H
#define METIS_CRASH_STATES_H

#include <stddef.h>
#include <stdint.h>

/* One record of the stream (faultdev_proto.h's struct faultdev_rec, its data pointed to). */
struct stream_rec {
    uint32_t kind;              /* FAULTDEV_REC_WRITE, _DISCARD, _FLUSH, _MARK */
    uint32_t len;               /* bytes written or discarded; a mark's number */
    uint64_t off;
    const unsigned char *data;  /* a write's bytes, in the log buffer */
};

struct stream {
    struct stream_rec *rec;
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

enum crash_state_kind {
    STATE_BASE,                 /* nothing of the step: the image it started from */
    STATE_FLUSH,                /* everything up to a flush (a persistence point) */
    STATE_END,                  /* everything, when writes follow the last flush */
    STATE_DROP,                 /* up to a flush, one write since the flush before it dropped */
    STATE_PREFIX,               /* up to a flush, and only the first writes since the one before */
};

/* A state: the writes and discards among the records before end, but skip (-1: none);
 * crash_at is the record the power cut came before: a call whose mark is before it returned. */
struct crash_state {
    enum crash_state_kind kind;
    size_t end, crash_at;
    long skip;
};

/* "base", "flush", "end", "drop", "prefix". */
const char *crash_state_kind_name(enum crash_state_kind k);

/*
 * The states of s, in this order: the base; the state at every flush after which something
 * landed since the state before; the end state when writes follow the last flush. With
 * reorder, then, for each stretch of at least two writes between two flushes (or after the
 * last one), each single write of it dropped and each proper prefix of it (but the one
 * without its last write, which the drop of that write is). At most max states are written to
 * out; the return is how many there are in all.
 */
size_t stream_states(const struct stream *s, int reorder, struct crash_state *out, size_t max);

struct crash_image;
/* Makes img's copy state st: the step's base and the writes and discards st holds. */
void stream_build(const struct stream *s, const struct crash_state *st, struct crash_image *img);

#endif
