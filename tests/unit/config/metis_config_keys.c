/* Unit tests of config_keys.c's key table: names unique, kinds tied to the names they set, defaults the parser takes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/config/config.h"
#include "engine/config/config_keys.h"

Test(metis_config_keys, unique_names)
{
    int n = config_key_count();
    cr_assert_gt(n, 0);
    cr_expect_null(config_key_at(n));
    cr_expect_null(config_key_at(-1));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const struct config_key *a = config_key_at(i), *b = config_key_at(j);
            cr_expect(strcmp(a->section, b->section) || strcmp(a->name, b->name),
                      "[%s] %s is in the key table twice", a->section, a->name);
        }
}

/* A key that sets one of the drawing tables is named as that table's entry. */
Test(metis_config_keys, names_of_what_they_set)
{
    char mode[64];
    for (int i = 0; i < config_key_count(); i++) {
        const struct config_key *k = config_key_at(i);
        if (k->kind == CK_PARTS)
            cr_expect_str_eq(k->name, arg_kind_name(k->which));
        if (k->kind == CK_PART_MODE) {
            snprintf(mode, sizeof mode, "%s_mode", arg_kind_name(k->which));
            cr_expect_str_eq(k->name, mode);
        }
        if (k->kind == CK_BITS)
            cr_expect_str_eq(k->name, bitmap_kind_name(k->which));
        if (k->kind == CK_CHOICE)
            cr_expect_str_eq(k->name, choice_kind_name(k->which));
        if (k->kind == CK_WEIGHT)
            cr_expect_str_eq(k->name, op_name(k->which));
    }
}

/* Every default, given in a file, loads: the table holds no default the parser refuses. */
Test(metis_config_keys, defaults_load)
{
    char path[] = "/tmp/metis-keys-XXXXXX", err[512];
    static struct metis_config c;
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    const char *sec = "";
    fprintf(f, "[fs a]\ntype = reffs\n");
    for (int i = 0; i < config_key_count(); i++) {
        const struct config_key *k = config_key_at(i);
        if (!k->dflt || strcmp(k->section, "fs") == 0)
            continue;
        if (strcmp(sec, k->section) != 0)
            fprintf(f, "[%s]\n", sec = k->section);
        fprintf(f, "%s = %s\n", k->name, k->dflt);
    }
    fclose(f);
    int rc = config_load(path, &c, err, sizeof err);
    unlink(path);
    cr_expect_eq(rc, 0, "the key table's defaults do not load: %s", err);
}
