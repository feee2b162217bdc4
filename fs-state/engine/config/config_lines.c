/* The config file's logical lines: a key's value may go on over indented lines (a real mount command does not fit in one). */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "engine/config/config_lines.h"

static int read_raw(struct config_lines *r)
{
    if (r->held) {
        r->held = 0;
        return 1;
    }
    if (getline(&r->raw, &r->rawcap, r->f) < 0)
        return 0;
    r->phys++;
    return 1;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int is_key_line(const char *s)
{
    return *s && *s != ';' && *s != '#' && *s != '[' && *s != '\n' && strchr(s, '=') != NULL;
}

/* Whether the line read ahead continues the value before it. */
static int continues(const char *raw, config_is_key_fn *is_key, void *ctx)
{
    const char *s = skip_blanks(raw);
    if (s == raw || *s == '\0' || *s == '\n' || *s == '\r' || *s == ';' || *s == '#' ||
        *s == '[')
        return 0;
    return !is_key(ctx, s);
}

static int has_inline_comment(const char *s)
{
    return strstr(s, " ;") || strstr(s, "\t;");
}

/* Drops the line's end (newline, carriage return, trailing blanks) before a continuation. */
static void cut_end(struct buf *b)
{
    while (b->len && strchr("\n\r \t", b->p[b->len - 1]))
        b->len--;
}

const char *config_lines_next(struct config_lines *r, config_is_key_fn *is_key, void *ctx,
                              int *first)
{
    if (!read_raw(r))
        return NULL;
    *first = r->phys;
    const char *s = r->raw;
    if (r->phys == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    s = skip_blanks(s);
    r->line.len = 0;
    if (buf_add(&r->line, s, strlen(s) + 1))
        return NULL;
    r->line.len--;
    r->longest = r->line.len;
    while (is_key_line(r->line.p) && !has_inline_comment(r->line.p) && read_raw(r)) {
        if (!continues(r->raw, is_key, ctx)) {
            r->held = 1;
            break;
        }
        cut_end(&r->line);
        const char *more = skip_blanks(r->raw);
        if (strlen(more) > r->longest)
            r->longest = strlen(more);
        if (buf_printf(&r->line, " %s", more))
            return NULL;
    }
    return r->line.p;
}

void config_lines_free(struct config_lines *r)
{
    free(r->raw);
    buf_free(&r->line);
}
