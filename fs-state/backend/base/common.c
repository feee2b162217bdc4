/* Helpers every backend type shares: error text, mount points and mount waits, the root fd, {mnt} substitution (lib/text/placeholders.h). */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

int bk_err(struct backend *b, const char *step, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->err, sizeof b->err, "fs %s: %s: %s", b->cfg->name, step, msg);
    return -1;
}

double bk_setup_timeout(const struct backend *b)
{
    return b->cfg->op_timeout > 30 ? b->cfg->op_timeout : 30;
}

int bk_walk(struct backend *b, const struct tree_opts *o, unsigned char *out, FILE *listing,
            struct tree_index *index)
{
    int n = tree_digest(b->rootfd, o, out, listing, index);
    if (n < 0)
        return bk_err(b, "read-back", "walking the tree failed: %s", strerror(errno));
    return n;
}

/* A listing's line in quotes, cut at 150 characters; "no entry there" past its end. */
static void bk_quote_line(const char *s, char *out, size_t outlen)
{
    int n = (int)strcspn(s, "\n");
    if (n == 0)
        snprintf(out, outlen, "no entry there");
    else
        snprintf(out, outlen, "'%.*s%s'", n > 150 ? 150 : n, s, n > 150 ? "..." : "");
}

void bk_first_difference(const char *a, const char *a_label, const char *b, const char *b_label,
                         char *out, size_t outlen)
{
    while (*a && *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0)
            break;
        a += la + (a[la] != 0);
        b += lb + (b[lb] != 0);
    }
    char ta[200], tb[200];
    bk_quote_line(a, ta, sizeof ta);
    bk_quote_line(b, tb, sizeof tb);
    snprintf(out, outlen, "%s %s, %s %s", a_label, ta, b_label, tb);
}

/* ---- mount points ---- */

/* Makes the run directory and the mount point (parents made by whoever shares them). */
int bk_make_mnt(struct backend *b)
{
    char dir[sizeof b->mnt];
    snprintf(dir, sizeof dir, "%s", b->mnt);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || (mkdir(b->mnt, 0755) < 0 && errno != EEXIST))
        return bk_err(b, "setup", "cannot make mount point %s: %s", b->mnt, strerror(errno));
    return 0;
}

/* Removes the mount point and the run directories if nothing else is left in them. */
void bk_remove_mnt(struct backend *b)
{
    char dir[sizeof b->mnt];
    rmdir(b->mnt);
    snprintf(dir, sizeof dir, "%s", b->mnt);
    *strrchr(dir, '/') = 0;
    rmdir(dir);
    snprintf(dir, sizeof dir, BK_SHM_DIR "/metis-%s", b->run_id);
    rmdir(dir);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_mountinfo(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
}

/* Calls fn on every mount point (field 5 of mountinfo); stops when fn returns non-zero. */
int bk_each_mount(int (*fn)(const char *mp, void *ctx), void *ctx)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], mp[4096];
    int rc = 0;
    if (!f)
        return -1;
    while (!rc && fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1) {
            unescape_mountinfo(mp);
            rc = fn(mp, ctx);
        }
    fclose(f);
    return rc;
}

/* 1 when the last mount at path in mountinfo (the one on top) is a FUSE mount (fuse, fuseblk,
 * fuse.NAME), 0 when it is of another type, -1 when nothing is mounted there. */
int bk_top_mount_is_fuse(const char *path)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], mp[4096];
    int top = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
            continue;
        unescape_mountinfo(mp);
        if (strcmp(mp, path) != 0)
            continue;
        const char *sep = strstr(line, " - ");
        top = sep && strncmp(sep + 3, "fuse", 4) == 0;
    }
    fclose(f);
    return top;
}

/* Here, not in backend.c, so that the restore code below the backends can ask it too. */
int backend_errno_of_dead_daemon(int err)
{
    return err == ENOTCONN || err == ECONNABORTED || err == ECONNREFUSED;
}

int bk_connection_dead(const char *mnt)
{
    struct statfs st;
    return statfs(mnt, &st) < 0 && backend_errno_of_dead_daemon(errno);
}

int bk_mount_dev(const char *path, unsigned *major, unsigned *minor)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[8192], mp[4096];
    int found = 0;
    if (!f)
        return -1;
    while (!found && fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %*s %u:%u %*s %4095s", major, minor, mp) == 3) {
            unescape_mountinfo(mp);
            found = strcmp(mp, path) == 0;
        }
    fclose(f);
    return found ? 0 : -1;
}

static int is_path(const char *mp, void *ctx)
{
    return strcmp(mp, ctx) == 0;
}

/* mountinfo rather than stat: stat of a FUSE mount whose daemon hangs would hang too. */
int bk_is_mounted(const char *path)
{
    return bk_each_mount(is_path, (void *)path) == 1;
}

int bk_drop_dev_cache(struct backend *b, const char *dev, const char *step)
{
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return bk_err(b, step, "open %s: %s", dev, strerror(errno));
    int rc = ioctl(fd, BLKFLSBUF, 0), e = errno;
    close(fd);
    return rc < 0 ? bk_err(b, step, "BLKFLSBUF on %s: %s", dev, strerror(e)) : 0;
}

int bk_wait_mounted(const char *path, int want, double timeout, pid_t *pid, int *status)
{
    double end = now_seconds() + timeout, pause = 50e-6;
    int st;
    for (;;) {
        if (bk_is_mounted(path) == want)
            return 0;
        if (*pid > 0 && waitpid(*pid, &st, WNOHANG) == *pid) {
            *pid = 0;
            *status = spawn_status(st);
            return bk_is_mounted(path) == want ? 0 : -1;
        }
        if (now_seconds() > end)
            return -1;
        bk_sleep(pause);
        if (pause < 5e-3)
            pause *= 2;
    }
}

int bk_unmount(const char *path, double timeout)
{
    double end = now_seconds() + timeout;
    for (;;) {
        if (umount2(path, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL || errno == ENOENT)
            return 0;
        if (errno != EBUSY || now_seconds() > end)
            break;
        bk_sleep(1e-3);
    }
    umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
    return -1;
}

/* ---- mount options ---- */

static const struct {
    const char *name;
    unsigned long set, clear;
} mount_flags[] = {
    { "ro", MS_RDONLY, 0 }, { "rw", 0, MS_RDONLY }, { "nosuid", MS_NOSUID, 0 },
    { "suid", 0, MS_NOSUID }, { "nodev", MS_NODEV, 0 }, { "dev", 0, MS_NODEV },
    { "noexec", MS_NOEXEC, 0 }, { "exec", 0, MS_NOEXEC }, { "sync", MS_SYNCHRONOUS, 0 },
    { "async", 0, MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC, 0 }, { "noatime", MS_NOATIME, 0 },
    { "atime", 0, MS_NOATIME }, { "nodiratime", MS_NODIRATIME, 0 },
    { "diratime", 0, MS_NODIRATIME }, { "relatime", MS_RELATIME, 0 },
    { "norelatime", 0, MS_RELATIME }, { "strictatime", MS_STRICTATIME, 0 },
    { "lazytime", MS_LAZYTIME, 0 }, { "nolazytime", 0, MS_LAZYTIME }, { "silent", MS_SILENT, 0 },
    { "loud", 0, MS_SILENT }, { "defaults", 0, 0 },
};

/* Splits "noatime,errors=remount-ro" into flags for mount(2) and the fs's own data string;
 * -1 when the data does not fit. The crash check mounts its copies with the same. */
int bk_mount_opts(const char *mount_opts, unsigned long *flags, char *data, size_t len)
{
    char opts[256], *save = NULL;
    size_t used = 0;
    snprintf(opts, sizeof opts, "%s", mount_opts);
    *flags = MS_SILENT;
    data[0] = 0;
    for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
        size_t i, n = sizeof mount_flags / sizeof mount_flags[0];
        for (i = 0; i < n && strcmp(o, mount_flags[i].name) != 0; i++)
            ;
        if (i < n) {
            *flags = (*flags | mount_flags[i].set) & ~mount_flags[i].clear;
            continue;
        }
        int k = snprintf(data + used, len - used, "%s%s", used ? "," : "", o);
        if (k < 0 || (size_t)k >= len - used)
            return -1;
        used += (size_t)k;
    }
    return 0;
}

/* ---- commands ---- */

void bk_bin_dir(char *out, size_t outlen)
{
    const char *env = getenv("METIS_BIN");
    char exe[PATH_MAX];
    ssize_t n;
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
    } else if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        exe[n] = 0;
        *strrchr(exe, '/') = 0;
        snprintf(out, outlen, "%s", exe);
    } else {
        snprintf(out, outlen, ".");
    }
}

void bk_program_path(const char *name, char *out, size_t outlen)
{
    char dir[PATH_MAX - 64];
    bk_bin_dir(dir, sizeof dir);
    snprintf(out, outlen, "%s/%s", dir, name);
    if (access(out, X_OK) != 0)
        snprintf(out, outlen, "%s", name);
}

struct subst_ctx {
    const struct backend *b;
    ph_lookup_fn more;
    void *more_ctx;
    char bin[PATH_MAX];
};

static const char *subst_lookup(void *ctx, const char *name)
{
    struct subst_ctx *c = ctx;
    const char *v = c->more ? c->more(c->more_ctx, name) : NULL;
    if (v)
        return v;
    if (strcmp(name, "mnt") == 0)
        return c->b->mnt;
    if (strcmp(name, "img") == 0)
        return c->b->image;
    return strcmp(name, "bin") == 0 ? c->bin : NULL;
}

int bk_subst_with(const struct backend *b, const char *tmpl, ph_lookup_fn more, void *ctx,
                  char *out, size_t outlen)
{
    struct subst_ctx c = { .b = b, .more = more, .more_ctx = ctx };
    bk_bin_dir(c.bin, sizeof c.bin);
    return ph_expand(tmpl, subst_lookup, &c, out, outlen);
}

int bk_subst(const struct backend *b, const char *tmpl, char *out, size_t outlen)
{
    return bk_subst_with(b, tmpl, NULL, NULL, out, outlen);
}

/* ---- root fd ---- */

int bk_open_root(struct backend *b)
{
    if (b->rootfd >= 0)
        return 0;
    b->rootfd = open(b->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (b->rootfd < 0)
        return bk_err(b, "begin", "cannot open %s: %s", b->mnt, strerror(errno));
    return 0;
}

void bk_close_root(struct backend *b)
{
    if (b->rootfd >= 0)
        close(b->rootfd);
    b->rootfd = -1;
}

int bk_populate_dir(struct backend *b, const char *dir)
{
    if (!b->populate_fn)
        return bk_err(b, "setup", "nothing provides the initial state's entries to put in %s",
                      dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return bk_err(b, "setup", "cannot open %s: %s", dir, strerror(errno));
    int rc = b->populate_fn(b->replay_ctx, fd);
    close(fd);
    if (rc < 0)
        return bk_err(b, "setup", "making the initial state's entries in %s failed", dir);
    b->populated = 1;
    return 0;
}

int bk_replay(struct backend *b, uint64_t from, uint64_t id)
{
    if (bk_open_root(b) < 0)
        return -1;
    int rc = b->replay_fn(b->replay_ctx, b, from, id);
    bk_close_root(b);
    if (rc < 0 && !b->err[0])
        bk_err(b, "restore", "replaying the operations to state %llu failed",
               (unsigned long long)id);
    return rc < 0 ? -1 : 0;
}

int bk_setup_failed(struct backend *b, void (*teardown)(struct backend *))
{
    char err[sizeof b->err];
    memcpy(err, b->err, sizeof err);
    teardown(b);
    memcpy(b->err, err, sizeof err);
    return -1;
}

void bk_log_tail(const char *path, char *out, size_t outlen)
{
    char line[512];
    FILE *f = fopen(path, "re");
    out[0] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n')
            snprintf(out, outlen, "%s", line);
    fclose(f);
    out[strcspn(out, "\n")] = 0;
}
