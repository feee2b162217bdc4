/* The crash states of a recorded block log, enumerated from its records' kinds alone: shared by Metis's crash check and bin/metis-faultdev --states, so that a reproducer rebuilds the very states Metis judged. */
#ifndef METIS_FAULTDEV_STATES_H
#define METIS_FAULTDEV_STATES_H

#include <stddef.h>

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

/* 1 for a write or a discard: a record a crash state holds or leaves out. */
int crash_record_lands(unsigned kind);

/* "base", "flush", "end", "drop", "prefix". */
const char *crash_state_kind_name(enum crash_state_kind k);

/*
 * The states of a log whose n records have the kinds kind[0..n) (faultdev_proto.h's
 * FAULTDEV_REC_*), in this order: the base; the state at every flush after which something
 * landed since the state before; the end state when writes follow the last flush. With
 * reorder, then, for each stretch of at least two writes between two flushes (or after the
 * last one), each single write of it dropped and each proper prefix of it (but the one
 * without its last write, which the drop of that write is). At most max states are written to
 * out; the return is how many there are in all.
 */
size_t crash_states_of(const unsigned *kind, size_t n, int reorder, struct crash_state *out,
                       size_t max);

#endif
