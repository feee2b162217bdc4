/* The crash states of a recorded block stream: the faulty device's log parsed, each persistence point's state, and with reordering each not-yet-flushed write dropped and each prefix. */
#include "engine/crash/crash_states.h"
#include "backend/crash_image.h"
#include "faultdev_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int append(struct stream *s, size_t *cap, const struct stream_rec *r)
{
    if (s->n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        struct stream_rec *p = realloc(s->rec, c * sizeof *p);
        if (!p)
            return errno = ENOMEM, -1;
        s->rec = p;
        *cap = c;
    }
    s->rec[s->n++] = *r;
    return 0;
}

int stream_parse(const char *buf, size_t len, struct stream *s)
{
    size_t pos = 0, cap = 0;
    memset(s, 0, sizeof *s);
    while (pos < len) {
        struct faultdev_rec h;
        if (len - pos < sizeof h)
            return stream_free(s), errno = EINVAL, -1;
        memcpy(&h, buf + pos, sizeof h);
        pos += sizeof h;
        size_t data = h.kind == FAULTDEV_REC_WRITE ? h.len : 0;
        if (h.kind < FAULTDEV_REC_WRITE || h.kind > FAULTDEV_REC_MARK || len - pos < data)
            return stream_free(s), errno = EINVAL, -1;
        struct stream_rec r = { h.kind, h.len, h.off,
                                data ? (const unsigned char *)buf + pos : NULL };
        if (append(s, &cap, &r) < 0)
            return stream_free(s), -1;
        pos += data;
    }
    return 0;
}

void stream_free(struct stream *s)
{
    free(s->rec);
    s->rec = NULL;
    s->n = 0;
}

int stream_lands(const struct stream_rec *r)
{
    return r->kind == FAULTDEV_REC_WRITE || r->kind == FAULTDEV_REC_DISCARD;
}

int stream_marked_before(const struct stream *s, size_t at, uint32_t mark)
{
    for (size_t i = 0; i < at && i < s->n; i++)
        if (s->rec[i].kind == FAULTDEV_REC_MARK && s->rec[i].len == mark)
            return 1;
    return 0;
}

const char *crash_state_kind_name(enum crash_state_kind k)
{
    static const char *names[] = { "base", "flush", "end", "drop", "prefix" };
    return k <= STATE_PREFIX ? names[k] : "?";
}

/* The first flush at or after index i, or s->n. */
static size_t next_flush(const struct stream *s, size_t i)
{
    while (i < s->n && s->rec[i].kind != FAULTDEV_REC_FLUSH)
        i++;
    return i;
}

/* Counts a state and writes it while there is room. */
static void emit(struct crash_state *out, size_t max, size_t *n, enum crash_state_kind kind,
                 size_t end, size_t crash_at, long skip)
{
    if (*n < max)
        out[*n] = (struct crash_state){ kind, end, crash_at, skip };
    (*n)++;
}

/* The base, each flush's state and the end's. A flush that nothing landed before since the
 * last state is left out: its state is that one's, judged there with as many calls returned. */
static void persistence_points(const struct stream *s, struct crash_state *out, size_t max,
                               size_t *n)
{
    int landed = 0;
    emit(out, max, n, STATE_BASE, 0, next_flush(s, 0), -1);
    for (size_t i = 0; i < s->n; i++) {
        if (stream_lands(&s->rec[i]))
            landed = 1;
        else if (s->rec[i].kind == FAULTDEV_REC_FLUSH && landed) {
            emit(out, max, n, STATE_FLUSH, i, next_flush(s, i + 1), -1);
            landed = 0;
        }
    }
    if (landed)
        emit(out, max, n, STATE_END, s->n, s->n, -1);
}

/* The stretch of records [from, to) between two flushes: each write dropped, each prefix. */
static void reorderings(const struct stream *s, size_t from, size_t to, struct crash_state *out,
                        size_t max, size_t *n)
{
    size_t m = 0, k = 0;
    for (size_t i = from; i < to; i++)
        m += (size_t)stream_lands(&s->rec[i]);
    if (m < 2)
        return;
    for (size_t i = from; i < to; i++)
        if (stream_lands(&s->rec[i]))
            emit(out, max, n, STATE_DROP, to, to, (long)i);
    /* Prefixes of 1 to m - 2 writes: the state ends before the write after them. */
    for (size_t i = from; i < to; i++)
        if (stream_lands(&s->rec[i]) && ++k >= 2 && k <= m - 1)
            emit(out, max, n, STATE_PREFIX, i, to, -1);
}

size_t stream_states(const struct stream *s, int reorder, struct crash_state *out, size_t max)
{
    size_t n = 0;
    persistence_points(s, out, max, &n);
    if (!reorder)
        return n;
    for (size_t from = 0; from < s->n;) {
        size_t to = next_flush(s, from);
        reorderings(s, from, to, out, max, &n);
        from = to + 1;
    }
    return n;
}

void stream_build(const struct stream *s, const struct crash_state *st, struct crash_image *img)
{
    crash_image_from_base(img);
    for (size_t i = 0; i < st->end && i < s->n; i++)
        if (stream_lands(&s->rec[i]) && (long)i != st->skip)
            crash_image_write(img, s->rec[i].off, s->rec[i].data, s->rec[i].len);
}
