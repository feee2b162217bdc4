/* Unit tests of the run's time-series writer (fs-state/engine/sampler.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/records/sampler.h"

static char smp_dir[64];

static void smp_setup(void)
{
    snprintf(smp_dir, sizeof smp_dir, "/tmp/metis-sampler-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(smp_dir));
}

static void smp_teardown(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", smp_dir, REPORT_SAMPLES_FILE);
    unlink(path);
    rmdir(smp_dir);
}

static int smp_lines(char lines[][128], int max)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", smp_dir, REPORT_SAMPLES_FILE);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    int n = 0;
    while (n < max && fgets(lines[n], 128, f)) {
        lines[n][strcspn(lines[n], "\n")] = '\0';
        n++;
    }
    fclose(f);
    return n;
}

TestSuite(report_sampler, .init = smp_setup, .fini = smp_teardown);

Test(report_sampler, one_line_per_second_then_the_final_counters)
{
    struct report_sampler s;
    char lines[16][128];
    cr_assert_eq(report_sampler_open(&s, smp_dir), 0);
    for (int k = 0; k <= 25; k++) {      /* every 0.1 s for 2.5 s: due at 0, 1 and 2 */
        struct report_sample v = { k * 0.1, (uint64_t)k * 10, k * 2.0, k * 8.0, (uint64_t)k, 0 };
        report_sampler_tick(&s, &v);
    }
    struct report_sample end = { 2.55, 260, 51, 208, 25, 1 };
    report_sampler_close(&s, &end);
    cr_assert_null(s.f);
    int n = smp_lines(lines, 16);
    cr_assert_eq(n, 5, "header, 3 ticks and the final line; got %d lines", n);
    cr_assert_str_eq(lines[0], REPORT_SAMPLES_HEADER);
    cr_assert_str_eq(lines[1], "0.000,0,0,0,0,0");
    cr_assert_str_eq(lines[2], "1.000,100,20,80,10,0");
    cr_assert_str_eq(lines[3], "2.000,200,40,160,20,0");
    cr_assert_str_eq(lines[4], "2.550,260,51,208,25,1");
}

Test(report_sampler, a_missing_directory_leaves_the_sampler_idle)
{
    struct report_sampler s;
    struct report_sample v = { 0 };
    cr_assert_eq(report_sampler_open(&s, "/nonexistent/metis-sampler"), -1);
    report_sampler_tick(&s, &v);         /* no crash, nothing written */
    report_sampler_close(&s, &v);
}
