/* report.html: tells a run directory from a swarm directory and writes the page atomically. */
#include "report_html.h"
#include "front/report/html/html.h"
#include "front/json/json_reader.h"
#include "run_page.h"
#include "swarm_page.h"
#include "tree/tree.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum dir_kind { DIR_NONE, DIR_RUN, DIR_SWARM };

static int has_file(const char *dir, const char *name)
{
    char path[2 * PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* A swarm's summary.json has its id and VT list; a run's has a run id, or there is at least a
 * log (a run that ended before writing its summary). */
static enum dir_kind kind_of(const char *dir, json_object *summary)
{
    if (rj_get(summary, "swarm_id") && rj_get(summary, "vt"))
        return DIR_SWARM;
    if (rj_get(summary, "run_id") || rj_get(summary, "reach"))
        return DIR_RUN;
    return !summary && has_file(dir, "log.txt") ? DIR_RUN : DIR_NONE;
}

static void write_page(FILE *f, const char *dir, enum dir_kind kind, json_object *summary)
{
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    char title[PATH_MAX + 32];
    snprintf(title, sizeof title, "Metis %s %s", kind == DIR_SWARM ? "swarm" : "run", base);
    html_page_begin(f, title);
    if (kind == DIR_SWARM)
        swarm_page(f, dir, summary);
    else
        run_page(f, dir, summary);
    html_page_end(f);
}

static int write_atomically(const char *dir, enum dir_kind kind, json_object *summary,
                            char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64], path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, REPORT_HTML_FILE);
    snprintf(tmp, sizeof tmp, "%s/.%s.%d", dir, REPORT_HTML_FILE, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return REPORT_WRITE_FAILED;
    }
    write_page(f, dir, kind, summary);
    int bad = ferror(f);
    if (fclose(f) || bad || rename(tmp, path)) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return REPORT_WRITE_FAILED;
    }
    return 0;
}

static int build_dir(const char *dir, char *err, size_t errlen);

/* A swarm page links every VT's own report: make those that are missing first. */
static int build_vt_report(void *dir, const char *name)
{
    char vdir[PATH_MAX + 300], err[256];
    snprintf(vdir, sizeof vdir, "%s/%s", (const char *)dir, name);
    if (strncmp(name, "vt-", 3) == 0 && !has_file(vdir, REPORT_HTML_FILE))
        build_dir(vdir, err, sizeof err);
    return 0;
}

static void build_vt_reports(const char *dir)
{
    tree_dir_names(dir, build_vt_report, (void *)dir);
}

int report_html_build(const char *dir, char *err, size_t errlen)
{
    return build_dir(dir, err, errlen);
}

static int build_dir(const char *dir, char *err, size_t errlen)
{
    char abs[PATH_MAX], path[PATH_MAX + 32];
    struct stat st;
    if (!realpath(dir, abs) || stat(abs, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return REPORT_NOT_A_RUN;
    }
    snprintf(path, sizeof path, "%s/summary.json", abs);
    json_object *summary = rj_load(path);
    enum dir_kind kind = kind_of(abs, summary);
    int rc = REPORT_NOT_A_RUN;
    if (kind == DIR_NONE)
        snprintf(err, errlen, "%s: not a run or swarm directory (no usable summary.json or "
                 "log.txt)", dir);
    else {
        if (kind == DIR_SWARM)
            build_vt_reports(abs);
        rc = write_atomically(abs, kind, summary, err, errlen);
    }
    json_object_put(summary);
    return rc;
}
