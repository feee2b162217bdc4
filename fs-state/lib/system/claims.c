/* The claim table several processes of one host share: a fixed-size file mapped MAP_SHARED, its slots taken and raised by compare-and-swap. */
#include "lib/system/claims.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLAIMS_PROBES 64                     /* past this many slots a key goes unclaimed */

enum { SLOT_EMPTY, SLOT_WRITING, SLOT_READY };

struct claims_head {
    uint64_t klen;               /* 0 until the first process maps it */
    uint64_t used;               /* slots taken */
};

struct claim_slot {
    uint32_t state;              /* SLOT_*: a key is written once, then only read */
    uint32_t level;
    uint64_t value;              /* budget << 32 | owner + 1; 0: nobody's yet */
    unsigned char key[];
};

struct claims {
    int fd;                      /* held shared while mapped */
    unsigned char *base;
    size_t size, klen, slot_size;
};

int claims_name_ok(const char *name)
{
    size_t n = strlen(CLAIMS_PREFIX);
    if (strncmp(name, CLAIMS_PREFIX, n) || !name[n] || strlen(name) > 200)
        return 0;
    for (const char *p = name + n; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-'))
            return 0;
    return 1;
}

/* fd is still the file the name gives: no last holder or sweep removed it meanwhile. */
static int still_named(int fd, const char *path)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

int claims_hold(const char *path, char *err, size_t errlen)
{
    for (int tries = 0; tries < 8; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            snprintf(err, errlen, "claim table %s: %s", path, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_SH) == 0 && still_named(fd, path))
            return fd;
        close(fd);
    }
    snprintf(err, errlen, "claim table %s: removed each time it was opened", path);
    return -1;
}

/* Unlinks path if fd is still the file it names and nobody else holds it; 1 if it went. */
static int unlink_if_last(int fd, const char *path)
{
    return flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, path) && unlink(path) == 0;
}

void claims_let_go(int fd, const char *path)
{
    if (fd < 0)
        return;
    unlink_if_last(fd, path);
    close(fd);
}

static size_t slot_size_of(size_t klen)
{
    return sizeof(struct claim_slot) + (klen + 7) / 8 * 8;
}

static int size_table(struct claims *c, const char *path, char *err, size_t errlen)
{
    struct stat sb;
    c->slot_size = slot_size_of(c->klen);
    c->size = sizeof(struct claims_head) + (size_t)CLAIMS_SLOTS * c->slot_size;
    if (fstat(c->fd, &sb) < 0 || (sb.st_size == 0 && ftruncate(c->fd, (off_t)c->size) < 0)) {
        snprintf(err, errlen, "claim table %s: %s", path, strerror(errno));
        return -1;
    }
    if (sb.st_size != 0 && (size_t)sb.st_size != c->size) {
        snprintf(err, errlen, "claim table %s: %lld bytes, made for keys of another length",
                 path, (long long)sb.st_size);
        return -1;
    }
    return 0;
}

/* The first to map it writes its key length: a second check beside the size. */
static int check_head(struct claims *c, const char *path, char *err, size_t errlen)
{
    struct claims_head *h = (struct claims_head *)c->base;
    uint64_t none = 0;
    if (!__atomic_compare_exchange_n(&h->klen, &none, c->klen, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE) && none != c->klen) {
        snprintf(err, errlen, "claim table %s: made for keys of %llu bytes, not %zu", path,
                 (unsigned long long)none, c->klen);
        return -1;
    }
    return 0;
}

struct claims *claims_open(const char *path, size_t klen, char *err, size_t errlen)
{
    struct claims *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "claim table %s: out of memory", path);
        return NULL;
    }
    c->klen = klen;
    c->fd = claims_hold(path, err, errlen);
    if (c->fd < 0 || size_table(c, path, err, errlen) < 0)
        goto fail;
    c->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
    if (c->base == MAP_FAILED) {
        c->base = NULL;
        snprintf(err, errlen, "claim table %s: mmap: %s", path, strerror(errno));
        goto fail;
    }
    if (check_head(c, path, err, errlen) < 0)
        goto fail;
    return c;
fail:
    claims_close(c);
    return NULL;
}

void claims_close(struct claims *c)
{
    if (!c)
        return;
    if (c->base)
        munmap(c->base, c->size);
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

static struct claim_slot *slot_at(const struct claims *c, size_t i)
{
    return (struct claim_slot *)(c->base + sizeof(struct claims_head) + i * c->slot_size);
}

/* Keys are digests: their first bytes, mixed with the level, are as good a hash as any. */
static size_t home_of(const struct claims *c, const unsigned char *key, uint32_t level)
{
    uint64_t h = 0;
    memcpy(&h, key, c->klen < sizeof h ? c->klen : sizeof h);
    h ^= (uint64_t)level * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h % CLAIMS_SLOTS);
}

/* An empty slot taken for key; 0 when another process took it first. */
static int take_slot(struct claims *c, struct claim_slot *s, const unsigned char *key,
                     uint32_t level, uint32_t *state)
{
    struct claims_head *h = (struct claims_head *)c->base;
    if (__atomic_load_n(&h->used, __ATOMIC_RELAXED) >= CLAIMS_SLOTS / 2)
        return 0;
    if (!__atomic_compare_exchange_n(&s->state, state, SLOT_WRITING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return 0;
    memcpy(s->key, key, c->klen);
    s->level = level;
    __atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
    __atomic_add_fetch(&h->used, 1, __ATOMIC_RELAXED);
    return 1;
}

/* key's slot at level, inserted when it is not there yet; NULL: none to be had. */
static struct claim_slot *find(struct claims *c, const unsigned char *key, uint32_t level)
{
    size_t i = home_of(c, key, level);
    for (int probe = 0; probe < CLAIMS_PROBES; probe++, i = (i + 1) % CLAIMS_SLOTS) {
        struct claim_slot *s = slot_at(c, i);
        uint32_t state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        if (state == SLOT_EMPTY && take_slot(c, s, key, level, &state))
            return s;
        if (state == SLOT_EMPTY)      /* the table is half full: no key more */
            return NULL;
        if (state == SLOT_READY && s->level == level && memcmp(s->key, key, c->klen) == 0)
            return s;
    }
    return NULL;
}

enum claim_answer claims_take(struct claims *c, const unsigned char *key, uint32_t level,
                              uint32_t budget, uint32_t owner)
{
    struct claim_slot *s = find(c, key, level);
    if (!s)
        return CLAIM_EXPLORE;
    uint64_t mine = (uint64_t)budget << 32 | (uint64_t)(owner + 1);
    uint64_t cur = __atomic_load_n(&s->value, __ATOMIC_ACQUIRE);
    for (;;) {
        uint32_t held = (uint32_t)(cur >> 32), by = (uint32_t)cur;
        if (by && held >= budget)
            return by != owner + 1 ? CLAIM_DEFER : CLAIM_EXPLORE;
        if (__atomic_compare_exchange_n(&s->value, &cur, mine, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return CLAIM_EXPLORE;
    }
}

int claims_remove_if_free(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    int removed = 0;
    if (fd < 0)
        return 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
        removed = unlink_if_last(fd, path);
    close(fd);
    return removed;
}

int claims_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[PATH_MAX];
    int n = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        if (claims_name_ok(de->d_name)) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            n += claims_remove_if_free(path);
        }
    closedir(d);
    return n;
}
