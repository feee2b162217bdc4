/* Between two searches of one run: moves the finished search's log, discrepancies and saved states into search-N/. */
#include "restart.h"
#include "tree/tree.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* What one search writes for itself; everything else in the run directory belongs to the run. */
static int is_search_file(const char *name)
{
    return !strcmp(name, "log.txt") || !strcmp(name, "pan.out") || !strcmp(name, "states") ||
           (!strncmp(name, "discrepancy-", 12) && strstr(name, ".txt"));
}

static int move_into(const char *out, const char *dir, const char *name, char *err, size_t len)
{
    char from[4600], to[4600];
    snprintf(from, sizeof from, "%s/%s", out, name);
    snprintf(to, sizeof to, "%s/%s", dir, name);
    if (rename(from, to) == 0 || errno == ENOENT)
        return 0;
    snprintf(err, len, "%s: cannot move it to %s: %s", from, dir, strerror(errno));
    return -1;
}

struct archive {
    const char *out, *dir;
    char *err;
    size_t errlen;
};

/* 1 (the archiving stops, err says why) when the search's file name cannot be moved. */
static int archive_one(void *ctx, const char *name)
{
    struct archive *a = ctx;
    return is_search_file(name) && move_into(a->out, a->dir, name, a->err, a->errlen) ? 1 : 0;
}

int search_archive(const char *out, int index, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/search-%d", out, index);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct archive a = { out, dir, err, errlen };
    int rc = tree_dir_names(out, archive_one, &a);
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
    return rc ? -1 : 0;
}
