/* Unit tests of the canonical digest (tree/canon.c): listings that are renamings of one another by names of one kind within a directory get one digest; any other difference, or a rename across kinds or directories' contents, does not. */
#include <criterion/criterion.h>
#include <string.h>

#include "tree/canon.h"
#include "tree/digest.h"

#define ROOT "/ d 0755 3 0 0 - - []\n"
#define D0 "/d0 d 0755 2 0 0 - - []\n"
#define D1 "/d1 d 0755 2 0 0 - - []\n"

static const char *const files[] = { "f0", "f1" };
static const char *const dirs[] = { "d0", "d1" };
static const struct tree_canon_kinds kinds = { { files, dirs }, { 2, 2 } };

static void canon(const char *listing, unsigned char *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    cr_assert_not_null(ctx);
    cr_assert_eq(tree_canon_digest(listing, EVP_md5(), ctx, &kinds, out), 16);
    EVP_MD_CTX_free(ctx);
}

static int same(const char *a, const char *b)
{
    unsigned char x[TREE_MAX_DIGEST], y[TREE_MAX_DIGEST];
    canon(a, x);
    canon(b, y);
    return memcmp(x, y, 16) == 0;
}

Test(canon, file_names_of_a_directory_are_interchangeable)
{
    cr_assert(same(ROOT "/f0 f 0644 1 0 0 4 aa []\n", ROOT "/f1 f 0644 1 0 0 4 aa []\n"));
    cr_assert(same(ROOT "/f0 f 0644 1 0 0 4 aa []\n/f1 f 0600 1 0 0 0 bb []\n",
                   ROOT "/f0 f 0600 1 0 0 0 bb []\n/f1 f 0644 1 0 0 4 aa []\n"));
}

Test(canon, a_directory_is_renamed_with_what_it_holds)
{
    cr_assert(same(ROOT D0 "/d0/f0 f 0644 1 0 0 4 aa []\n" D1,
                   ROOT D0 D1 "/d1/f1 f 0644 1 0 0 4 aa []\n"));
    /* renaming inside one directory only: d0's f0 is not the root's f0 */
    cr_assert(same(ROOT "/f0 f 0644 1 0 0 4 aa []\n" D0 "/d0/f1 f 0600 1 0 0 0 bb []\n",
                   ROOT "/f1 f 0644 1 0 0 4 aa []\n" D0 "/d0/f0 f 0600 1 0 0 0 bb []\n"));
}

Test(canon, anything_else_still_differs)
{
    /* contents */
    cr_assert(!same(ROOT "/f0 f 0644 1 0 0 4 aa []\n", ROOT "/f0 f 0644 1 0 0 4 ab []\n"));
    /* a file under a file name is not one under a directory name */
    cr_assert(!same(ROOT "/f0 f 0644 1 0 0 4 aa []\n", ROOT "/d0 f 0644 1 0 0 4 aa []\n"));
    /* which directory a file is in */
    cr_assert(!same(ROOT D0 "/d0/f0 f 0644 1 0 0 4 aa []\n", ROOT D0 "/f0 f 0644 1 0 0 4 aa []\n"));
    /* a name outside the pool keeps its name */
    cr_assert(!same(ROOT "/g0 f 0644 1 0 0 4 aa []\n", ROOT "/g1 f 0644 1 0 0 4 aa []\n"));
    /* the root's own attributes */
    cr_assert(!same(ROOT, "/ d 0700 3 0 0 - - []\n"));
}
