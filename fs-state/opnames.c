/* Operation names, spelled once by the METIS_OPS list so the enum and the names cannot drift. */
#include "opnames.h"
#include <string.h>

static const char *const names[OP_COUNT] = {
#define OPNAME_STRING(n) #n,
    METIS_OPS(OPNAME_STRING)
#undef OPNAME_STRING
};

const char *op_name(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? names[op] : "?";
}

int op_lookup(const char *name)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}
