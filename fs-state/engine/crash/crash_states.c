/* The crash states of a recorded block stream: the faulty device's log parsed, its states enumerated (faultdev_states.c, shared with bin/metis-faultdev) and built on the copy. */
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
        if (p)
            s->rec = p;
        unsigned *k = p ? realloc(s->kind, c * sizeof *k) : NULL;
        if (!k)
            return errno = ENOMEM, -1;
        s->kind = k;
        *cap = c;
    }
    s->kind[s->n] = r->kind;
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
    free(s->kind);
    s->rec = NULL;
    s->kind = NULL;
    s->n = 0;
}

int stream_lands(const struct stream_rec *r)
{
    return crash_record_lands(r->kind);
}

int stream_marked_before(const struct stream *s, size_t at, uint32_t mark)
{
    for (size_t i = 0; i < at && i < s->n; i++)
        if (s->rec[i].kind == FAULTDEV_REC_MARK && s->rec[i].len == mark)
            return 1;
    return 0;
}

size_t stream_states(const struct stream *s, int reorder, struct crash_state *out, size_t max)
{
    return crash_states_of(s->kind, s->n, reorder, out, max);
}

void stream_build(const struct stream *s, const struct crash_state *st, struct crash_image *img,
                  const size_t *touched, size_t ntouched)
{
    crash_image_from_base_but(img, touched, ntouched);
    for (size_t i = 0; i < st->end && i < s->n; i++)
        if (stream_lands(&s->rec[i]) && (long)i != st->skip)
            crash_image_write(img, s->rec[i].off, s->rec[i].data, s->rec[i].len);
}

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int stream_touched(const struct stream *s, size_t block, size_t **out, size_t *n)
{
    size_t cap = 0, m = 0, *v = NULL;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!stream_lands(&s->rec[i]) || !s->rec[i].len)
            continue;
        size_t from = s->rec[i].off / block, to = (s->rec[i].off + s->rec[i].len - 1) / block;
        for (size_t b = from; b <= to; b++) {
            if (m == cap) {
                size_t *p = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v);
                if (!p)
                    return free(v), errno = ENOMEM, -1;
                v = p;
            }
            v[m++] = b;
        }
    }
    if (m)
        qsort(v, m, sizeof *v, by_index);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    *out = v;
    *n = u;
    return 0;
}
