/* Host checks of a loaded config: what only the machine can tell (mkfs in PATH, the kernel knows the fstype, /dev/fuse, the output directory). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/config/config.h"
#include "engine/config/config_keys.h"
#include "lib/system/spawner.h"
#include "lib/system/fusectl.h"

/* Looks for an executable in PATH and the sbin directories root's PATH usually has. */
static bool find_program(const char *prog)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/sbin:/usr/sbin:/usr/local/sbin", env ? env : "");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char p[4352];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", *d ? d : ".", prog);
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0)
            return true;
    }
    return false;
}

static bool proc_filesystems_lists(const char *fstype)
{
    FILE *f = fopen("/proc/filesystems", "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *name = strrchr(line, '\t');
        name = name ? name + 1 : line;
        name[strcspn(name, "\n")] = '\0';
        found = strcmp(name, fstype) == 0;
    }
    fclose(f);
    return found;
}

/* modprobe -n (dry run) succeeds when the module exists or is built in. */
static bool modprobe_can_load(const char *module)
{
    char *argv[] = { "modprobe", "-n", "-q", (char *)module, NULL };
    struct spawn_how how = { .flags = SPAWN_SEARCH_PATH | SPAWN_QUIET };
    pid_t pid = spawn_start(argv, &how);
    return pid > 0 && spawn_wait(pid) == 0;
}

static bool kernel_knows(const char *fstype)
{
    char alias[64];
    snprintf(alias, sizeof alias, "fs-%s", fstype);
    return proc_filesystems_lists(fstype) || modprobe_can_load(fstype) ||
           modprobe_can_load(alias);
}

/* " (Debian package P: apt-get install P)" for a program Metis knows the provider of. */
static void package_hint(const char *program, char *out, size_t len)
{
    const char *pkg = fs_program_package(program);
    if (pkg)
        snprintf(out, len, " (Debian package %s: apt-get install %s)", pkg, pkg);
    else
        out[0] = '\0';
}

/* The mkfs an fs with an image needs: in PATH, or the message naming its package. */
static int validate_mkfs(const struct metis_config *cfg, const struct fs_config *fs, char *err,
                         size_t errlen)
{
    char mkfs[64], pkg[160];
    snprintf(mkfs, sizeof mkfs, "mkfs.%s", fs->fstype);
    if (fs_format_devless(fs->fstype) || find_program(mkfs))
        return 0;
    package_hint(mkfs, pkg, sizeof pkg);
    return snprintf(err, errlen, "%s:%d: [fs %s]: %s is not in PATH, /sbin or /usr/sbin%s",
                    cfg->path, fs->fstype_line ? fs->fstype_line : fs->line, fs->name, mkfs,
                    pkg), -1;
}

/* A FUSE mount command whose program Metis knows the package of, and which is not installed:
 * the package named before any set-up (an unknown program is left to the shell). */
static int validate_mount_program(const struct metis_config *cfg, const struct fs_config *fs,
                                  char *err, size_t errlen)
{
    char prog[256], pkg[160];
    if (sscanf(fs->mount_cmd, "%255s", prog) != 1 || !fs_program_package(prog) ||
        find_program(prog))
        return 0;
    package_hint(prog, pkg, sizeof pkg);
    return snprintf(err, errlen, "%s:%d: [fs %s]: mount_cmd runs %s, which is not in PATH, /sbin "
                    "or /usr/sbin%s", cfg->path, fs->line, fs->name, prog, pkg), -1;
}

/* An image-backed FUSE fs (size, an fstype, no {dir}) is made with mkfs.FSTYPE. */
static int validate_fuse_fs(const struct metis_config *cfg, const struct fs_config *fs,
                            char *err, size_t errlen)
{
    if (fs->fstype[0] && fs->size > 0 && !strstr(fs->mount_cmd, "{dir") &&
        validate_mkfs(cfg, fs, err, errlen) < 0)
        return -1;
    return validate_mount_program(cfg, fs, err, errlen);
}

static int validate_kernel_fs(const struct metis_config *cfg, const struct fs_config *fs,
                              char *err, size_t errlen)
{
    char a[32], b[32];
    int tline = fs->fstype_line ? fs->fstype_line : fs->line;
    int sline = fs->size_line ? fs->size_line : fs->line;
    if (validate_mkfs(cfg, fs, err, errlen) < 0)
        return -1;
    if (!kernel_knows(fs->fstype))
        return snprintf(err, errlen, "%s:%d: [fs %s]: the kernel does not know %s "
                        "(not in /proc/filesystems, and modprobe cannot load it)",
                        cfg->path, tline, fs->name, fs->fstype), -1;
    const struct fs_format *fmt = fs_format_of(fs->fstype);
    uint64_t min = fmt ? fmt->min_size : 0;
    if (fs->size && fs->size < min)
        return snprintf(err, errlen, "%s:%d: [fs %s]: size %s is below the smallest %s (%s)",
                        cfg->path, sline, fs->name, config_fmt_bytes(fs->size, a, sizeof a),
                        fs->fstype, config_fmt_bytes(min, b, sizeof b)), -1;
    bool mixed = fs_mkfs_opts_mixed(fs->mkfs_opts);
    if (strcmp(fs->fstype, "btrfs") == 0 && !mixed && fs->size && fs->size < FS_BTRFS_UNMIXED_MIN)
        return snprintf(err, errlen, "%s:%d: [fs %s]: btrfs below %s needs mkfs_opts = -M",
                        cfg->path, sline, fs->name,
                        config_fmt_bytes(FS_BTRFS_UNMIXED_MIN, a, sizeof a)), -1;
    return 0;
}

/* Without fusectl a FUSE daemon blocked on its own mount cannot be aborted: its kill does not
 * end it, so a hang ends the run (exit 3) where it would be a class. */
static void warn_without_fusectl(const struct metis_config *cfg)
{
    int fuse = 0;
    for (int i = 0; i < cfg->nfs; i++)
        fuse |= cfg->fs[i].type != FS_KERNEL;
    if (fuse && !fusectl_mounted())
        fprintf(stderr, "metis: warning: fusectl is not mounted on " FUSECTL_DIR ", so a FUSE "
                "daemon that hangs on its own mount cannot be aborted and ends the run (mount -t "
                "fusectl fusectl " FUSECTL_DIR ")\n");
}

int config_validate(const struct metis_config *cfg, char *err, size_t errlen)
{
    warn_without_fusectl(cfg);
    for (int i = 0; i < cfg->nfs; i++) {
        const struct fs_config *fs = &cfg->fs[i];
        if (fs->type == FS_KERNEL && validate_kernel_fs(cfg, fs, err, errlen) < 0)
            return -1;
        if (fs->type == FS_FUSE && validate_fuse_fs(cfg, fs, err, errlen) < 0)
            return -1;
        if (fs->type != FS_KERNEL && access("/dev/fuse", R_OK | W_OK) != 0)
            return snprintf(err, errlen, "%s:%d: [fs %s]: /dev/fuse: %s", cfg->path, fs->line,
                            fs->name, strerror(errno)), -1;
    }
    struct stat sb;
    if (cfg->run.out[0] && stat(cfg->run.out, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return snprintf(err, errlen, "%s:%d: out: %s exists and is not a directory", cfg->path,
                        cfg->run.out_line, cfg->run.out), -1;
    return 0;
}
