/* The distinct abstract states a bounded search met: an open-addressing table of their digests with the least depth each was met at. */
#include "engine/search/state_set.h"
#include <stdlib.h>
#include <string.h>

int state_set_init(struct state_set *s, size_t klen)
{
    memset(s, 0, sizeof *s);
    s->klen = klen;
    s->cap = 1024;
    s->keys = malloc(s->cap * klen);
    s->depth = malloc(s->cap * sizeof *s->depth);
    if (!s->keys || !s->depth) {
        state_set_free(s);
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++)
        s->depth[i] = -1;
    return 0;
}

void state_set_free(struct state_set *s)
{
    free(s->keys);
    free(s->depth);
    s->keys = NULL;
    s->depth = NULL;
    s->n = s->cap = 0;
}

/* The keys are digests: their first bytes are as good a hash as any. */
static size_t slot_of(const struct state_set *s, const unsigned char *key)
{
    uint64_t h = 0;
    memcpy(&h, key, s->klen < sizeof h ? s->klen : sizeof h);
    size_t i = (size_t)(h % s->cap);
    while (s->depth[i] >= 0 && memcmp(s->keys + i * s->klen, key, s->klen) != 0)
        i = (i + 1) % s->cap;
    return i;
}

static int grow(struct state_set *s)
{
    struct state_set bigger = { 0 };
    bigger.klen = s->klen;
    bigger.cap = s->cap * 2;
    bigger.keys = malloc(bigger.cap * s->klen);
    bigger.depth = malloc(bigger.cap * sizeof *bigger.depth);
    if (!bigger.keys || !bigger.depth) {
        state_set_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < bigger.cap; i++)
        bigger.depth[i] = -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->depth[i] >= 0)
            state_set_note(&bigger, s->keys + i * s->klen, s->depth[i]);
    state_set_free(s);
    *s = bigger;
    return 0;
}

int state_set_note(struct state_set *s, const unsigned char *key, long depth)
{
    if (2 * (s->n + 1) > s->cap && grow(s) < 0)
        return -1;
    size_t i = slot_of(s, key);
    if (s->depth[i] >= 0) {
        if (depth < s->depth[i])
            s->depth[i] = depth;
        return 0;
    }
    memcpy(s->keys + i * s->klen, key, s->klen);
    s->depth[i] = depth;
    s->n++;
    return 1;
}

uint64_t state_set_count_at(const struct state_set *s, long depth)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->cap; i++)
        n += s->depth[i] == depth;
    return n;
}

int state_set_write(const struct state_set *s, const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->depth[i] >= 0)
            fwrite(s->keys + i * s->klen, 1, s->klen, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}
