/* [run] revisits: a count per abstract state of how often the search reached it, turned into the round SPIN matches on. */
#include "engine/search/revisits.h"
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#define KEY_BYTES 32            /* the first bytes of the digests: enough to tell states apart */

struct revisit_count {
    unsigned char key[KEY_BYTES];
    uint32_t times;
    UT_hash_handle hh;
};

void revisits_init(struct revisits *r, int budget)
{
    *r = (struct revisits){ .budget = budget };
}

/* The key mixes every fs's digest in, not only the first fs's (the reference's). */
static void key_of(const unsigned char *abs, size_t len, unsigned char *key)
{
    memset(key, 0, KEY_BYTES);
    for (size_t i = 0; i < len; i++)
        key[i % KEY_BYTES] ^= abs[i];
}

uint32_t revisits_round(struct revisits *r, const unsigned char *abs, size_t len)
{
    unsigned char key[KEY_BYTES];
    struct revisit_count *c;
    if (r->budget <= 0)
        return 0;
    key_of(abs, len, key);
    HASH_FIND(hh, r->seen, key, KEY_BYTES, c);
    if (!c) {
        if (!(c = calloc(1, sizeof *c)))
            return (uint32_t)r->budget;   /* out of memory: matched as SPIN would */
        memcpy(c->key, key, KEY_BYTES);
        HASH_ADD(hh, r->seen, key, KEY_BYTES, c);
    }
    uint32_t round = c->times < (uint32_t)r->budget ? c->times : (uint32_t)r->budget;
    r->again += c->times > 0 && c->times <= (uint32_t)r->budget;
    c->times++;
    return round;
}

void revisits_free(struct revisits *r)
{
    struct revisit_count *c, *t;
    HASH_ITER(hh, r->seen, c, t) {
        HASH_DEL(r->seen, c);
        free(c);
    }
}
