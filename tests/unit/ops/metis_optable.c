/* Unit tests that every operation of METIS_OPS has its entry in every per-operation table. */
#include <criterion/criterion.h>
#include <string.h>

#include "trace/check.h"
#include "engine/config/config.h"
#include "engine/config/config_keys.h"
#include "engine/vocab/opnames.h"
#include "engine/ops/ops.h"
#include "engine/records/reach.h"

/* The replayer is not in the test binary: its emitters are compiled in here, as metis_trace.c
 * does with trace.c and check.c. */
#include "emitstep/emitc_ops.c"

Test(metis_optable, names)
{
    for (int op = 0; op < OP_COUNT; op++) {
        cr_expect_str_neq(op_name(op), "?", "operation %d has no name", op);
        cr_expect_eq(op_lookup(op_name(op)), op, "operation %s is not found by its name",
                     op_name(op));
    }
}

/* Draw, run and text form (ops.c). */
Test(metis_optable, op_table)
{
    for (int op = 0; op < OP_COUNT; op++) {
        const struct op_desc *d = op_desc_of(op);
        cr_assert_not_null(d, "operation %s has no row in ops.c's op_table", op_name(op));
        cr_expect_not_null(d->draw, "operation %s has no draw function (ops.c)", op_name(op));
        cr_expect_not_null(d->resolve, "operation %s has no resolve function (ops.c)", op_name(op));
        cr_expect_not_null(d->act, "operation %s has no act function (ops.c)", op_name(op));
        cr_expect(d->fields & OPF_PATH, "operation %s has no text form: its FIELDS lack a path "
                  "(ops.c)", op_name(op));
        cr_expect_eq(d->fields >> OPF_COUNT, 0, "operation %s has fields beyond OPF_COUNT",
                     op_name(op));
    }
    cr_expect_null(op_desc_of(OP_COUNT));
}

/* The text form names every field the operation uses, and parses back to the same arguments. */
Test(metis_optable, text_form)
{
    for (int op = 0; op < OP_COUNT; op++) {
        struct op_args a = { .op = op }, b;
        char line[METIS_OP_LINE_MAX], err[256];
        snprintf(a.path, sizeof a.path, "/f");
        snprintf(a.path2, sizeof a.path2, op == OP_symlink ? "g" : "/g");
        snprintf(a.xname, sizeof a.xname, "user.x0");
        cr_assert_gt(op_format(&a, line, sizeof line), 0, "operation %s has no text form",
                     op_name(op));
        cr_expect_eq(op_parse(line, &b, err, sizeof err), 0, "operation %s: '%s' does not parse "
                     "back: %s", op_name(op), line, err);
    }
}

Test(metis_optable, reach_rows)
{
    for (int op = 0; op < OP_COUNT; op++) {
        const int *row = reach_errnos(op);
        cr_assert_not_null(row, "operation %s has no reach row (reach.c)", op_name(op));
        cr_expect_neq(row[0], 0, "operation %s has an empty reach row (reach.c)", op_name(op));
    }
}

Test(metis_optable, replay_checks)
{
    for (int op = 0; op < OP_COUNT; op++)
        cr_expect(trace_pool_checks(op) & CHECK_PATH, "operation %s has no replay pool check "
                  "(replayer/trace/check.c)", op_name(op));
}

Test(metis_optable, emitters)
{
    for (int op = 0; op < OP_COUNT; op++)
        cr_expect_not_null(emitc_emitter(op), "operation %s has no C emitter "
                           "(replayer/emitstep/emitc_ops.c)", op_name(op));
    cr_expect_null(emitc_emitter(OP_COUNT));
}

/* Each operation's [ops] key: exactly one, named as the operation, setting its weight. */
Test(metis_optable, config_keys)
{
    for (int op = 0; op < OP_COUNT; op++) {
        int found = 0;
        for (int i = 0; i < config_key_count(); i++) {
            const struct config_key *k = config_key_at(i);
            if (strcmp(k->section, "ops") == 0 && strcmp(k->name, op_name(op)) == 0) {
                found++;
                cr_expect_eq(k->kind, CK_WEIGHT, "[ops] %s is no weight", k->name);
                cr_expect_eq(k->which, op, "[ops] %s sets the weight of %s", k->name,
                             op_name(k->which));
            }
        }
        cr_expect_eq(found, 1, "operation %s has %d [ops] keys in config_keys.c's key table, not 1",
                     op_name(op), found);
    }
}
