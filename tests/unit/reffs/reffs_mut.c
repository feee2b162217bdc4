/* Unit tests of the RefFS mutation table and reffs_create's checks of limits->mutation. */
#include "reffs_testutil.h"
#include "lib/core/mutation.h"

Test(reffs_mut, list_has_names_and_rules)
{
    int n = 0;
    const char *rule = NULL;
    for (const char *name; (name = reffs_mutation_list(n, &rule)); n++) {
        cr_assert(!strncmp(name, "MUT_", 4));
        cr_assert_not_null(rule);
        cr_assert_gt(strlen(rule), 10);
    }
    cr_assert_geq(n, 5);
    cr_assert_null(reffs_mutation_list(-1, NULL));
    cr_assert_null(reffs_mutation_list(n, NULL));
}

Test(reffs_mut, create_EINVAL_unknown_mutation)
{
    struct reffs_limits lim = { .mutation = "MUT_NO_SUCH_THING" };
    errno = 0;
    cr_assert_null(reffs_create(&lim));
    cr_assert_eq(errno, EINVAL);
}

Test(reffs_mut, create_ENOTSUP_known_mutation_in_plain_library)
{
    struct reffs_limits lim = { .mutation = "MUT_RMDIR_NONEMPTY" };
    errno = 0;
    cr_assert_null(reffs_create(&lim));
    cr_assert_eq(errno, ENOTSUP);
}

Test(reffs_mut, create_accepts_empty_mutation)
{
    struct reffs_limits lim = { .mutation = "" };
    struct reffs *fs = reffs_create(&lim);
    cr_assert_not_null(fs);
    reffs_destroy(fs);
    fs = reffs_create(NULL);
    cr_assert_not_null(fs);
    reffs_destroy(fs);
}

Test(reffs_mut, mask_of_several_names)
{
    unsigned long long mask = 1;
    cr_assert_eq(reffs_mutation_mask(NULL, &mask), 0);
    cr_assert_eq(mask, 0);
    cr_assert_eq(reffs_mutation_mask("rmdir_nonempty+MUT_REMOVEXATTR_ENOENT", &mask), 0);
    cr_assert_eq(mask, (1ULL << MUT_RMDIR_NONEMPTY) | (1ULL << MUT_REMOVEXATTR_ENOENT));
    cr_assert_eq(reffs_mutation_mask("rmdir_nonempty+", &mask), -1);
    cr_assert_eq(reffs_mutation_mask("+rmdir_nonempty", &mask), -1);
    cr_assert_eq(reffs_mutation_mask("rmdir_nonempty+no_such", &mask), -1);
}

Test(reffs_mut, create_ENOTSUP_two_mutations_in_plain_library)
{
    struct reffs_limits lim = { .mutation = "MUT_RMDIR_NONEMPTY+MUT_CHMOD_DROP_STICKY" };
    errno = 0;
    cr_assert_null(reffs_create(&lim));
    cr_assert_eq(errno, ENOTSUP);
}
