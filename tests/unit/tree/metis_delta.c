/* Unit tests of the known delta (tree/delta.c): attribute-only differences as a set, a step's new ones named, structure told apart. */
#include <criterion/criterion.h>
#include <string.h>

#include "tree/delta.h"

/* Listing lines as tree/line.c writes them: PATH TYPE MODE NLINK UID GID SIZE DATA XATTRS. */
#define ROOT "/ d 0755 2 0 0 - - []\n"
#define F0 "/f0 f 0644 1 0 0 5 aaaa []\n"
#define F0_600 "/f0 f 0600 1 0 0 5 aaaa []\n"
#define F1 "/f1 f 0644 1 0 0 5 aaaa []\n"
#define F1_600 "/f1 f 0600 1 0 0 5 aaaa []\n"

struct step {
    struct tree_delta now;
    struct state_diff fresh;
    int verdict;
};

static void compare(const char *ref, const char *other, const struct tree_delta *known,
                    struct step *s)
{
    s->verdict = tree_delta_compare(ref, other, known, &s->now, &s->fresh);
}

Test(delta, equal_trees_have_no_delta)
{
    struct step s;
    compare(ROOT F0, ROOT F0, NULL, &s);
    cr_assert_eq(s.verdict, DELTA_EQUAL);
    cr_assert_eq(s.now.n, 0);
    cr_assert_eq(s.fresh.attr, TREE_DIFF_NONE);
}

Test(delta, a_mode_difference_is_an_attribute_delta_and_new)
{
    struct step s;
    compare(ROOT F0, ROOT F0_600, NULL, &s);
    cr_assert_eq(s.verdict, DELTA_ATTRS);
    cr_assert_eq(s.now.n, 1);
    cr_assert_str_eq(s.now.item[0], "mode\tbits 0044");
    cr_assert_eq(s.fresh.attr, TREE_DIFF_MODE);
    cr_assert_str_eq(s.fresh.entry, "/f0");
    tree_delta_free(&s.now);
}

Test(delta, a_known_difference_is_not_new_even_under_another_name)
{
    struct step first, same, moved;
    compare(ROOT F0, ROOT F0_600, NULL, &first);
    compare(ROOT F0, ROOT F0_600, &first.now, &same);
    cr_expect_eq(same.verdict, DELTA_ATTRS);
    cr_expect_eq(same.fresh.attr, TREE_DIFF_NONE, "the parent's delta holds it");
    compare(ROOT F1, ROOT F1_600, &first.now, &moved);
    cr_expect_eq(moved.fresh.attr, TREE_DIFF_NONE, "a rename carries the same difference");
    tree_delta_free(&first.now);
    tree_delta_free(&same.now);
    tree_delta_free(&moved.now);
}

Test(delta, a_change_made_alike_on_both_sides_keeps_the_difference)
{
    struct step first, next;
    compare(ROOT "/f0 f 4644 2 0 0 5 aaaa []\n", ROOT "/f0 f 4645 3 0 0 5 aaaa []\n", NULL, &first);
    cr_assert_eq(first.now.n, 2);
    compare(ROOT "/f0 f 0644 1 0 0 5 aaaa []\n", ROOT "/f0 f 0645 2 0 0 5 aaaa []\n", &first.now,
            &next);
    cr_expect_eq(next.fresh.attr, TREE_DIFF_NONE, "setuid cleared and a link gone on both sides");
    tree_delta_free(&first.now);
    tree_delta_free(&next.now);
}

Test(delta, a_second_attribute_is_new_and_named_alone)
{
    struct step first, next;
    compare(ROOT F0, ROOT F0_600, NULL, &first);
    compare(ROOT F0 F1, ROOT F0_600 "/f1 f 0644 2 0 0 5 aaaa []\n", &first.now, &next);
    cr_assert_eq(next.verdict, DELTA_ATTRS);
    cr_expect_eq(next.now.n, 2);
    cr_expect_eq(next.fresh.attr, TREE_DIFF_NLINK, "the mode is known: the link count is new");
    cr_expect_str_eq(next.fresh.entry, "/f1");
    cr_expect_str_eq(next.fresh.ref, "1");
    cr_expect_str_eq(next.fresh.other, "2");
    tree_delta_free(&first.now);
    tree_delta_free(&next.now);
}

Test(delta, content_and_missing_entries_are_structure)
{
    struct step content, missing;
    compare(ROOT F0, ROOT "/f0 f 0600 1 0 0 5 bbbb []\n", NULL, &content);
    cr_expect_eq(content.verdict, DELTA_STRUCTURE);
    cr_expect_eq(content.now.n, 0);
    cr_expect_eq(content.fresh.attr, TREE_DIFF_MODE, "named as classify_listings names it");
    compare(ROOT F0 F1, ROOT F0, NULL, &missing);
    cr_expect_eq(missing.verdict, DELTA_STRUCTURE);
    cr_expect_eq(missing.fresh.attr, TREE_DIFF_MISSING);
    cr_expect_str_eq(missing.fresh.entry, "/f1");
}

Test(delta, xattr_values_are_attributes)
{
    struct step s;
    compare(ROOT "/f0 f 0644 1 0 0 5 aaaa [user.x0=3:abc]\n",
            ROOT "/f0 f 0644 1 0 0 5 aaaa [user.x0=3:abd]\n", NULL, &s);
    cr_assert_eq(s.verdict, DELTA_ATTRS);
    cr_expect_eq(s.fresh.attr, TREE_DIFF_XATTR_VALUE);
    tree_delta_free(&s.now);
}

Test(delta, an_extra_xattr_stays_known_when_another_one_is_set_on_both)
{
    struct step first, next;
    compare(ROOT "/f0 f 0644 1 0 0 5 aaaa []\n", ROOT "/f0 f 0644 1 0 0 5 aaaa [user.x0=0:e]\n",
            NULL, &first);
    cr_assert_eq(first.verdict, DELTA_ATTRS);
    cr_expect_str_eq(first.now.item[0], "xattr-names\t+user.x0");
    compare(ROOT "/f0 f 0644 1 0 0 5 aaaa [user.x1=3:abc]\n",
            ROOT "/f0 f 0644 1 0 0 5 aaaa [user.x0=0:e,user.x1=3:abc]\n", &first.now, &next);
    cr_expect_eq(next.fresh.attr, TREE_DIFF_NONE, "user.x1 is alike; user.x0 is known");
    tree_delta_free(&first.now);
    tree_delta_free(&next.now);
}

/* With compare_mtime the m= field comes before DATA: a content difference stays content (a
 * leaf), not an xattr difference the search would go on below. */
Test(delta, a_content_difference_with_mtimes_is_structure)
{
    struct step s;
    compare(ROOT "/f0 f 0644 1 0 0 5 m=now aaaa [user.x0=1:a]\n",
            ROOT "/f0 f 0644 1 0 0 5 m=now bbbb [user.x0=1:a]\n", NULL, &s);
    cr_expect_eq(s.verdict, DELTA_STRUCTURE);
    cr_expect_eq(s.fresh.attr, TREE_DIFF_CONTENT);
    compare(ROOT "/f0 f 0644 1 0 0 5 m=now aaaa []\n",
            ROOT "/f0 f 0644 1 0 0 5 m=1000.0 aaaa []\n", NULL, &s);
    cr_expect_eq(s.fresh.attr, TREE_DIFF_CONTENT, "an mtime difference is named content");
}

Test(delta, a_line_that_is_no_listing_line_is_refused)
{
    struct step s;
    compare(ROOT F0, ROOT "/f0 junk\n", NULL, &s);
    cr_assert_eq(s.verdict, -1);
    cr_expect_str_eq(s.fresh.entry, "/f0");
}
