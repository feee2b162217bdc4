/* Not a test: names every skipped unit test and its reason when the run ends (Criterion only counts skips). */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/options.h>
#include <stdio.h>

/* Why test t did not run, or NULL when it ran or --filter left it out (that is no skip). */
static const char *skip_reason(const struct criterion_test_stats *t)
{
    if (t->test_status != CR_STATUS_SKIPPED)
        return NULL;
    if (t->test->data->disabled)
        return criterion_options.pattern ? NULL : "disabled in its source";
    return t->message && *t->message ? t->message : "(no reason given)";
}

/* One "unit: skipped SUITE/TEST: REASON" line per skip, which tests/run-unit.sh holds to the
 * allow-list; the count line comes even when it is 0, so that its absence shows a lost hook. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    size_t n = 0;
    for (struct criterion_suite_stats *s = stats->suites; s; s = s->next)
        for (struct criterion_test_stats *t = s->tests; t; t = t->next) {
            const char *why = skip_reason(t);
            if (!why)
                continue;
            fprintf(stderr, "unit: skipped %s/%s: %s\n", t->test->category, t->test->name, why);
            n++;
        }
    fprintf(stderr, "unit: %zu skipped\n", n);
}
