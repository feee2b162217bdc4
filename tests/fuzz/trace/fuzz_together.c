/* Fuzz harness of concurrent steps' text: the history entry together_replay reads and together_history writes, the orders of together_atoms_parse/_text (engine/together_make.c), and a trace's concurrent-step records (replayer/trace/trace.c). */
#include "fuzz_common.h"
#include "engine/ops/together.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The root a history entry is replayed below: no descriptor at all, so every call's lookup
 * fails with EBADF and the entry is read through together_replay's own path, nothing made. */
#define NO_ROOT (-1)
/* Room for a history entry of TOGETHER_MAX calls, as step.c keeps them. */
#define ENTRY_MAX (TOGETHER_MAX * (METIS_OP_LINE_MAX + 1) + 64)

static void fail(const char *what, const char *text, const char *more)
{
    fprintf(stderr, "fuzz: %s '%s'%s\n", what, text, more);
    abort();
}

/* An order of k calls that together_atoms_parse reads, written by together_atoms_text, reads
 * again as the same atoms. */
static void order_round_trip(const char *order, int k)
{
    unsigned char atoms[TOGETHER_MAX_ATOMS], again[TOGETHER_MAX_ATOMS];
    char text[64];
    if (together_atoms_parse(order, k, atoms) < 0)
        return;
    together_atoms_text(atoms, k, text, sizeof text);
    if (together_atoms_parse(text, k, again) < 0 || memcmp(atoms, again, 2 * (size_t)k) != 0)
        fail("an order read, then written as", text, " reads as another order");
}

/* Every word of the input (split at spaces, line breaks and '=') as an order of 1 to
 * TOGETHER_MAX calls: the history's first line and the trace's order= both hold one. */
static void orders(const char *text)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        abort();
    for (char *w = strtok_r(copy, " \n=", &save); w; w = strtok_r(NULL, " \n=", &save))
        for (int k = 1; k <= TOGETHER_MAX; k++)
            order_round_trip(w, k);
    free(copy);
}

/* An entry's calls and order, each read by the pieces together_replay reads it with (op_parse,
 * together_atoms_parse); -1 when the harness cannot read it so (a line or an order that
 * together_replay cut to its buffers' length first). */
static int read_entry(const char *text, struct together_set *set, unsigned char *atoms)
{
    char order[64], line[METIS_OP_LINE_MAX], err[256];
    size_t n = strcspn(text, "\n");
    if (n - 9 >= sizeof order)
        return -1;
    snprintf(order, sizeof order, "%.*s", (int)(n - 9), text + 9);
    for (set->k = 0, text += n; *text == '\n'; text += n) {
        n = strcspn(++text, "\n");
        if (set->k == TOGETHER_MAX || n >= sizeof line)
            return -1;
        snprintf(line, sizeof line, "%.*s", (int)n, text);
        if (op_parse(line, &set->op[set->k++], err, sizeof err) < 0)
            return -1;
    }
    return together_atoms_parse(order, set->k, atoms);
}

/* The entry together_history writes of what an accepted entry holds: together_replay accepts
 * it, and it is a fixed point (read and written again, the same text). */
static void write_back(const char *text)
{
    static struct together_set set;
    static char one[ENTRY_MAX], two[ENTRY_MAX];
    unsigned char atoms[TOGETHER_MAX_ATOMS];
    char err[512] = "";
    if (read_entry(text, &set, atoms) < 0)
        return;
    if (together_history(&set, atoms, one, sizeof one) < 0)
        fail("an accepted history entry cannot be written back:", text, "");
    if (together_replay(NO_ROOT, one, err, sizeof err) < 0)
        fail("a history entry written back is refused:", one, err);
    if (read_entry(one, &set, atoms) < 0 || together_history(&set, atoms, two, sizeof two) < 0 ||
        strcmp(one, two) != 0)
        fail("a history entry written back, read and written again changed:", one, two);
}

/* A history entry ("together ORDER" and a call a line), as step.c hands it to together_replay. */
static void history(const char *text)
{
    char err[512] = "";
    if (together_replay(NO_ROOT, text, err, sizeof err) < 0)
        fuzz_one_line("together_replay", err);
    else
        write_back(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (together_is_history(text))
        history(text);
    else
        fuzz_trace_body(data, size);
    orders(text);
    free(text);
    return 0;
}
