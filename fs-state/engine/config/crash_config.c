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
static const char *fs_problem(enum crash_mode mode, int stream, const struct fs_config *fs)
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
    if (mode != CRASH_ANY && stream == CRASH_STATES_COPY)
        return NULL;
    uint64_t size = fs->size ? fs->size : fs_format_default_size(fs->fstype);
    int any = stream == CRASH_STATES_COPY;
    if (!crash_checker(fs->fstype))
        return any ? "crash = any needs a checker, and Metis knows none for this fstype: set crash = 0 "
                     "here or use fsync or syncfs"
                   : "crash_states = flushes or stream needs a checker, and Metis knows none for "
                     "this fstype: set crash = 0 here or crash_states = copy";
    if (!crash_format_journals(fs->fstype, size) && strcmp(fs->fstype, "ext2") == 0)
        return any ? "crash = any needs a journal and ext2 has none: use fsync or syncfs, or crash = 0 here"
                   : "crash_states = flushes or stream needs a journal and ext2 has none: use "
                     "crash_states = copy, or crash = 0 here";
    if (!crash_format_journals(fs->fstype, size))
        return any ? "crash = any needs a journal and mkfs makes this fstype without one below 2 MiB: "
                     "grow size to 2M or more"
                   : "crash_states = flushes or stream needs a journal and mkfs makes this fstype "
                     "without one below 2 MiB: grow size to 2M or more";
    return NULL;
}

int crash_config_problem(const struct metis_config *cfg, int *fs, char *msg, size_t len)
{
    int mode = crash_mode_parse(cfg->run.crash), stream = crash_states_parse(cfg->run.crash_states);
    if (mode <= CRASH_OFF)
        return 0;
    for (int i = 0; i < cfg->nfs; i++) {
        const char *why = fs_problem(mode, stream, &cfg->fs[i]);
        if (!why && stream != CRASH_STATES_COPY && cfg->run.faults > 0 &&
            crash_applies_mode(mode, &cfg->fs[i]))
            why = "crash_states = flushes or stream and faults do not go together: both use the "
                  "fs's faulty device (its recording and its faults)";
        if (why) {
            *fs = i;
            snprintf(msg, len, "%s", why);
            return -1;
        }
    }
    return 0;
}
