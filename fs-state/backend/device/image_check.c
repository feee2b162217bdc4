/* The format's read-only checker run on an unmounted image file, its verdict and first finding. */
#include "backend/device/image_check.h"
#include "backend/base/common.h"

#include <stdio.h>
#include <string.h>

/* The first line of a checker's output that says something (not a banner or pass name). */
static void first_finding(const char *out, char *why, size_t len)
{
    static const char *const noise[] = { "e2fsck ", "Pass ", "Phase ", "        - ", "Opening ",
                                         "Checking ", "[", "No modify flag", "Warning: skipping" };
    const char *line = out, *pick = NULL;
    while (*line && !pick) {
        size_t n = strcspn(line, "\n"), k = 0;
        while (k < sizeof noise / sizeof noise[0] && strncmp(line, noise[k], strlen(noise[k])))
            k++;
        if (n > 0 && k == sizeof noise / sizeof noise[0])
            pick = line;
        line += n + (line[n] == '\n');
    }
    pick = pick ? pick : out;
    snprintf(why, len, "%.*s", (int)strcspn(pick, "\n"), pick);
}

int bk_image_check_text(double timeout, const char *checker, const char *path, char *why,
                        size_t len)
{
    char out[4096];
    int rc = run_cmd(timeout, out, sizeof out, "%s %s 2>&1", checker, path);
    if (rc == 0)
        return 0;
    if (rc < 0 || rc == SPAWN_TIMED_OUT || rc == SPAWN_NOT_EXECUTABLE || rc == SPAWN_CANNOT_RUN) {
        snprintf(why, len, "'%s %s' %s", checker, path,
                 rc == SPAWN_TIMED_OUT ? "timed out" : "could not run");
        return -1;
    }
    char finding[512];
    first_finding(out, finding, sizeof finding);
    snprintf(why, len, "'%s' exited with %d: %s", checker, rc, finding);
    return 1;
}

int bk_image_check(struct backend *b, const char *checker, const char *path, char *why,
                   size_t len)
{
    char text[700];
    int rc = bk_image_check_text(bk_setup_timeout(b), checker, path, text, sizeof text);
    if (rc < 0)
        return bk_err(b, "image check", "%s", text);
    if (rc > 0)
        snprintf(why, len, "%s", text);
    return rc;
}
