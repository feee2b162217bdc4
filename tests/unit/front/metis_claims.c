/* Unit tests of the claim table a bounded swarm's VTs share: who defers to whom, levels, key lengths, and who removes the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/system/claims.h"

static char dir[64], path[128];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/metis-claims-unit-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%sunit", dir, CLAIMS_PREFIX);
}

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

TestSuite(claims, .init = make_dir, .fini = remove_dir);

static const unsigned char key_a[16] = "state-a.........", key_b[16] = "state-b.........";

Test(claims, another_owner_defers_to_a_claim_as_large)
{
    char err[300];
    struct claims *vt0 = claims_open(path, 16, err, sizeof err);
    struct claims *vt1 = claims_open(path, 16, err, sizeof err);   /* a second mapping */
    cr_assert(vt0 && vt1, "%s", err);
    cr_expect_eq(claims_take(vt0, key_a, 4, 2, 0), CLAIM_EXPLORE);
    cr_expect_eq(claims_take(vt1, key_a, 4, 2, 1), CLAIM_DEFER);
    cr_expect_eq(claims_take(vt1, key_a, 4, 1, 1), CLAIM_DEFER);
    cr_expect_eq(claims_take(vt0, key_a, 4, 2, 0), CLAIM_EXPLORE, "its own claim: explore");
    cr_expect_eq(claims_take(vt1, key_a, 4, 3, 1), CLAIM_EXPLORE, "a larger budget raises it");
    cr_expect_eq(claims_take(vt0, key_a, 4, 3, 0), CLAIM_DEFER, "now VT 1's, as large");
    cr_expect_eq(claims_take(vt0, key_a, 3, 1, 0), CLAIM_EXPLORE, "another level is another key");
    cr_expect_eq(claims_take(vt1, key_b, 4, 1, 1), CLAIM_EXPLORE, "another state");
    claims_close(vt0);
    claims_close(vt1);
}

Test(claims, refuses_a_table_made_for_another_key_length)
{
    char err[300];
    struct claims *c = claims_open(path, 16, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_expect_null(claims_open(path, 32, err, sizeof err));
    cr_expect(strstr(err, "another length") != NULL, "%s", err);
    claims_close(c);
}

Test(claims, the_last_holder_removes_the_file)
{
    char err[300];
    int a = claims_hold(path, err, sizeof err), b = claims_hold(path, err, sizeof err);
    cr_assert(a >= 0 && b >= 0, "%s", err);
    claims_let_go(a, path);
    cr_expect_eq(access(path, F_OK), 0, "another still holds it");
    claims_let_go(b, path);
    cr_expect_neq(access(path, F_OK), 0, "the last holder let go");
}

Test(claims, the_sweep_removes_only_tables_nobody_holds)
{
    char err[300], other[160];
    int fd = claims_hold(path, err, sizeof err);
    cr_assert(fd >= 0, "%s", err);
    snprintf(other, sizeof other, "%s/metis-other", dir);
    FILE *f = fopen(other, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_expect_eq(claims_sweep(dir), 0, "held: kept");
    cr_expect_eq(access(path, F_OK), 0);
    close(fd);
    cr_expect_eq(claims_sweep(dir), 1, "nobody holds it: removed");
    cr_expect_neq(access(path, F_OK), 0);
    cr_expect_eq(access(other, F_OK), 0, "not a claim table's name: kept");
    unlink(other);
}

Test(claims, names_are_the_prefix_and_letters_digits_dashes)
{
    cr_expect(claims_name_ok("metis-claims-6b16b172-20438-412d"));
    cr_expect(!claims_name_ok("metis-claims-"));
    cr_expect(!claims_name_ok("metis-claims-../x"));
    cr_expect(!claims_name_ok("metis-m123"));
}
