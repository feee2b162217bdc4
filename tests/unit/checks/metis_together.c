/* Unit tests of concurrent steps: the orders of their calls (whole, and with early resolutions), their text, the set's label. */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/concurrent/serial.h"
#include "engine/ops/together.h"

static struct serial_table tbl;

Test(metis_together, orders_of_whole_calls_and_with_early_resolutions)
{
    static const int whole[] = { 0, 0, 2, 6, 24 }, all[] = { 0, 0, 4, 36, 576 };
    for (int k = 2; k <= TOGETHER_MAX; k++) {
        serial_whole_orders(&tbl, k);
        cr_assert_eq(tbl.n, whole[k], "k=%d: %d whole orders", k, tbl.n);
        serial_all_orders(&tbl, k);
        cr_assert_eq(tbl.n, all[k], "k=%d: %d orders in all", k, tbl.n);
        cr_assert_eq(tbl.whole, whole[k]);
    }
}

/* Every order resolves each call once before it acts, and its text parses back to it. */
Test(metis_together, every_order_text_parses_back)
{
    char text[64];
    unsigned char back[TOGETHER_MAX_ATOMS];
    for (int k = 2; k <= TOGETHER_MAX; k++) {
        serial_all_orders(&tbl, k);
        for (int o = 0; o < tbl.n; o++) {
            unsigned resolved = 0;
            for (int i = 0; i < 2 * k; i++) {
                int c = tbl.order[o].atom[i] & ~ATOM_RESOLVE;
                if (tbl.order[o].atom[i] & ATOM_RESOLVE)
                    resolved |= 1u << c;
                else
                    cr_assert(resolved & (1u << c), "order %d acts before it resolves", o);
            }
            together_atoms_text(tbl.order[o].atom, k, text, sizeof text);
            cr_assert_eq(together_atoms_parse(text, k, back), 0, "'%s' does not parse", text);
            cr_assert_eq(memcmp(back, tbl.order[o].atom, 2 * (size_t)k), 0, "'%s' parses to another order", text);
            cr_assert_eq(o < tbl.whole, strchr(text, 'r') == NULL, "'%s'", text);
        }
    }
}

Test(metis_together, bad_orders_refused)
{
    unsigned char a[TOGETHER_MAX_ATOMS];
    static const char *const bad[] = { "", "1", "1,1", "1,3", "r1,r1,2,1", "2,1,", "r2,1", "1,,2",
                                       "x,1", "r1,2" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(together_atoms_parse(bad[i], 2, a), -1, "'%s' accepted", bad[i]);
    cr_assert_eq(together_atoms_parse("r1,2,1", 2, a), 0);
}

Test(metis_together, label_sorts_the_calls_with_their_variants)
{
    struct together_set set = { .k = 3 };
    char label[200], err[128];
    cr_assert_eq(op_parse("rename path=/d0 path2=/d1 flags=0x0", &set.op[0], err, sizeof err), 0, "%s", err);
    cr_assert_eq(op_parse("create_file path=/f0 flags=0x42 mode=0644", &set.op[1], err, sizeof err), 0, "%s", err);
    cr_assert_eq(op_parse("unlink path=/f0", &set.op[2], err, sizeof err), 0, "%s", err);
    together_label(&set, label, sizeof label);
    cr_assert_str_eq(label, "create_file+rename/plain+unlink");
}
