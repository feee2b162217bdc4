/* JUnit XML as Jenkins, GitLab and ant read it (tests/junit.xsd): a run's or a swarm's VTs' discrepancy classes as test cases. */
#include "junit.h"
#include "summary_classes.h"
#include "class_groups.h"
#include "front/json/json_reader.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_TAIL_LINES 20

/* Text as XML character data or an attribute value; other control characters than tab and
 * newline are not allowed in XML 1.0 and become '?'. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if (c < 0x20 && c != '\n' && c != '\t') fputc('?', f);
        else fputc(c, f);
    }
}

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    xml_text(f, value);
    fputc('"', f);
}

/* The last lines of a log file as the error's text. */
static void log_tail(FILE *f, const char *path)
{
    char *text = path ? read_text_file(path, 16 << 20) : NULL;
    if (!text) {
        fputs("(no log)", f);
        return;
    }
    const char *start = text + strlen(text);
    for (int lines = 0; start > text && lines <= LOG_TAIL_LINES; start--)
        lines += start[-1] == '\n';
    xml_text(f, start == text ? text : start + 1);
    free(text);
}

/* The test case's class name: its cause group's, so that a test view lists the classes of one
 * probable cause together ("metis.CONFIG.group.KEY"); "metis.CONFIG.classes" for a class of
 * no known cause. A dot would split the key where views split packages. */
static void class_name(const struct junit_suite *s, const struct run_class *c, char *out,
                       size_t len)
{
    size_t n = (size_t)snprintf(out, len, "metis.%s.", s->config);
    if (!class_has_cause(c) || n >= len) {
        snprintf(out + (n < len ? n : 0), len - (n < len ? n : 0), "classes");
        return;
    }
    snprintf(out + n, len - n, "group.%s", c->group);
    for (char *d = out + n; (d = strchr(d, '.'));)
        *d = '_';
}

static void class_case(FILE *f, const struct junit_suite *s, const struct run_class *c)
{
    char what[2000];
    fputs("    <testcase", f);
    attr(f, "name", c->signature);
    class_name(s, c, what, sizeof what);
    attr(f, "classname", what);
    fputs(" time=\"0\">\n", f);
    snprintf(what, sizeof what, "%.0f hits, first at operation %.0f (%s/%s)%s%s%s%s%s%s", c->hits,
             c->first_op, s->dir, c->detail, c->repro[0] ? "; reproducer " : "", c->repro,
             class_has_cause(c) ? "; group: " : "", class_has_cause(c) ? c->group : "",
             c->hint[0] ? "; hint: " : "", c->hint);
    if (c->known) {
        fputs("      <skipped", f);
        attr(f, "message", c->note[0] ? c->note : "known class");
        fputs("/>\n", f);
    } else {
        fputs("      <failure type=\"discrepancy\"", f);
        attr(f, "message", "new discrepancy class");
        fputs(">", f);
        xml_text(f, what);
        fputs("</failure>\n", f);
    }
    fputs("    </testcase>\n", f);
}

/* The classes' test cases, group by group. */
static void class_cases(FILE *f, const struct junit_suite *s, const struct run_class *v, int n)
{
    int *order = calloc((size_t)n + 1, sizeof *order);
    if (order)
        class_groups_order(v, n, order, NULL);
    for (int k = 0; k < n; k++)
        class_case(f, s, &v[order ? order[k] : k]);
    free(order);
}

static void run_case(FILE *f, const struct junit_suite *s, double seconds)
{
    char cls[600];
    snprintf(cls, sizeof cls, "metis.%s", s->config);
    fputs("    <testcase name=\"run\"", f);
    attr(f, "classname", cls);
    fprintf(f, " time=\"%.3f\">\n", seconds);
    if (s->error) {
        fputs("      <error type=\"run\"", f);
        attr(f, "message", s->error);
        fputs(">", f);
        log_tail(f, s->log);
        fputs("</error>\n", f);
    }
    fputs("    </testcase>\n", f);
}

static void property(FILE *f, const char *name, const char *value)
{
    fputs("      <property", f);
    attr(f, "name", name);
    attr(f, "value", value);
    fputs("/>\n", f);
}

static void properties(FILE *f, json_object *sum)
{
    static const char *const keys[] = { "config", "run_id", "seed", "ops", "states",
                                        "discrepancies", "discrepancy_classes",
                                        "discrepancy_groups", "status" };
    fputs("    <properties>\n", f);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        property(f, keys[i], rj_text(sum, keys[i]));
    /* search = bounded: what the run verified, its bounds and whether it got through them. */
    if (rj_get(sum, "bounded")) {
        property(f, "complete", rj_true(sum, "complete") ? "true" : "false");
        property(f, "bounded", rj_text(rj_get(sum, "bounded"), "verdict"));
    }
    fputs("    </properties>\n", f);
}

static void suite(FILE *f, const struct junit_suite *s, const char *stamp)
{
    char path[PATH_MAX + 32];
    struct run_class *v = NULL;
    snprintf(path, sizeof path, "%s/summary.json", s->dir);
    char *text = read_text_file(path, 64 << 20);
    json_object *sum = rj_parse(text);
    int n = classfile_parse(text, &v), skipped = 0;
    n = n < 0 ? 0 : n;
    for (int k = 0; k < n; k++)
        skipped += v[k].known;
    double seconds = rj_num(sum, "seconds", 0);
    fputs("  <testsuite", f);
    attr(f, "name", s->name);
    fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
            n + 1, n - skipped, s->error ? 1 : 0, skipped, seconds);
    attr(f, "timestamp", stamp);
    char host[256] = "localhost";
    if (s->host && s->host[0])
        snprintf(host, sizeof host, "%s", s->host);
    else
        gethostname(host, sizeof host - 1);
    attr(f, "hostname", host);
    fputs(">\n", f);
    properties(f, sum);
    run_case(f, s, seconds);
    class_cases(f, s, v, n);
    fputs("  </testsuite>\n", f);
    json_object_put(sum);
    free(v);
    free(text);
}

int junit_write(const char *path, const struct junit_suite *s, int n, char *err, size_t errlen)
{
    char stamp[32], tmp[PATH_MAX + 8];
    time_t t = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", localtime(&t));
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"metis\">\n", f);
    for (int i = 0; i < n; i++)
        suite(f, &s[i], stamp);
    fputs("</testsuites>\n", f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
