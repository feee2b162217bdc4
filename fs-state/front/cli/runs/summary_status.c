/* Marks a run's summary.json interrupted when the stop signal came between two of its searches. */
#include "summary_status.h"
#include "lib/system/helpers.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_MAX (64u << 20)

/* The summary opens {"status":"…","reason":"…","config":…; the reason is JSON-escaped, so the
 * first ,"config": ends it. */
static const char *after_reason(const char *json)
{
    if (strncmp(json, "{\"status\":\"", 11))
        return NULL;
    const char *p = strstr(json, ",\"config\":");
    return p ? p + 1 : NULL;
}

static int write_over(const char *path, const char *head, const char *rest)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fputs(head, f);
    fputs(rest, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int summary_mark_interrupted(const char *out, const char *reason)
{
    char path[PATH_MAX + 16], head[600], why[400];
    snprintf(path, sizeof path, "%s/summary.json", out);
    char *json = read_text_file(path, SUMMARY_MAX);
    const char *rest = json ? after_reason(json) : NULL;
    json_escape(reason, why, sizeof why);
    snprintf(head, sizeof head, "{\"status\":\"interrupted\",\"reason\":\"%s\",", why);
    int rc = rest ? write_over(path, head, rest) : -1;
    free(json);
    return rc;
}
