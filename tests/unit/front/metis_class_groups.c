/* Unit tests of the front end's cause groups (the grouped order classes.txt and JUnit list classes in) and of the reproducer's verdict text with its runs again. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/cli/classes/class_groups.h"
#include "front/cli/triage/classes_txt.h"

static struct run_class named(int id, const char *sig, const char *group)
{
    struct run_class c;
    memset(&c, 0, sizeof c);
    c.id = id;
    snprintf(c.signature, sizeof c.signature, "%s", sig);
    snprintf(c.group, sizeof c.group, "%s", group);
    return c;
}

Test(class_groups, grouped_order_keeps_each_groups_first_class_in_place)
{
    struct run_class v[5] = {
        named(1, "create_file b state mode", "delta:mode-bits-6000 b"),
        named(2, "link b state nlink", "hard-links-path-based-fuse b"),
        named(3, "daemon-died b", "daemon-died b"),
        named(4, "write_file b state size", "hard-links-path-based-fuse b"),
        named(5, "chmod b state mode", "delta:mode-bits-6000 b"),
    };
    int order[5], gid[5];
    cr_assert_eq(class_groups_count(v, 5), 3);
    class_groups_order(v, 5, order, gid);
    int want[5] = { 0, 4, 1, 3, 2 }, want_gid[5] = { 1, 2, 3, 2, 1 };
    for (int k = 0; k < 5; k++) {
        cr_expect_eq(order[k], want[k], "order[%d]", k);
        cr_expect_eq(gid[k], want_gid[k], "gid[%d]", k);
    }
    cr_expect(class_has_cause(&v[1]));
    cr_expect(!class_has_cause(&v[2]));
    cr_expect_eq(class_group_head(v, 3), 1);
}

static const char *verdict(double target, double ref, double runs, double bites)
{
    static char text[96];
    struct run_class c = named(1, "s", "s");
    snprintf(c.repro, sizeof c.repro, "class-1-repro/run.sh");
    c.exit_target = target;
    c.exit_ref = ref;
    c.runs = runs;
    c.bites = bites;
    classes_txt_verdict(&c, text, sizeof text);
    return text;
}

Test(class_groups, verdicts_say_how_often_a_reproducer_bit)
{
    cr_expect_str_eq(verdict(1, 0, 1, 1), "bites (1/0)");
    cr_expect_str_eq(verdict(1, 1, 1, 1), "DOES NOT BITE (1/1)");
    cr_expect_str_eq(verdict(0, 0, 5, 2), "bites 2/5 (1/0)");
    cr_expect_str_eq(verdict(0, 0, 5, 0), "DOES NOT BITE 0/5 (0/0)");
    cr_expect_str_eq(verdict(-1, -1, 0, 0), "not run");
}

static struct run_class refused(int id, const char *fs, const char *word)
{
    struct run_class c = named(id, "x", "g");
    snprintf(c.fs, sizeof c.fs, "%s", fs);
    snprintf(c.lacks, sizeof c.lacks, "%s", word);
    return c;
}

/* The lacks lines of v as text. */
static char *lacks_text(const struct run_class *v, int n, const char *json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    classes_txt_lacks(f, v, n, json);
    fclose(f);
    return text;
}

Test(class_groups, the_first_page_ends_with_one_lacks_line_per_fs_that_refused)
{
    struct run_class v[5] = {
        refused(1, "b", "rename:exchange"), refused(2, "b", "xattrs"), named(3, "y", "y"),
        refused(4, "b", "xattrs"), refused(5, "c", "fallocate:punch_hole"),
    };
    const char *json = "{\"lacks\":{\"a\":[],\"b\":[\"setid\"],\"c\":[]}}";
    char *t = lacks_text(v, 5, json);
    /* what b declared already, then each word once, in the vocabulary's order */
    cr_expect(strstr(t, "declare in [fs b]:\nlacks = xattrs, setid, rename:exchange\n"), "%s", t);
    cr_expect(strstr(t, "declare in [fs c]:\nlacks = fallocate:punch_hole\n"), "%s", t);
    cr_expect_null(strstr(t, "[fs a]"), "%s", t);
    free(t);
    t = lacks_text(v + 2, 1, json);     /* no refusal: no line */
    cr_expect_str_eq(t, "");
    free(t);
}
