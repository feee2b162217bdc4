/* Between two searches of one run: moves the finished search's log, discrepancies and saved states into search-N/. */
#define _XOPEN_SOURCE 700       /* nftw */
#include "restart.h"
#include "tree/tree.h"
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

/* A search-N/ there before search N ended is an earlier run's (the --out reused): its saved
 * states would block the move of this search's (rename(2) onto a non-empty directory). */
static int clear_stale(const char *dir, char *err, size_t errlen)
{
    if (access(dir, F_OK) != 0 || nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0)
        return 0;
    snprintf(err, errlen, "%s: an earlier run's, cannot remove it: %s", dir, strerror(errno));
    return -1;
}

int search_archive(const char *out, int index, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/search-%d", out, index);
    if (clear_stale(dir, err, errlen) < 0)
        return -1;
    if (mkdir(dir, 0755) < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct archive a = { out, dir, err, errlen };
    int rc = tree_dir_names(out, archive_one, &a);
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
    return rc ? -1 : 0;
}
