/* The table of planted mutations: lookup by name and the public listing. */
#include <string.h>
#include <strings.h>
#include "reffs.h"
#include "mutation.h"

__thread unsigned long long reffs_active_mutation;

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

int reffs_mutation_mask(const char *spec, unsigned long long *mask)
{
    char name[128];
    *mask = 0;
    if (!spec || !*spec)
        return 0;
    for (const char *p = spec;; p++) {
        size_t n = strcspn(p, "+");
        if (n == 0 || n >= sizeof name)
            return -1;          /* an empty name: "+A", "A+" or "A++B" */
        memcpy(name, p, n);
        name[n] = '\0';
        int m = reffs_mutation_by_name(name);
        if (m <= MUT_NONE)
            return -1;
        *mask |= 1ULL << m;
        p += n;
        if (!*p)
            return 0;
    }
}

const char *reffs_mutation_list(int i, const char **rule)
{
    if (i < 0 || i >= MUT_TABLE_LEN)
        return NULL;
    if (rule)
        *rule = mut_table[i].rule;
    return mut_table[i].name;
}
