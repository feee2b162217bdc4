/* The triage's plumbing: a replay or reproducer run under the triage's limits, a file's last line, a text file written whole. */
#include "triage_io.h"
#include "backend/backend.h"
#include "lib/system/spawner.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int triage_run_child(const struct triage *t, char *const argv[], const char *log, double deadline)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct spawn_how how = { .out_fd = fd, .flags = SPAWN_OWN_GROUP };
    pid_t pid = spawn_start(argv, &how);
    if (pid < 0) {
        dprintf(fd >= 0 ? fd : 2, "metis: cannot run %s: %s\n", argv[0], strerror(errno));
        if (fd >= 0)
            close(fd);
        return SPAWN_CANNOT_RUN;
    }
    if (fd >= 0)
        close(fd);
    *t->child = pid;
    struct spawn_limits lim = { .deadline = deadline, .grace = TRIAGE_GRACE_SECONDS, .stop = t->stop };
    int rc = spawn_wait_limited(pid, &lim);
    *t->child = 0;
    backend_sweep(t->run_id);
    return rc;
}

void triage_last_line(const char *file, const char *prefix, char *out, size_t len)
{
    char line[1024];
    FILE *f = fopen(file, "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (!prefix || strncmp(line, prefix, strlen(prefix)) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, len, "%.*s", (int)len - 1, line + (prefix ? strlen(prefix) : 0));
        }
    if (f)
        fclose(f);
}

int triage_write_text(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fputs(text, f);
    if (fclose(f) == 0 && rename(tmp, path) == 0)
        return 0;
    unlink(tmp);
    return -1;
}
