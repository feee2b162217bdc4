/* Fuzz harness of the restore calls' text (backend/logical/calls/rcalls_text.c): a call rcall_parse accepts is the very text rcall_format writes of it, and that text parses to the same call. */
#include "fuzz_common.h"
#include "backend/logical/calls/rcalls_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What rcall_parse is handed (a trace's call record, a history entry): one line, no break. */
static char *first_line(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    text[strcspn(text, "\n")] = '\0';
    return text;
}

static int same_name(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_call(const struct rcall *a, const struct rcall *b)
{
    return a->kind == b->kind && same_name(a->path, b->path) && same_name(a->path2, b->path2) &&
           same_name(a->xname, b->xname) && a->off == b->off && a->size == b->size &&
           a->mode == b->mode && a->uid == b->uid && a->gid == b->gid && a->len == b->len &&
           (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static void fail(const char *why, const char *text, const char *more)
{
    fprintf(stderr, "fuzz: the call '%s' %s%s\n", text, why, more);
    abort();
}

/* c, parsed from text, written back: text itself, and parsed again: c. */
static void write_back(const struct rcall *c, const char *text)
{
    struct buf b = { 0 };
    struct rcall again;
    unsigned char *data = NULL;
    char err[256] = "";
    if (rcall_format(c, &b) < 0)
        fail("was accepted, and cannot be written back", text, "");
    if (strcmp(b.p, text) != 0)
        fail("was accepted, and written back as ", text, b.p);
    if (rcall_parse(b.p, &again, &data, err, sizeof err) < 0)
        fail("was accepted, and its text written back is refused: ", text, err);
    if (!same_call(c, &again))
        fail("was accepted, and its text written back parses to another call", text, "");
    free(data);
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = first_line(data, size), *orig = strdup(text), err[256] = "";
    struct rcall c;
    unsigned char *bytes = NULL;
    if (!orig)
        abort();
    if (rcall_parse(text, &c, &bytes, err, sizeof err) < 0)
        fuzz_one_line("rcall_parse", err);
    else
        write_back(&c, orig);
    free(bytes);
    free(orig);
    free(text);
    return 0;
}
