/* Restore calls as text: the canonical writer and its strict inverse, for the run log's and traces' call records. */
#include "backend/logical/calls/rcalls_text.h"
#include "lib/text/errnos.h"
#include "lib/text/numbers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields each kind uses, in the order written. */
enum { F_PATH = 1, F_PATH2 = 2, F_XNAME = 4, F_OFF = 8, F_SIZE = 16, F_MODE = 32,
       F_OWNER = 64, F_DATA = 128 };

static const struct {
    const char *name;
    unsigned fields;
} kinds[RC_NKINDS] = {
    [RC_UNLINK] = { "unlink", F_PATH },
    [RC_RMDIR] = { "rmdir", F_PATH },
    [RC_MKDIR] = { "mkdir", F_PATH | F_MODE },
    [RC_CREATE] = { "create", F_PATH | F_MODE },
    [RC_WRITE] = { "write", F_PATH | F_OFF | F_DATA },
    [RC_TRUNCATE] = { "truncate", F_PATH | F_SIZE },
    [RC_PUNCH] = { "punch", F_PATH | F_OFF | F_SIZE },
    [RC_LINK] = { "link", F_PATH | F_PATH2 },
    [RC_SYMLINK] = { "symlink", F_PATH | F_PATH2 },
    [RC_MKNOD] = { "mknod", F_PATH | F_MODE },
    [RC_CHOWN] = { "chown", F_PATH | F_OWNER },
    [RC_CHMOD] = { "chmod", F_PATH | F_MODE },
    [RC_SETXATTR] = { "setxattr", F_PATH | F_XNAME | F_DATA },
    [RC_REMOVEXATTR] = { "removexattr", F_PATH | F_XNAME },
};

/* Longest value a field may decode to: a path (PATH_MAX) or an xattr value (XATTR_SIZE_MAX). */
#define RC_NAME_MAX 4096
#define RC_DATA_MAX 65536
#define RC_ZERO_RUN 8

const char *rcall_kind_name(enum rcall_kind k)
{
    return (unsigned)k < RC_NKINDS ? kinds[k].name : NULL;
}

/* ---- writer ---- */

static int put_name(struct buf *b, const char *key, const char *s)
{
    int rc = buf_printf(b, " %s=", key);
    for (; rc == 0 && *s; s++) {
        unsigned char c = (unsigned char)*s;
        rc = c > ' ' && c < 0x7f && c != '%' ? buf_printf(b, "%c", c) : buf_printf(b, "%%%02x", c);
    }
    return rc;
}

static size_t zero_run(const unsigned char *p, size_t n)
{
    size_t k = 0;
    while (k < n && p[k] == 0)
        k++;
    return k;
}

static int put_data(struct buf *b, const unsigned char *p, size_t n)
{
    int rc = buf_printf(b, " data=%s", n ? "" : "-");
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t z = zero_run(p + i, n - i);
        if (z >= RC_ZERO_RUN) {
            rc = buf_printf(b, "z%zu.", z);
            i += z;
        } else {
            rc = buf_printf(b, "%02x", p[i++]);
        }
    }
    return rc;
}

int rcall_format(const struct rcall *c, struct buf *b)
{
    const char *name = rcall_kind_name(c->kind);
    unsigned f = name ? kinds[c->kind].fields : 0;
    int rc = buf_printf(b, "%s", name ? name : "?");
    if (rc == 0 && (f & F_PATH))
        rc = put_name(b, "path", c->path);
    if (rc == 0 && (f & F_PATH2))
        rc = put_name(b, "path2", c->path2);
    if (rc == 0 && (f & F_XNAME))
        rc = put_name(b, "xname", c->xname);
    if (rc == 0 && (f & F_OFF))
        rc = buf_printf(b, " off=%" PRIu64, c->off);
    if (rc == 0 && (f & F_SIZE))
        rc = buf_printf(b, " size=%" PRIu64, c->size);
    if (rc == 0 && (f & F_MODE))
        rc = buf_printf(b, " mode=0%o", c->mode);
    if (rc == 0 && (f & F_OWNER))
        rc = buf_printf(b, " uid=%" PRIu32 " gid=%" PRIu32, c->uid, c->gid);
    if (rc == 0 && (f & F_DATA))
        rc = put_data(b, c->data, c->len);
    return rc;
}

int rcall_format_outcome(const struct rcall *c, long ret, int err, struct buf *b)
{
    if (buf_printf(b, "ret=%ld errno=%s ", ret, errno_name(err)) < 0)
        return -1;
    return rcall_format(c, b);
}

/* ---- parser ---- */

struct rparse {
    char *err;
    size_t errlen;
};

static int rerr(struct rparse *p, const char *what, const char *value)
{
    snprintf(p->err, p->errlen, "call: %s '%.60s'", what, value);
    return -1;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The byte two lowercase hex digits at s spell, or -1: both are checked before they are
 * combined (a bad digit's -1 shifted left is undefined). The second is not read when the
 * first is the string's end. */
static int hex_pair(const char *s)
{
    int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);
    return lo < 0 ? -1 : hi << 4 | lo;
}

/* Only what the writer escapes: a byte outside the printable ASCII, space or '%' (never NUL). */
static int escaped_by_writer(int v)
{
    return v > 0 && (v <= ' ' || v >= 0x7f || v == '%');
}

/* A name checked as given, before it is decoded in place: a refusal quotes the text as it
 * came, which a decoded %0a would have split over two lines. */
static int check_escapes(struct rparse *p, const char *s)
{
    size_t n = 0;
    for (const char *c = s; *c; n++) {
        if (*c == '%' && !escaped_by_writer(hex_pair(c + 1)))
            return rerr(p, "bad escape in", s);
        c += *c == '%' ? 3 : 1;
    }
    return n > RC_NAME_MAX - 1 ? rerr(p, "name too long:", s) : 0;
}

/* %XX back to its byte, in place, in a name check_escapes passed. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        int escape = *s == '%';
        *out++ = escape ? (char)hex_pair(s + 1) : *s;
        s += escape ? 2 : 0;
    }
    *out = '\0';
}

/* Absolute below the root, no empty, "." or ".." component: a path cannot leave the mount. */
static int check_path(struct rparse *p, const char *s)
{
    if (s[0] != '/')
        return rerr(p, "path not absolute:", s);
    if (!s[1])
        return 0;
    for (const char *c = s + 1;;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return rerr(p, "bad path", s);
        if (!c[n])
            return 0;
        c += n + 1;
    }
}

/* "zN.": the writer writes no run shorter than RC_ZERO_RUN, and N without a sign or a leading
 * zero. */
static int zeros(struct rparse *p, const char **s, size_t *n)
{
    char *end = NULL;
    unsigned long long k = (*s)[1] >= '1' && (*s)[1] <= '9' ? strtoull(*s + 1, &end, 10) : 0;
    if (k < RC_ZERO_RUN || *end != '.' || k > RC_DATA_MAX)
        return rerr(p, "bad zero run in data", *s);
    *n = (size_t)k;
    *s = end + 1;
    return 0;
}

/* One piece of data at *s, a zero run or a hex pair, appended to out at *n. */
static int take_piece(struct rparse *p, const char **s, const char *start, unsigned char *out,
                      size_t *n)
{
    size_t k = 1;
    int v = 0;
    if (**s == 'z') {
        if (zeros(p, s, &k) < 0)
            return -1;
    } else if ((v = hex_pair(*s)) < 0) {
        return rerr(p, "bad data", start);
    } else {
        *s += 2;
    }
    if (*n + k > RC_DATA_MAX)
        return rerr(p, "data longer than 65536 bytes:", start);
    memset(out + *n, v, k);
    *n += k;
    return 0;
}

/* Data as the writer writes it: hex pairs and zero runs; "-" for none. */
static int decode_data(struct rparse *p, const char *s, unsigned char **data, size_t *len)
{
    const char *start = s;
    size_t n = 0;
    unsigned char *out = NULL;
    if (strcmp(s, "-") == 0)
        return *data = NULL, *len = 0, 0;
    if (!*s || !(out = malloc(RC_DATA_MAX)))
        return rerr(p, !*s ? "empty data" : "out of memory for", s);
    while (*s)
        if (take_piece(p, &s, start, out, &n) < 0)
            return free(out), -1;
    return *data = out, *len = n, 0;
}

static int take_u64(struct rparse *p, const char *v, uint64_t *out)
{
    return parse_canonical_u64(v, out) ? rerr(p, "bad number", v) : 0;
}

static int take_mode(struct rparse *p, const char *v, unsigned *mode)
{
    char *end;
    unsigned long m = v[0] == '0' ? strtoul(v, &end, 8) : 1UL << 31;
    if (v[0] != '0' || *end || m > 0177777)
        return rerr(p, "bad mode", v);
    *mode = (unsigned)m;
    return 0;
}

static int take_id(struct rparse *p, const char *v, uint32_t *id)
{
    uint64_t x;
    if (take_u64(p, v, &x) < 0 || x > UINT32_MAX)
        return rerr(p, "bad id", v);
    *id = (uint32_t)x;
    return 0;
}

/* The field called key into c: 0, or -1. */
static int take_field(struct rparse *p, struct rcall *c, const char *key, char *v,
                      unsigned char **data)
{
    /* A path is checked as given: '/' and '.' are never escaped. */
    if (!strcmp(key, "path"))
        return check_escapes(p, v) < 0 || check_path(p, v) < 0 ? -1 : (unescape(v), c->path = v, 0);
    if (!strcmp(key, "path2"))
        return check_escapes(p, v) < 0 ? -1 : (unescape(v), c->path2 = v, 0);
    if (!strcmp(key, "xname") && !*v)
        return rerr(p, "empty", key);
    if (!strcmp(key, "xname"))
        return check_escapes(p, v) < 0 ? -1 : (unescape(v), c->xname = v, 0);
    if (!strcmp(key, "off"))
        return take_u64(p, v, &c->off);
    if (!strcmp(key, "size"))
        return take_u64(p, v, &c->size);
    if (!strcmp(key, "mode"))
        return take_mode(p, v, &c->mode);
    if (!strcmp(key, "uid"))
        return take_id(p, v, &c->uid);
    if (!strcmp(key, "gid"))
        return take_id(p, v, &c->gid);
    if (!strcmp(key, "data"))
        return decode_data(p, v, data, &c->len) < 0 ? -1 : (c->data = *data, 0);
    return rerr(p, "unknown key", key);
}

/* The field bit of key (uid and gid share F_OWNER), 0 for a key no call has. */
static unsigned key_bit(const char *key)
{
    static const struct { const char *key; unsigned bit; } keys[] = {
        { "path", F_PATH }, { "path2", F_PATH2 }, { "xname", F_XNAME }, { "off", F_OFF },
        { "size", F_SIZE }, { "mode", F_MODE }, { "uid", F_OWNER }, { "gid", F_OWNER },
        { "data", F_DATA },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].key, key))
            return keys[i].bit;
    return 0;
}

static int kind_by_name(const char *name)
{
    for (int k = 0; k < RC_NKINDS; k++)
        if (strcmp(kinds[k].name, name) == 0)
            return k;
    return -1;
}

/* The key=value fields after the kind, each once, exactly those the kind uses. */
static int take_fields(struct rparse *p, struct rcall *c, char *s, unsigned char **data)
{
    unsigned seen = 0, owner = 0;
    while (s && *s) {
        char *next = strchr(s, ' ');
        if (next)
            *next++ = '\0';
        char *eq = strchr(s, '=');
        if (!eq)
            return rerr(p, "not key=value:", s);
        *eq = '\0';
        /* Refused before its value is taken: a second data= would drop the first's buffer. */
        unsigned bit = key_bit(s);
        if ((bit != F_OWNER && (seen & bit)) || (bit == F_OWNER && owner++ == 2))
            return rerr(p, "duplicate key", s);
        if (take_field(p, c, s, eq + 1, data) < 0)
            return -1;
        seen |= bit;
        s = next;
    }
    if (seen != kinds[c->kind].fields || ((seen & F_OWNER) && owner != 2))
        return rerr(p, "wrong fields for", kinds[c->kind].name);
    return 0;
}

/* Only what the writer writes: a parsed call written again must be the text it came from. */
static int canonical(struct rparse *p, const struct rcall *c, const char *orig)
{
    struct buf b = { 0 };
    int same = rcall_format(c, &b) == 0 && strcmp(b.p, orig) == 0;
    buf_free(&b);
    return same ? 0 : rerr(p, "not in the writer's form:", orig);
}

int rcall_parse(char *text, struct rcall *c, unsigned char **data, char *err, size_t errlen)
{
    struct rparse p = { err, errlen };
    char *orig = strdup(text), *sp = strchr(text, ' ');
    int rc = orig ? 0 : rerr(&p, "out of memory for", "a call");
    memset(c, 0, sizeof *c);
    *data = NULL;
    if (sp)
        *sp = '\0';
    int k = rc < 0 ? -1 : kind_by_name(text);
    if (rc == 0 && k < 0)
        rc = rerr(&p, "unknown kind", text);
    if (rc == 0) {
        c->kind = (enum rcall_kind)k;
        rc = take_fields(&p, c, sp ? sp + 1 : NULL, data);
    }
    if (rc == 0)
        rc = canonical(&p, c, orig);
    free(orig);
    if (rc < 0) {
        free(*data);
        *data = NULL;
    }
    return rc;
}
