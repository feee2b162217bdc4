/* JUnit XML of a run or a swarm (--junit FILE): one test suite per run or VT, a test case per discrepancy class and one for the run itself. */
#ifndef METIS_JUNIT_H
#define METIS_JUNIT_H

#include <stddef.h>

struct junit_suite {
    const char *name;           /* "CONFIG" for a run, "CONFIG vt-I" for a VT */
    const char *config;         /* the config's name: the test cases' class name */
    const char *dir;            /* the run directory: its summary.json */
    const char *error;          /* NULL, or why the run itself failed ("infrastructure failure") */
    const char *log;            /* with error: the log whose last lines go with it */
    const char *host;           /* "" when not known */
};

/* Writes path: a <testsuites> with one <testsuite> per entry of s. A class marked known in
 * its summary.json is a skipped test case (its note the message), any other a failure; the
 * test case "run" has an error when s[i].error is set. 0, or -1 with err. */
int junit_write(const char *path, const struct junit_suite *s, int n, char *err, size_t errlen);

#endif
