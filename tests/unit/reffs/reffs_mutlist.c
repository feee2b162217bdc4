/* Unit tests of the full mutation list: unique names with rules, lookup by every spelling, refused by the plain library. */
#include <strings.h>
#include "reffs_testutil.h"
#include "lib/core/mutation.h"

static int mutlist_count(void)
{
    int n = 0;
    while (reffs_mutation_list(n, NULL))
        n++;
    return n;
}

Test(reffs_mutlist, at_least_30_unique_names_with_rules)
{
    int n = mutlist_count();
    cr_assert_geq(n, 30);
    for (int i = 0; i < n; i++) {
        const char *rule = NULL, *name = reffs_mutation_list(i, &rule);
        cr_assert(rule && strlen(rule) > 15, "%s has no real rule", name);
        for (int j = 0; j < i; j++)
            cr_assert_neq(strcasecmp(name, reffs_mutation_list(j, NULL)), 0, "%s twice", name);
    }
}

Test(reffs_mutlist, every_name_found_with_and_without_prefix_in_any_case)
{
    int n = mutlist_count();
    for (int i = 0; i < n; i++) {
        const char *name = reffs_mutation_list(i, NULL);
        char lower[128];
        size_t k = 0;
        for (; name[k] && k < sizeof lower - 1; k++)
            lower[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
        lower[k] = 0;
        cr_assert_eq(reffs_mutation_by_name(name), MUT_NONE + 1 + i);
        cr_assert_eq(reffs_mutation_by_name(name + 4), MUT_NONE + 1 + i);
        cr_assert_eq(reffs_mutation_by_name(lower + 4), MUT_NONE + 1 + i);
    }
    cr_assert_eq(MUT_COUNT, n + 1);
    cr_assert_eq(reffs_mutation_by_name("MUT_"), -1);
}

Test(reffs_mutlist, plain_library_refuses_every_mutation)
{
    int n = mutlist_count();
    for (int i = 0; i < n; i++) {
        struct reffs_limits lim = { .mutation = reffs_mutation_list(i, NULL) };
        errno = 0;
        cr_assert_null(reffs_create(&lim));
        cr_assert_eq(errno, ENOTSUP, "%s", lim.mutation);
    }
}
