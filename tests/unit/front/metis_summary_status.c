/* Unit tests of marking a run's summary.json interrupted when the signal came between two searches. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/cli/runs/summary_status.h"
#include "lib/system/helpers.h"

static char dir[] = "/tmp/metis-unit-summary.XXXXXX";

static void put_summary(const char *text)
{
    char path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static char *got_summary(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return read_text_file(path, 1 << 20);
}

static void remove_dir(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(summary_status, a_restarting_search_summary_becomes_interrupted_and_keeps_the_rest)
{
    put_summary("{\"status\":\"ok\",\"reason\":\"search \\\",\\\"config\\\": limit\","
                "\"config\":\"a.ini\",\"ops\":1000,\"searches\":2}\n");
    cr_assert_eq(summary_mark_interrupted(dir, "Interrupt"), 0);
    char *s = got_summary();
    cr_assert_str_eq(s, "{\"status\":\"interrupted\",\"reason\":\"Interrupt\","
                        "\"config\":\"a.ini\",\"ops\":1000,\"searches\":2}\n");
    free(s);
    remove_dir();
}

Test(summary_status, a_file_that_is_not_a_summary_is_left_alone)
{
    put_summary("[1,2]\n");
    cr_assert_eq(summary_mark_interrupted(dir, "Interrupt"), -1);
    char *s = got_summary();
    cr_assert_str_eq(s, "[1,2]\n");
    free(s);
    remove_dir();
    cr_assert_eq(summary_mark_interrupted("/nonexistent-metis-dir", "Terminated"), -1);
}
