/* What a crash mode needs of the config: which file systems it checks, and why a config cannot have it. */
#include "engine/config/crash_config.h"
#include "engine/config/config_types.h"
#include "engine/vocab/crash_modes.h"
#include <stdio.h>
#include <string.h>

static int crash_applies_mode(int mode, const struct fs_config *fs)
{
    return mode > CRASH_OFF && fs->crash && fs->type == FS_KERNEL &&
           !fs_format_devless(fs->fstype);
}

int crash_applies(const struct metis_config *cfg, const struct fs_config *fs)
{
    return crash_applies_mode(crash_mode_parse(cfg->run.crash), fs);
}

/* A fs the mode cannot check, and why. */
static const char *fs_problem(enum crash_mode mode, const struct fs_config *fs)
{
    if (fs->type == FS_FUSE && fs->size && !fs->dir_backed && fs->crash)
        return "crash checks of fuse file systems are not implemented: set crash = 0 here";
    if (fs->type == FS_KERNEL && fs_format_devless(fs->fstype) && fs->crash)
        return "tmpfs and overlay have no device, so nothing of them survives a crash to be "
               "checked: set crash = 0 here";
    if (!crash_applies_mode(mode, fs))
        return NULL;
    if (!fs->remount)
        return "a crash check needs remount = 1: it mounts each step's copy once the fs is "
               "unmounted, and kept mounted (remount = 0) it is not";
    if (mode != CRASH_ANY)
        return NULL;
    uint64_t size = fs->size ? fs->size : fs_format_default_size(fs->fstype);
    if (!crash_checker(fs->fstype))
        return "crash = any needs a checker, and Metis knows none for this fstype: set crash = 0 "
               "here or use fsync or syncfs";
    if (!crash_format_journals(fs->fstype, size))
        return strcmp(fs->fstype, "ext2") == 0
            ? "crash = any needs a journal and ext2 has none: use fsync or syncfs, or crash = 0 here"
            : "crash = any needs a journal and mkfs makes this fstype without one below 2 MiB: "
              "grow size to 2M or more";
    return NULL;
}

int crash_config_problem(const struct metis_config *cfg, int *fs, char *msg, size_t len)
{
    int mode = crash_mode_parse(cfg->run.crash);
    if (mode <= CRASH_OFF)
        return 0;
    for (int i = 0; i < cfg->nfs; i++) {
        const char *why = fs_problem(mode, &cfg->fs[i]);
        if (why) {
            *fs = i;
            snprintf(msg, len, "%s", why);
            return -1;
        }
    }
    return 0;
}
