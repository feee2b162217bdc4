/* Small helpers of the swarm: spawning with redirections (spawner.h), files, shell quoting. */
#include "swarm_util.h"
#include "lib/system/spawner.h"
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* in/out/err: file names, NULL to inherit; "&2" (out or err) is our stderr. own_group: the
 * child leads its own process group, so that the terminal's signals reach only us and we decide
 * what the child gets. argv[0] is searched in PATH. */
pid_t swarm_spawn(char *const argv[], const char *in, const char *out, const char *err,
                  int own_group)
{
    int out_to_err = out && !strcmp(out, "&2");
    struct spawn_how how = { .in = in, .out = out_to_err ? NULL : out,
                             .err = err && strcmp(err, "&2") ? err : NULL,
                             .flags = SPAWN_SEARCH_PATH | (own_group ? SPAWN_OWN_GROUP : 0) |
                                      (out_to_err ? SPAWN_OUT_TO_ERR : 0) };
    pid_t pid = spawn_start(argv, &how);
    if (pid < 0)
        fprintf(stderr, "metis swarm: cannot run %s: %s\n", argv[0], strerror(errno));
    return pid;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int swarm_rm_rf(const char *path)
{
    if (access(path, F_OK) != 0)
        return 0;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* 'text' with each ' written as '\'' : safe for any POSIX shell. */
void swarm_shell_quote(const char *s, char *out, size_t len)
{
    size_t n = 0;
    if (len < 3) {
        if (len)
            out[0] = '\0';
        return;
    }
    out[n++] = '\'';
    for (; *s && n + 6 < len; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
}

/* A directory name for a sshlogin: readable part plus a hash, since "ssh -p 2 a" and
 * "ssh_-p_2_a" must not share a directory. */
void swarm_host_tag(const char *login, char *out, size_t len)
{
    uint32_t h = 2166136261u;
    char readable[48];
    size_t n = 0;
    for (const char *p = login; *p; p++) {
        h = (h ^ (unsigned char)*p) * 16777619u;
        if (n + 1 < sizeof readable) {
            int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '@';
            readable[n++] = ok ? *p : '_';
        }
    }
    readable[n] = '\0';
    snprintf(out, len, "%s-%08x", n ? readable : "local", h);
}

double swarm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

void swarm_self_exe(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
}
