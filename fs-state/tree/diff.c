/* The ranking of differences between two tree listings: kinds and their names, a line's fields, an entry against another, the values messages show, the comparison of two listings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* Libc only: emit-c pastes this text into every reproducer. */

#define TD_FIELD_SHOWN 200      /* characters of one field a message shows */
#define TD_XNAMES_MAX 4096      /* room for an entry's xattr names when two are compared */

static const char *const td_names[TREE_DIFF_COUNT] = {
    "-", "missing", "extra", "type", "mode", "owner", "nlink", "size", "content", "target",
    "xattr-names", "xattr-value",
};

const char *tree_diff_name(enum tree_diff k)
{
    return k >= 0 && k < TREE_DIFF_COUNT ? td_names[k] : "?";
}

int tree_diff_by_name(const char *name)
{
    for (int k = 0; k < TREE_DIFF_COUNT; k++)
        if (strcmp(name, td_names[k]) == 0)
            return k;
    return -1;
}

/* ---- a line's fields ---- */

/* Length of the field at p: up to sep (0: none), the end of the line or of the text. */
static size_t td_field_len(const char *p, char sep)
{
    size_t n = 0;
    while (p[n] && p[n] != '\n' && (!sep || p[n] != sep))
        n++;
    return n;
}

int tree_fields_split(const char *line, struct tree_fields *e)
{
    const char *p = line;
    int rc = 0;
    for (int k = 0; k < TREE_F_COUNT; k++) {
        int last = k == TREE_F_COUNT - 1;
        size_t n = td_field_len(p, last ? 0 : ' ');
        /* "m=MTIME DATA" is one field: a content difference must stay a content difference. */
        if (k == TREE_F_DATA && n > 2 && p[0] == 'm' && p[1] == '=' && p[n] == ' ')
            n += 1 + td_field_len(p + n + 1, ' ');
        e->s[k] = p;
        e->len[k] = (int)n;
        if (n == 0 || (!last && p[n] != ' '))
            rc = -1;
        p += n + (!last && p[n] == ' ');
    }
    return rc;
}

/* ---- one entry against the other ---- */

static int td_same(const struct tree_fields *a, const struct tree_fields *b, enum tree_field f)
{
    return a->len[f] == b->len[f] && memcmp(a->s[f], b->s[f], (size_t)a->len[f]) == 0;
}

static int td_first_char(const struct tree_fields *e, enum tree_field f)
{
    return e->len[f] ? e->s[f][0] : '\0';
}

/* Bytes from p before end that are not in reject. */
static size_t td_cspn(const char *p, const char *end, const char *reject)
{
    size_t n = 0;
    while (p + n < end && !strchr(reject, p[n]))
        n++;
    return n;
}

/* The names of an xattr list "[a=1:h,b=2:h]" without the values: "a,b". */
static void td_xnames(const char *x, int xlen, char *out, size_t len)
{
    const char *end = x + xlen;
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = x + (xlen && *x == '['); p < end && *p != ']' && n + 1 < len;) {
        size_t k = td_cspn(p, end, "=,]");
        n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? "," : "", (int)k, p);
        p += k;
        p += td_cspn(p, end, ",]");
        p += p < end && *p == ',';
    }
}

static enum tree_diff td_xattr_kind(const struct tree_fields *a, const struct tree_fields *b)
{
    char na[TD_XNAMES_MAX], nb[TD_XNAMES_MAX];
    td_xnames(a->s[TREE_F_XATTRS], a->len[TREE_F_XATTRS], na, sizeof na);
    td_xnames(b->s[TREE_F_XATTRS], b->len[TREE_F_XATTRS], nb, sizeof nb);
    return strcmp(na, nb) ? TREE_DIFF_XATTR_NAMES : TREE_DIFF_XATTR_VALUE;
}

/* Two mode fields alike; with TREE_IGNORE_SETID, S_ISUID and S_ISGID left out (a listing
 * written with nothing ignored, as a reproducer's, still has them). */
static int td_same_mode(const struct tree_fields *a, const struct tree_fields *b, unsigned ignore)
{
    if (td_same(a, b, TREE_F_MODE))
        return 1;
    if (!(ignore & TREE_IGNORE_SETID) || a->len[TREE_F_MODE] > 8 || b->len[TREE_F_MODE] > 8)
        return 0;
    char ma[9], mb[9], *ea, *eb;
    snprintf(ma, sizeof ma, "%.*s", a->len[TREE_F_MODE], a->s[TREE_F_MODE]);
    snprintf(mb, sizeof mb, "%.*s", b->len[TREE_F_MODE], b->s[TREE_F_MODE]);
    unsigned long x = strtoul(ma, &ea, 8), y = strtoul(mb, &eb, 8);
    return *ea == '\0' && *eb == '\0' && ea != ma && eb != mb && ((x ^ y) & ~06000ul) == 0;
}

/* The link counts compare, unless ignore leaves them out: a directory's (DIR_NLINK), the
 * root's (ROOT_NLINK). */
static int td_nlink_counts(const struct tree_fields *a, unsigned ignore)
{
    int dir = td_first_char(a, TREE_F_TYPE) == 'd';
    int root = a->len[TREE_F_PATH] == 1 && a->s[TREE_F_PATH][0] == '/';
    return !(dir && (ignore & TREE_IGNORE_DIR_NLINK)) && !(root && (ignore & TREE_IGNORE_ROOT_NLINK));
}

unsigned tree_diff_entry_kinds(const struct tree_fields *a, const struct tree_fields *b,
                               unsigned ignore)
{
    unsigned k = 0;
    if (!td_same(a, b, TREE_F_TYPE))
        return 1u << TREE_DIFF_TYPE;        /* the other fields mean other things then */
    if (!(ignore & TREE_IGNORE_MODE) && !td_same_mode(a, b, ignore))
        k |= 1u << TREE_DIFF_MODE;
    if (!(ignore & TREE_IGNORE_OWNER) &&
        (!td_same(a, b, TREE_F_UID) || !td_same(a, b, TREE_F_GID)))
        k |= 1u << TREE_DIFF_OWNER;
    if (td_nlink_counts(a, ignore) && !td_same(a, b, TREE_F_NLINK))
        k |= 1u << TREE_DIFF_NLINK;
    if (!td_same(a, b, TREE_F_SIZE))
        k |= 1u << TREE_DIFF_SIZE;
    if (!td_same(a, b, TREE_F_DATA))
        k |= 1u << (td_first_char(a, TREE_F_TYPE) == 'l' ? TREE_DIFF_TARGET : TREE_DIFF_CONTENT);
    if (!(ignore & TREE_IGNORE_XATTRS) && !td_same(a, b, TREE_F_XATTRS))
        k |= 1u << td_xattr_kind(a, b);
    return k;
}

/* The most telling kind in which entry b differs from entry a (same path): the first of its
 * kinds in tree_diff's order. */
static enum tree_diff tree_diff_entry(const struct tree_fields *a, const struct tree_fields *b,
                                      unsigned ignore)
{
    unsigned k = tree_diff_entry_kinds(a, b, ignore);
    return k ? (enum tree_diff)__builtin_ctz(k) : TREE_DIFF_NONE;
}

void tree_diff_value(const struct tree_fields *e, enum tree_diff k, int data_chars, char *out,
                     size_t len)
{
    static const enum tree_field shown[TREE_DIFF_COUNT] = {
        TREE_F_XATTRS, TREE_F_TYPE, TREE_F_TYPE, TREE_F_TYPE, TREE_F_MODE, TREE_F_UID,
        TREE_F_NLINK, TREE_F_SIZE, TREE_F_DATA, TREE_F_DATA, TREE_F_XATTRS, TREE_F_XATTRS,
    };
    if (!e) {
        snprintf(out, len, "(none)");
    } else if (k == TREE_DIFF_OWNER) {
        snprintf(out, len, "%.*s:%.*s", e->len[TREE_F_UID], e->s[TREE_F_UID],
                 e->len[TREE_F_GID], e->s[TREE_F_GID]);
    } else if (k == TREE_DIFF_XATTR_NAMES) {
        td_xnames(e->s[TREE_F_XATTRS], e->len[TREE_F_XATTRS], out, len);
    } else {
        enum tree_field f = shown[k >= 0 && k < TREE_DIFF_COUNT ? k : 0];
        int most = f == TREE_F_DATA ? data_chars : TD_FIELD_SHOWN;
        snprintf(out, len, "%.*s", e->len[f] < most ? e->len[f] : most, e->s[f]);
    }
}

/* ---- two listings ---- */

static int td_path_cmp(const struct tree_fields *a, const struct tree_fields *b)
{
    int na = a->len[TREE_F_PATH], nb = b->len[TREE_F_PATH];
    int c = memcmp(a->s[TREE_F_PATH], b->s[TREE_F_PATH], (size_t)(na < nb ? na : nb));
    return c ? c : (na > nb) - (na < nb);
}

int tree_diff_listings(const char *const *ref, size_t nref, const char *const *got, size_t ngot,
                       unsigned ignore, tree_diff_fn *fn, void *ctx)
{
    struct tree_fields a, b;
    enum tree_diff best = TREE_DIFF_NONE;
    int count = 0;
    for (size_t i = 0, j = 0; i < nref || j < ngot;) {
        if (i < nref)
            tree_fields_split(ref[i], &a);
        if (j < ngot)
            tree_fields_split(got[j], &b);
        int c = i == nref ? 1 : j == ngot ? -1 : td_path_cmp(&a, &b);
        enum tree_diff k = c < 0 ? TREE_DIFF_MISSING : c > 0 ? TREE_DIFF_EXTRA
                                                             : tree_diff_entry(&a, &b, ignore);
        if (k != TREE_DIFF_NONE) {
            int more_telling = best == TREE_DIFF_NONE || k < best;
            best = more_telling ? k : best;
            count++;
            fn(ctx, k, c <= 0 ? &a : NULL, c >= 0 ? &b : NULL, more_telling);
        }
        i += c <= 0;
        j += c >= 0;
    }
    return count;
}
