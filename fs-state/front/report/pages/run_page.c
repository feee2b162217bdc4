/* The report.html of one run directory: header, plots, reach, coverage, discrepancies. */
#include "run_page.h"
#include "front/report/sections/charts.h"
#include "front/report/sections/disc_list.h"
#include "front/report/html/html.h"
#include "front/report/runfiles/series.h"
#include "front/report/html/svg.h"
#include "lib/system/helpers.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CONFIG_SHOWN_BYTES 65536

struct status_info { const char *name; int code; const char *cls; };

static const struct status_info STATUSES[] = {
    { "ok", 0, "status-ok" },
    { "discrepancy", 1, "status-bad" },
    { "infrastructure-failure", 3, "status-warn" },
    { "interrupted", 130, "status-warn" },
};

static const struct status_info *status_of(const char *name)
{
    for (size_t i = 0; i < sizeof STATUSES / sizeof *STATUSES; i++)
        if (!strcmp(STATUSES[i].name, name))
            return &STATUSES[i];
    return NULL;
}

static void kv_row(FILE *f, const char *key)
{
    fputs("<tr><th>", f);
    html_esc(f, key);
    fputs("</th><td>", f);
}

static void kv_num(FILE *f, const char *key, json_object *s, const char *member)
{
    if (!rj_get(s, member))
        return;
    kv_row(f, key);
    html_num(f, rj_num(s, member, 0));
    fputs("</td></tr>\n", f);
}

static void join_array(FILE *f, json_object *a)
{
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        if (i)
            fputs(", ", f);
        html_esc(f, rj_value_text(json_object_array_get_idx(a, i)));
    }
}

/* A member shown whatever its type: "searches" and "seeds" may be numbers, lists or objects. */
static void kv_any(FILE *f, const char *key, json_object *s, const char *member)
{
    json_object *v = rj_get(s, member);
    if (!v)
        return;
    kv_row(f, key);
    if (json_object_is_type(v, json_type_array))
        join_array(f, v);
    else
        html_esc(f, rj_value_text(v));
    fputs("</td></tr>\n", f);
}

static void status_row(FILE *f, json_object *s)
{
    const char *name = rj_str(s, "status", "unknown");
    const struct status_info *st = status_of(name);
    kv_row(f, "exit status");
    fprintf(f, "<span class=\"%s\">", st ? st->cls : "status-warn");
    html_esc(f, name);
    if (st)
        fprintf(f, " (exit %d)", st->code);
    fputs("</span>", f);
    const char *why = rj_str(s, "reason", "");
    if (why[0] && strcmp(why, name)) {
        fputs(": ", f);
        html_esc(f, why);
    }
    fputs("</td></tr>\n", f);
}

static void files_row(FILE *f, const char *dir)
{
    static const char *const names[] = { "summary.json", "log.txt", "reach.txt", "coverage.txt",
                                         "config.ini", REPORT_SAMPLES_FILE, "pan.out" };
    char path[PATH_MAX + 64];
    struct stat st;
    kv_row(f, "files");
    for (size_t i = 0, shown = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st))
            continue;
        fputs(shown++ ? " · " : "", f);
        html_link(f, names[i], names[i]);
    }
    fputs("</td></tr>\n", f);
}

/* Without a summary, the log's run and fs records still say what was compared. */
static void log_header(FILE *f, const char *dir)
{
    char path[PATH_MAX + 16], line[1024];
    snprintf(path, sizeof path, "%s/log.txt", dir);
    FILE *log = fopen(path, "r");
    for (int n = 0; log && n < 64 && fgets(line, sizeof line, log); n++) {
        if (!strncmp(line, "op ", 3))
            break;
        if (strncmp(line, "run ", 4) && strncmp(line, "fs ", 3))
            continue;
        kv_row(f, "from the log");
        fputs("<span class=\"mono\">", f);
        html_esc(f, line);
        fputs("</span></td></tr>\n", f);
    }
    if (log)
        fclose(log);
}

/* search = bounded: what it verified, or how far it got (summary.json's bounded.verdict). */
static void bounded_row(FILE *f, json_object *s)
{
    json_object *b = rj_get(s, "bounded");
    if (!b)
        return;
    kv_row(f, "bounded verification");
    fprintf(f, "<span class=\"%s\">", rj_true(b, "verified") ? "status-ok" : "status-warn");
    html_esc(f, rj_str(b, "verdict", ""));
    fputs("</span></td></tr>\n", f);
}

static void header(FILE *f, const char *dir, json_object *s)
{
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    fputs("<h1>Metis run ", f);
    html_esc(f, base);
    fputs("</h1>\n<table class=\"kv\">\n", f);
    if (!s) {
        fputs("<tr><th>summary</th><td class=\"status-warn\">no summary.json: the run did not "
              "finish; what follows comes from its log</td></tr>\n", f);
        log_header(f, dir);
    }
    kv_any(f, "config", s, "config");
    kv_any(f, "file systems", s, "fs");
    kv_any(f, rj_get(s, "seeds") ? "seeds" : "seed", s, rj_get(s, "seeds") ? "seeds" : "seed");
    kv_any(f, "run id", s, "run_id");
    if (rj_get(s, "seconds")) {
        kv_row(f, "duration");
        double secs = rj_num(s, "seconds", 0);
        html_escf(f, secs >= 10 ? "%.0f s" : "%.2g s", secs);
        fputs("</td></tr>\n", f);
    }
    if (s)
        status_row(f, s);
    bounded_row(f, s);
    kv_num(f, "operations", s, "ops");
    kv_num(f, "states", s, "states");
    kv_any(f, "searches", s, "searches");
    kv_num(f, "ops/s", s, "ops_per_s");
    kv_num(f, "matched", s, "matched");
    kv_num(f, "restores", s, "restores");
    kv_num(f, "max depth", s, "max_depth");
    kv_num(f, "discrepancies", s, "discrepancies");
    kv_num(f, "peak RSS (KiB)", s, "peak_rss_kib");
    files_row(f, dir);
    fputs("</table>\n", f);
}

static void figure(FILE *f, const char *caption, const struct line_plot *p)
{
    fputs("<figure><figcaption>", f);
    html_esc(f, caption);
    fputs("</figcaption>\n", f);
    svg_line_plot(f, p);
    fputs("</figure>\n", f);
}

static void sample_plots(FILE *f, const struct samples *sm)
{
    struct series ops = {0}, states = {0}, by_ops = {0};
    if (samples_derive(sm, &ops, &states, &by_ops) == 0) {
        figure(f, "operations per second", &(struct line_plot){ "time (s)", "ops/s", ops.x,
                                                                 ops.y, ops.n });
        figure(f, "new states per second", &(struct line_plot){ "time (s)", "new states/s",
                                                                 states.x, states.y, states.n });
        figure(f, "states over operations", &(struct line_plot){ "operations", "states",
                                                                  by_ops.x, by_ops.y, by_ops.n });
    }
    series_free(&ops);
    series_free(&states);
    series_free(&by_ops);
}

/* Without samples.csv there is no time axis; the log still gives states over operations. */
static void log_plots(FILE *f, const char *dir)
{
    char path[PATH_MAX + 16];
    struct series by_ops = {0};
    snprintf(path, sizeof path, "%s/log.txt", dir);
    log_states_by_ops(path, &by_ops);
    struct line_plot none = { "time (s)", "", NULL, NULL, 0 };
    figure(f, "operations per second (needs samples.csv)", &none);
    figure(f, "new states per second (needs samples.csv)", &none);
    figure(f, "distinct abstract states over operations (from log.txt)",
           &(struct line_plot){ "operations", "states", by_ops.x, by_ops.y, by_ops.n });
    series_free(&by_ops);
}

static void plots(FILE *f, const char *dir)
{
    char path[PATH_MAX + 16];
    struct samples sm = {0};
    snprintf(path, sizeof path, "%s/%s", dir, REPORT_SAMPLES_FILE);
    fputs("<h2 id=\"progress\">Progress</h2>\n<div class=\"plots\">\n", f);
    if (samples_read(path, &sm) == 0 && sm.n > 0)
        sample_plots(f, &sm);
    else
        log_plots(f, dir);
    fputs("</div>\n", f);
    samples_free(&sm);
}

static void time_table(FILE *f, json_object *s)
{
    static const char *const cols[] = { "restore_mount", "operation", "abstract", "unmount_save" };
    json_object *t = rj_get(s, "time_per_op_us");
    if (!t || !json_object_is_type(t, json_type_object))
        return;
    fputs("<h2 id=\"time\">Time per operation (µs)</h2>\n<table class=\"grid\"><tr>"
          "<th>file system</th><th class=\"n\">restore + mount</th><th class=\"n\">operation</th>"
          "<th class=\"n\">abstract state</th><th class=\"n\">unmount + save</th>"
          "<th class=\"n\">held bytes</th></tr>\n", f);
    json_object_object_foreach(t, fs, v) {
        fputs("<tr><td>", f);
        html_esc(f, fs);
        fputs("</td>", f);
        for (int k = 0; k < 4; k++) {
            fputs("<td class=\"n\">", f);
            html_num(f, rj_num(v, cols[k], 0));
            fputs("</td>", f);
        }
        fputs("<td class=\"n\">", f);
        html_num(f, rj_num(v, "held_bytes", 0));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void config_text(FILE *f, const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    char *buf = read_text_file(path, CONFIG_SHOWN_BYTES);
    if (buf) {
        fputs("<h2 id=\"config\">Config as run</h2>\n<details><summary>config.ini</summary><pre>", f);
        html_esc(f, buf);
        fputs("</pre></details>\n", f);
    }
    free(buf);
}

static void nav(FILE *f)
{
    fputs("<nav><a href=\"#discrepancies\">discrepancies</a><a href=\"#progress\">progress</a>"
          "<a href=\"#reach\">reach</a><a href=\"#coverage\">coverage</a>"
          "<a href=\"#time\">time per operation</a><a href=\"#config\">config</a></nav>\n", f);
}

/* Discrepancies come first: when there are any, they are what the reader came for. */
void run_page(FILE *f, const char *dir, json_object *summary)
{
    struct run_loc loc = { dir, "" };
    header(f, dir, summary);
    nav(f);
    disc_section(f, &loc, summary);
    plots(f, dir);
    reach_section(f, summary);
    coverage_section(f, summary);
    time_table(f, summary);
    config_text(f, dir);
}
