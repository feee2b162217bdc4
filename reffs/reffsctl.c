/* bin/reffsctl: saves, restores, discards, pickles and loads RefFS snapshots through the mount's ioctls. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "reffs_ioctl.h"

static const char *usage_text =
    "usage: reffsctl save|restore|discard MNT KEY\n"
    "       reffsctl pickle MNT KEY|all FILE\n"
    "       reffsctl load [--restore] MNT FILE\n"
    "       reffsctl stats MNT\n"
    "       reffsctl --version\n";

static int usage(const char *problem)
{
    fprintf(stderr, "reffsctl: %s (see reffsctl --help)\n", problem);
    return 2;
}

/* What one invocation is about, for its error messages. */
struct request {
    const char *verb;
    const char *mnt;
    const char *file;      /* pickle/load: as the user typed it */
    uint64_t key;
    int key_given;
};

/* Unsigned decimal only: no sign, spaces, junk or overflow. */
static int parse_key(const char *s, uint64_t *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* The daemon runs in / : hand it the file's canonical directory plus its own name. */
static int absolute_path(const char *file, char out[REFFS_IOC_PATH_MAX])
{
    char *a = strdup(file), *b = strdup(file);
    int ret = -1;
    if (!a || !b)
        goto out;
    char *base = basename(a);
    char dir[PATH_MAX];
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strcmp(base, "/") == 0) {
        errno = EISDIR;
        goto out;
    }
    if (!realpath(dirname(b), dir))
        goto out;
    int n = snprintf(out, REFFS_IOC_PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "", base);
    if (n < 0 || n >= REFFS_IOC_PATH_MAX) {
        errno = ENAMETOOLONG;
        goto out;
    }
    ret = 0;
out:
    free(a);
    free(b);
    return ret;
}

static int fail(const struct request *r, const char *what, const char *msg, int err)
{
    fprintf(stderr, "reffsctl: %s: %s: %s (%s)\n", r->verb, what, msg, strerrorname_np(err));
    return 1;
}

/* One line naming the operation, the thing at fault and the reason. */
static int report(const struct request *r, int err)
{
    const char *what = r->file ? r->file : r->mnt;
    switch (err) {
    case ENOTTY:
        return fail(r, r->mnt, "not a RefFS mount", err);
    case EBADMSG:
        return fail(r, what, "damaged pickle", err);
    case EDEADLK:
        return fail(r, what, "file lies inside the RefFS mount", err);
    case EINVAL:
        if (strcmp(r->verb, "load") == 0)
            return fail(r, what, "not a RefFS pickle or wrong version", err);
        break;
    case ENOENT:
        if (r->key_given) {
            fprintf(stderr, "reffsctl: %s: %s: no snapshot with key %" PRIu64 "\n", r->verb,
                    r->mnt, r->key);
            return 1;
        }
        if (strcmp(r->verb, "pickle") == 0)
            return fail(r, r->mnt, "no snapshots to pickle", err);
        break;
    }
    return fail(r, what, strerror(err), err);
}

static int open_mount(const struct request *r)
{
    int fd = open(r->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        fail(r, r->mnt, strerror(errno), errno);
    return fd;
}

static int do_ioctl(const struct request *r, unsigned long cmd, void *arg)
{
    int fd = open_mount(r);
    if (fd < 0)
        return 1;
    int ret = ioctl(fd, cmd, arg);
    int err = errno;
    close(fd);
    return ret < 0 ? report(r, err) : 0;
}

static int cmd_key(struct request *r, unsigned long cmd, int argc, char **argv)
{
    if (argc != 2)
        return usage("expected MNT KEY");
    r->mnt = argv[0];
    if (parse_key(argv[1], &r->key) < 0)
        return usage("KEY must be an unsigned 64-bit decimal number");
    r->key_given = 1;
    struct reffs_ioc_key k = { .key = r->key };
    return do_ioctl(r, cmd, &k);
}

static int fill_file(struct request *r, struct reffs_ioc_file *f, const char *file)
{
    r->file = file;
    if (absolute_path(file, f->path) < 0)
        return fail(r, file, strerror(errno), errno);
    return 0;
}

static int cmd_pickle(struct request *r, int argc, char **argv)
{
    if (argc != 3)
        return usage("expected MNT KEY|all FILE");
    r->mnt = argv[0];
    struct reffs_ioc_file f = { 0 };
    if (strcmp(argv[1], "all") == 0) {
        f.flags = REFFS_IOC_ALL;
    } else if (parse_key(argv[1], &r->key) == 0) {
        r->key_given = 1;
        f.key = r->key;
    } else {
        return usage("KEY must be an unsigned 64-bit decimal number or 'all'");
    }
    if (fill_file(r, &f, argv[2]))
        return 1;
    return do_ioctl(r, REFFS_IOC_PICKLE, &f);
}

static int cmd_load(struct request *r, int argc, char **argv)
{
    struct reffs_ioc_file f = { 0 };
    if (argc > 0 && strcmp(argv[0], "--restore") == 0) {
        f.flags = REFFS_IOC_RESTORE_AFTER;
        argc--, argv++;
    }
    if (argc != 2)
        return usage("expected [--restore] MNT FILE");
    r->mnt = argv[0];
    if (fill_file(r, &f, argv[1]))
        return 1;
    int ret = do_ioctl(r, REFFS_IOC_LOAD, &f);
    if (ret == 0)
        printf("%" PRIu64 "\n", f.key);
    return ret;
}

static int cmd_stats(struct request *r, int argc, char **argv)
{
    if (argc != 1)
        return usage("expected MNT");
    r->mnt = argv[0];
    struct reffs_ioc_stats s = { 0 };
    int ret = do_ioctl(r, REFFS_IOC_STATS, &s);
    if (ret == 0)
        printf("snapshots=%" PRIu64 " bytes=%" PRIu64 "\n", s.count, s.bytes);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage("missing command");
    struct request r = { .verb = argv[1] };
    int n = argc - 2;
    char **rest = argv + 2;
    if (strcmp(r.verb, "save") == 0)
        return cmd_key(&r, REFFS_IOC_SAVE, n, rest);
    if (strcmp(r.verb, "restore") == 0)
        return cmd_key(&r, REFFS_IOC_RESTORE, n, rest);
    if (strcmp(r.verb, "discard") == 0)
        return cmd_key(&r, REFFS_IOC_DISCARD, n, rest);
    if (strcmp(r.verb, "pickle") == 0)
        return cmd_pickle(&r, n, rest);
    if (strcmp(r.verb, "load") == 0)
        return cmd_load(&r, n, rest);
    if (strcmp(r.verb, "stats") == 0)
        return cmd_stats(&r, n, rest);
    if (strcmp(r.verb, "-h") == 0 || strcmp(r.verb, "--help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(r.verb, "--version") == 0) {
        printf("reffsctl %s\n", METIS_VERSION);
        return 0;
    }
    fprintf(stderr, "reffsctl: unknown command '%s' (see reffsctl --help)\n", r.verb);
    return 2;
}
