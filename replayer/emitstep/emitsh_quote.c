/* A word single-quoted for run.sh: every writer of emit-c's script quotes with it, emit/'s and emitstep/'s. */
#include "emitstep/emit.h"

/* Single-quoted for sh. */
void emitsh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}
