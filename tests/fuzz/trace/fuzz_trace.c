/* Fuzz harness of the trace reader (replayer/trace/trace.c): parse, and a parsed trace written back must parse again. */
#include "fuzz_common.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>

/* What trace_write wrote of a trace it parsed must be a trace too. */
static void reparse(const struct trace *t)
{
    static struct trace again;
    char *text = NULL, err[1024] = "";
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    int rc = trace_write(t, f);
    fclose(f);
    if (rc == 0 && trace_parse(text, len, "rewritten", &again, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz: a trace written back does not parse: %s\n", err);
        abort();
    }
    if (rc == 0)
        trace_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct trace t;
    char err[1024] = "";
    if (trace_parse((const char *)data, size, "fuzz.trace", &t, err, sizeof err) < 0) {
        fuzz_one_line("trace_parse", err);
        return 0;
    }
    reparse(&t);
    trace_free(&t);
    return 0;
}
