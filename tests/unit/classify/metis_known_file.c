/* Unit tests of the known-classes file: records, notes and links, comments, appending, and each refusal naming its line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/classify/known_file.h"

static char path[64];

static void write_known(const char *text)
{
    snprintf(path, sizeof path, "/tmp/metis-known-unit.%d", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void drop(void)
{
    unlink(path);
}

Test(known_file, reads_records_notes_links_and_comments, .fini = drop)
{
    struct known_list k;
    char err[256];
    write_known("# a comment\n\nclass: mkdir bad state mode  \nnote: setgid\nnote: again\n"
                "link: https://example.org/1\n\nclass: removexattr bad errno ENOENT, reference ENODATA\n");
    cr_assert_eq(known_load(path, &k, err, sizeof err), 0, "%s", err);
    cr_assert_eq(k.n, 2);
    cr_expect_str_eq(k.v[0].signature, "mkdir bad state mode");
    cr_expect_str_eq(k.v[0].note, "setgid; again");
    cr_expect_str_eq(k.v[0].link, "https://example.org/1");
    cr_expect_str_eq(k.v[1].note, "");
    cr_expect_eq(known_find(&k, "removexattr bad errno ENOENT, reference ENODATA"), 1);
    cr_expect_eq(known_find(&k, "removexattr bad errno"), -1);   /* exact, not a prefix */
    known_free(&k);
}

Test(known_file, refusals_name_the_line, .fini = drop)
{
    static const struct { const char *text, *want; } bad[] = {
        { "class: a\nwhat: b\n", ":2: expected 'class: SIGNATURE'" },
        { "note: early\n", ":1: a note or link before the first 'class:' or 'group:' line" },
        { "group: g x\ngroup: g x\n", ":2: group listed twice" },
        { "group:\n", ":1: empty group key" },
        { "class: a\nclass: a\n", ":2: signature listed twice" },
        { "class:\n", ":1: empty signature" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct known_list k;
        char err[256];
        write_known(bad[i].text);
        cr_expect_eq(known_load(path, &k, err, sizeof err), -1, "%s", bad[i].text);
        cr_expect(strstr(err, bad[i].want) != NULL, "'%s' for %s", err, bad[i].want);
        cr_expect_eq(k.n, 0);
    }
}

Test(known_file, append_makes_the_file_and_reads_back, .fini = drop)
{
    struct known_list k;
    struct known_class c = { .signature = "chmod bad state mode", .note = "a note" };
    char err[256];
    snprintf(path, sizeof path, "/tmp/metis-known-unit.%d", (int)getpid());
    unlink(path);
    cr_assert_eq(known_append(path, &c, err, sizeof err), 0, "%s", err);
    snprintf(c.signature, sizeof c.signature, "link bad ret,errno -");
    cr_assert_eq(known_append(path, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(known_load(path, &k, err, sizeof err), 0, "%s", err);
    cr_assert_eq(k.n, 2);
    cr_expect_str_eq(k.v[1].signature, "link bad ret,errno -");
    cr_expect_str_eq(k.v[1].note, "a note");
    known_free(&k);
}

/* A group record covers every class of its group; a class's own record wins, and a class and a
 * group of the same text are two records. */
Test(known_file, group_records_cover_their_classes, .fini = drop)
{
    struct known_list k;
    char err[256];
    write_known("class: link b state nlink\nnote: own\n\ngroup: hard-links-path-based-fuse b\n"
                "note: libfuse 2\nlink: https://example.org/2\n\nclass: mkdir b state mode\n"
                "group: mkdir b state mode\n");
    cr_assert_eq(known_load(path, &k, err, sizeof err), 0, "%s", err);
    cr_assert_eq(k.n, 4);
    cr_expect_eq(k.v[1].group, 1);
    cr_expect_str_eq(k.v[1].note, "libfuse 2");
    cr_expect_eq(known_match(&k, "link b state nlink", "hard-links-path-based-fuse b"), 0);
    cr_expect_eq(known_match(&k, "write_file b state size", "hard-links-path-based-fuse b"), 1);
    cr_expect_eq(known_match(&k, "write_file b state size", "write_file b state size"), -1);
    cr_expect_eq(known_match(&k, "write_file b state size", NULL), -1);
    cr_expect_eq(known_find(&k, "hard-links-path-based-fuse b"), -1);   /* no class record */
    cr_expect_eq(known_find_group(&k, "mkdir b state mode"), 3);
    known_free(&k);
}

Test(known_file, a_group_record_appends_and_reads_back, .fini = drop)
{
    struct known_list k;
    struct known_class c = { "lacks:fallocate:punch_hole fuse", "by design", "", 1 };
    char err[256];
    snprintf(path, sizeof path, "/tmp/metis-known-unit.%d", (int)getpid());
    unlink(path);
    cr_assert_eq(known_append(path, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(known_load(path, &k, err, sizeof err), 0, "%s", err);
    cr_assert_eq(k.n, 1);
    cr_expect_eq(k.v[0].group, 1);
    cr_expect_str_eq(k.v[0].signature, "lacks:fallocate:punch_hole fuse");
    cr_expect_eq(known_add(&k, &c), 0);
    cr_expect_eq(k.n, 2);
    known_free(&k);
}
