/* The crash states of a recorded block log: each persistence point's state, and with reordering each not-yet-flushed write dropped and each prefix; from the records' kinds alone. */
#include "faultdev_states.h"
#include "faultdev_proto.h"

const char *crash_state_kind_name(enum crash_state_kind k)
{
    static const char *names[] = { "base", "flush", "end", "drop", "prefix" };
    return k <= STATE_PREFIX ? names[k] : "?";
}

int crash_record_lands(unsigned kind)
{
    return kind == FAULTDEV_REC_WRITE || kind == FAULTDEV_REC_DISCARD;
}

/* The first flush at or after index i, or n. */
static size_t next_flush(const unsigned *kind, size_t n, size_t i)
{
    while (i < n && kind[i] != FAULTDEV_REC_FLUSH)
        i++;
    return i;
}

/* Counts a state and writes it while there is room. */
static void emit(struct crash_state *out, size_t max, size_t *n, enum crash_state_kind kind,
                 size_t end, size_t crash_at, long skip)
{
    if (*n < max) {
        out[*n].kind = kind;
        out[*n].end = end;
        out[*n].crash_at = crash_at;
        out[*n].skip = skip;
    }
    (*n)++;
}

/* The base, each flush's state and the end's. A flush that nothing landed before since the
 * last state is left out: its state is that one's, judged there with as many calls returned. */
static void persistence_points(const unsigned *kind, size_t nrec, struct crash_state *out,
                               size_t max, size_t *n)
{
    int landed = 0;
    emit(out, max, n, STATE_BASE, 0, next_flush(kind, nrec, 0), -1);
    for (size_t i = 0; i < nrec; i++) {
        if (crash_record_lands(kind[i]))
            landed = 1;
        else if (kind[i] == FAULTDEV_REC_FLUSH && landed) {
            emit(out, max, n, STATE_FLUSH, i, next_flush(kind, nrec, i + 1), -1);
            landed = 0;
        }
    }
    if (landed)
        emit(out, max, n, STATE_END, nrec, nrec, -1);
}

/* The stretch of records [from, to) between two flushes: each write dropped, each prefix. */
static void reorderings(const unsigned *kind, size_t from, size_t to, struct crash_state *out,
                        size_t max, size_t *n)
{
    size_t m = 0, k = 0;
    for (size_t i = from; i < to; i++)
        m += (size_t)crash_record_lands(kind[i]);
    if (m < 2)
        return;
    for (size_t i = from; i < to; i++)
        if (crash_record_lands(kind[i]))
            emit(out, max, n, STATE_DROP, to, to, (long)i);
    /* Prefixes of 1 to m - 2 writes: the state ends before the write after them. */
    for (size_t i = from; i < to; i++)
        if (crash_record_lands(kind[i]) && ++k >= 2 && k <= m - 1)
            emit(out, max, n, STATE_PREFIX, i, to, -1);
}

size_t crash_states_of(const unsigned *kind, size_t nrec, int reorder, struct crash_state *out,
                       size_t max)
{
    size_t n = 0;
    persistence_points(kind, nrec, out, max, &n);
    if (!reorder)
        return n;
    for (size_t from = 0; from < nrec;) {
        size_t to = next_flush(kind, nrec, from);
        reorderings(kind, from, to, out, max, &n);
        from = to + 1;
    }
    return n;
}
