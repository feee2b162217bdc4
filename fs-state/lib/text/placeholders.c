/* The {name} placeholders of a command template: which ones it uses, the {dir:NAME} directories it needs, the template expanded. */
#include "placeholders.h"

#include <stdio.h>
#include <string.h>

static int ph_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == ':' || c == '-';
}

/* The next placeholder at or after s (tmpl is the template's start, to look behind):
 * its '{' or NULL; *len is the length of the text between the braces. */
static const char *ph_next(const char *tmpl, const char *s, size_t *len)
{
    for (; (s = strchr(s, '{')); s++) {
        size_t n = 0;
        while (ph_char(s[1 + n]))
            n++;
        if (n > 0 && s[1 + n] == '}' && (s == tmpl || s[-1] != '$')) {
            *len = n;
            return s;
        }
    }
    return NULL;
}

const char *ph_dir_name(const char *name)
{
    if (strcmp(name, "dir") == 0)
        return name;
    return strncmp(name, "dir:", 4) == 0 ? name + 4 : NULL;
}

static int valid_dir_name(const char *n)
{
    size_t len = strlen(n);
    return len > 0 && len < PH_NAME_MAX && strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

static int add_dir(struct ph_dirs *d, const char *n, char *err, size_t errlen)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->name[i], n) == 0)
            return 0;
    if (d->n == PH_MAX_DIRS) {
        snprintf(err, errlen, "more than %d directories ({dir} and {dir:NAME})", PH_MAX_DIRS);
        return -1;
    }
    snprintf(d->name[d->n++], PH_NAME_MAX, "%s", n);
    return 0;
}

/* One placeholder's text (between the braces): known, a directory, or an error. */
static int scan_one(const char *name, struct ph_dirs *d, char *err, size_t errlen)
{
    const char *dir = ph_dir_name(name);
    if (strcmp(name, "mnt") == 0 || strcmp(name, "bin") == 0)
        return 0;
    if (strcmp(name, "img") == 0)
        return d->uses_img = 1, 0;
    if (dir && !valid_dir_name(dir)) {
        snprintf(err, errlen, "{%s}: a directory name is 1 to %d of a-z, 0-9 and _", name,
                 PH_NAME_MAX - 1);
        return -1;
    }
    if (dir)
        return add_dir(d, dir, err, errlen);
    snprintf(err, errlen, "unknown placeholder {%s} (known: {mnt}, {img}, {bin}, {dir}, "
             "{dir:NAME})", name);
    return -1;
}

int ph_scan(const char *tmpl, struct ph_dirs *d, char *err, size_t errlen)
{
    char name[128];
    size_t len;
    for (const char *p = tmpl; (p = ph_next(tmpl, p, &len)); p += len + 2) {
        snprintf(name, sizeof name, "%.*s", (int)len, p + 1);
        if (len >= sizeof name || scan_one(name, d, err, errlen) < 0) {
            if (len >= sizeof name)
                snprintf(err, errlen, "unknown placeholder {%s...}", name);
            return -1;
        }
    }
    return 0;
}

static int put(char *out, size_t outlen, size_t *used, const char *s, size_t n)
{
    if (*used + n + 1 > outlen)
        return -1;
    memcpy(out + *used, s, n);
    *used += n;
    return 0;
}

int ph_expand(const char *tmpl, ph_lookup_fn lookup, void *ctx, char *out, size_t outlen)
{
    char name[128];
    size_t used = 0, len;
    const char *p = tmpl, *at;
    while ((at = ph_next(tmpl, p, &len))) {
        snprintf(name, sizeof name, "%.*s", (int)len, at + 1);
        const char *val = len < sizeof name ? lookup(ctx, name) : NULL;
        if (put(out, outlen, &used, p, (size_t)(at - p)) < 0 ||
            put(out, outlen, &used, val ? val : at, val ? strlen(val) : len + 2) < 0)
            return -1;
        p = at + len + 2;
    }
    if (put(out, outlen, &used, p, strlen(p)) < 0)
        return -1;
    out[used] = 0;
    return 0;
}
