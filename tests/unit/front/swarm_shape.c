/* Unit tests of the swarm's search shapes (one per VT, from the swarm seed) and of the merge that names the VT that found a class first. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/cli/runs/model.h"
#include "front/cli/options/runopts.h"
#include "front/cli/options/search_shape.h"
#include "front/swarm/swarm.h"

/* Any SHAPE_COUNT consecutive VTs of any swarm run every shape, VT 0 the plain one. */
Test(swarm_shape, every_shape_within_eight_consecutive_vts)
{
    cr_assert_eq(SHAPE_COUNT, 8);
    for (uint64_t seed = 0; seed < 300; seed++) {
        cr_assert_eq(search_shape_of(seed, 0), SHAPE_PLAIN, "swarm seed %llu",
                     (unsigned long long)seed);
        for (int first = 0; first < 40; first++) {
            int seen[SHAPE_COUNT] = { 0 };
            for (int vt = first; vt < first + SHAPE_COUNT; vt++)
                seen[search_shape_of(seed, vt)]++;
            for (int k = 0; k < SHAPE_COUNT; k++)
                cr_assert_eq(seen[k], 1, "swarm seed %llu, VTs %d..%d: shape %s %d times",
                             (unsigned long long)seed, first, first + SHAPE_COUNT - 1,
                             search_shape_get(k)->name, seen[k]);
        }
    }
}

/* The order of the shapes depends on the swarm seed, so that swarms pair them with other SPIN
 * options; the same seed and VT always give the same shape and options. */
Test(swarm_shape, drawn_from_the_seed_and_reproducible)
{
    int differs = 0;
    for (uint64_t seed = 1; seed < 50; seed++)
        for (int vt = 0; vt < SHAPE_COUNT; vt++)
            differs += search_shape_of(seed, vt) != search_shape_of(0, vt);
    cr_expect(differs > 0, "every swarm seed orders the shapes alike");
    for (int vt = 0; vt < 20; vt++) {
        struct search_opts a, b;
        uint64_t ia, ib;
        char da[256], db[256], want[64];
        swarm_diversify(42, vt, &a, &ia);
        swarm_diversify(42, vt, &b, &ib);
        search_opts_describe(&a, 0, da, sizeof da);
        search_opts_describe(&b, 0, db, sizeof db);
        cr_expect_str_eq(da, db);
        cr_expect_eq(ia, ib);
        cr_expect_eq(a.shape, (int)search_shape_of(42, vt));
        snprintf(want, sizeof want, " shape=%s", search_shape_get(a.shape)->name);
        cr_expect(strstr(da, want), "VT %d: '%s' does not name %s", vt, da, want);
    }
}

static struct run_config swarm_shape_run(void)
{
    struct run_config r;
    memset(&r, 0, sizeof r);
    snprintf(r.search, sizeof r.search, "dfs");
    r.max_depth = 10000;
    r.dive = 7;
    r.search_ops = 5;
    return r;
}

Test(swarm_shape, applied_to_a_runs_config)
{
    struct run_config r = swarm_shape_run();
    search_shape_apply(SHAPE_PLAIN, &r);
    cr_expect(!strcmp(r.search, "dfs") && r.max_depth == 10000 && r.dive == 7 &&
              r.search_ops == 5, "the plain shape changed the config");
    search_shape_apply(SHAPE_RANDOM, &r);
    cr_expect_str_eq(r.search, "random");
    r = swarm_shape_run();
    search_shape_apply(SHAPE_DIVE30, &r);
    cr_expect_eq(r.dive, 30);
    search_shape_apply(SHAPE_DEPTH200, &r);
    cr_expect_eq(r.max_depth, 200);
    r.max_depth = 50;            /* a shallower config keeps its own bound */
    search_shape_apply(SHAPE_DEPTH1000, &r);
    cr_expect_eq(r.max_depth, 50);
    search_shape_apply(SHAPE_OPS1000, &r);
    cr_expect_eq(r.search_ops, 1000);
    cr_expect_eq(r.dive, 30, "a shape changed what it does not name");
    cr_expect_str_eq(search_shape_get(SHAPE_COUNT)->name, "plain");
}

/* ---- the VT that found a class first ---- */

static const char *swarm_shape_summary(double first_s)
{
    static char json[512];
    char at[48] = "";
    if (first_s >= 0)
        snprintf(at, sizeof at, "\"first_s\":%.3f,", first_s);
    snprintf(json, sizeof json, "{\"classes\":[{\"class\":1,\"signature\":\"mkdir bad state "
             "mode\",\"fs\":\"bad\",\"hits\":2,\"first_op\":9,%s\"detail\":\"discrepancy-1.txt\"}]}",
             at);
    return json;
}

/* The classes JSON of VTs 0, 1, 2 found after first_s[vt] seconds (< 0: not recorded). */
static char *swarm_shape_merge(const double first_s[3])
{
    static struct swarm s;
    char *text = NULL;
    size_t len = 0;
    memset(&s, 0, sizeof s);
    s.o.swarm_seed = 3;
    swarm_classes_reset();
    for (int vt = 0; vt < 3; vt++)
        cr_assert_eq(swarm_classes_add_vt(swarm_shape_summary(first_s[vt]), vt, NULL, NULL), 1);
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    swarm_classes_json(&s, f);
    swarm_classes_text(&s, f);
    fclose(f);
    swarm_classes_reset();
    return text;
}

static void swarm_shape_expect_first(const double first_s[3], int vt, const char *after)
{
    char json[64], text[160];
    char *out = swarm_shape_merge(first_s);
    snprintf(json, sizeof json, "\"first\":{\"vt\":%d,", vt);
    snprintf(text, sizeof text, "first found by VT %d%s (shape %s) at op 9, vt-%d/", vt, after,
             search_shape_get(search_shape_of(3, vt))->name, vt);
    cr_expect(strstr(out, json), "no %s in %s", json, out);
    cr_expect(strstr(out, text), "no '%s' in %s", text, out);
    cr_expect(strstr(out, "\"hits\":6,\"vts\":[0,1,2]"), "hits or VTs lost: %s", out);
    free(out);
}

Test(swarm_shape, merge_names_the_vt_that_found_a_class_first)
{
    swarm_shape_expect_first((double[]){ 5, 2.5, 9 }, 1, " after 2.50 s");
    swarm_shape_expect_first((double[]){ 4, 4, 4 }, 0, " after 4.00 s");    /* ties: lowest */
    swarm_shape_expect_first((double[]){ -1, 7, 3 }, 2, " after 3.00 s");   /* unknown is later */
    swarm_shape_expect_first((double[]){ -1, -1, -1 }, 0, "");            /* an older Metis */
    char *out = swarm_shape_merge((double[]){ -1, -1, -1 });
    cr_expect(strstr(out, "\"seconds\":null,"), "unknown time not null: %s", out);
    free(out);
}
