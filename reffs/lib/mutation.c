/* The table of planted mutations: lookup by name and the public listing. */
#include <strings.h>
#include "internal.h"

__thread int reffs_active_mutation;

struct mut_desc {
    const char *name;
    const char *rule;
};

static const struct mut_desc mut_table[] = {
#define REFFS_MUT_DESC(id, rule) { #id, rule },
    REFFS_MUTATIONS(REFFS_MUT_DESC)
#undef REFFS_MUT_DESC
};

#define MUT_TABLE_LEN ((int)(sizeof mut_table / sizeof mut_table[0]))

int reffs_mutation_by_name(const char *name)
{
    if (!name || !*name)
        return MUT_NONE;
    for (int i = 0; i < MUT_TABLE_LEN; i++) {
        const char *full = mut_table[i].name;
        if (!strcasecmp(name, full) || !strcasecmp(name, full + 4))
            return MUT_NONE + 1 + i;
    }
    return -1;
}

const char *reffs_mutation_list(int i, const char **rule)
{
    if (i < 0 || i >= MUT_TABLE_LEN)
        return NULL;
    if (rule)
        *rule = mut_table[i].rule;
    return mut_table[i].name;
}
