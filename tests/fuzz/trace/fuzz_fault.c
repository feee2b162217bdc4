/* Fuzz harness of fault steps' text: a trace's fault records and its discrepancies' fault= findings (replayer/trace/trace.c), and the fault names they and the config's fault_kinds read (engine/fault_kinds.c). */
#include "fuzz_common.h"
#include "engine/vocab/fault_kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *word)
{
    fprintf(stderr, "fuzz: '%s' %s\n", word, what);
    abort();
}

/* A fault record's kind=: the name read is the name written. */
static void kind_round_trip(const char *w)
{
    int k = fault_kind_parse(w);
    if (k >= 0 && strcmp(fault_kind_name((enum fault_kind)k), w) != 0)
        fail("is read as a fault kind whose name is another", w);
}

/* A discrepancy's fault=: the list written of what was read reads as the same findings, and
 * the first finding's name as one of them ("same" for none). */
static void found_round_trip(const char *w)
{
    char list[128];
    int kinds = fault_found_parse(w);
    if (kinds < 0)
        return;
    fault_found_list((unsigned)kinds, list, sizeof list);
    if (fault_found_parse(list) != kinds)
        fail("is read as findings whose list written back reads as others", w);
    int first = fault_found_parse(fault_found_name((unsigned)kinds));
    if (first < 0 || (first & ~kinds) || (kinds && !first))
        fail("is read as findings whose first name is none of them", w);
}

/* The config's fault_kinds list: only kinds there are, and a refusal names the word. */
static void kinds_list(const char *w)
{
    unsigned bits;
    char bad[64] = "";
    if (fault_kinds_parse(w, &bits, bad, sizeof bad) < 0 ? !bad[0] : bits >> FAULT_NKINDS != 0)
        fail("as a fault_kinds list is refused without its bad word, or read as no kind there is",
             w);
}

/* Every word of the input (split at spaces, line breaks and '=') through the three readers. */
static void words(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size), *save = NULL;
    for (char *w = strtok_r(text, " \n=", &save); w; w = strtok_r(NULL, " \n=", &save)) {
        kind_round_trip(w);
        found_round_trip(w);
        kinds_list(w);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_trace_body(data, size);
    words(data, size);
    return 0;
}
