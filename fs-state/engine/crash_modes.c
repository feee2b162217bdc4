/* Crash-check modes and per-format crash facts (journal, checker): a leaf table like fsinfo.c. */
#include "crash_modes.h"
#include "config.h"
#include <stdio.h>
#include <string.h>

static const char *const mode_names[] = { "off", "fsync", "syncfs", "any" };

int crash_mode_parse(const char *s)
{
    for (int m = 0; m < (int)(sizeof mode_names / sizeof mode_names[0]); m++)
        if (strcmp(s, mode_names[m]) == 0)
            return m;
    return -1;
}

const char *crash_mode_name(enum crash_mode m)
{
    return (unsigned)m < sizeof mode_names / sizeof mode_names[0] ? mode_names[m] : "?";
}

const char *crash_kind_name(unsigned kinds)
{
    return kinds & CRASH_LOST ? "differs" : kinds & CRASH_MOUNT ? "mount"
         : kinds & CRASH_FSCK ? "fsck" : "same";
}

int crash_kind_parse(const char *s)
{
    static const struct { const char *name; int kind; } kinds[] = {
        { "same", 0 }, { "differs", CRASH_LOST }, { "mount", CRASH_MOUNT }, { "fsck", CRASH_FSCK },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s, kinds[i].name) == 0)
            return kinds[i].kind;
    return -1;
}

/* Read-only checks: -n answers no to every repair; xfs_repair needs -f for a file, and
 * force_geometry for a fs of one allocation group (16 MiB), whose geometry it cannot cross-check.
 * ntfs and exfat are image-backed FUSE formats: only fault steps check them (crash checks are
 * for kernel fs). */
static const struct { const char *fstype, *checker; } checkers[] = {
    { "ext2", "e2fsck -fn" }, { "ext3", "e2fsck -fn" }, { "ext4", "e2fsck -fn" },
    { "xfs", "xfs_repair -n -f -o force_geometry" }, { "btrfs", "btrfs check --readonly" },
    { "ntfs", "ntfsfix -n" }, { "exfat", "fsck.exfat -n" },
};

const char *crash_checker(const char *fstype)
{
    for (size_t i = 0; i < sizeof checkers / sizeof checkers[0]; i++)
        if (strcmp(checkers[i].fstype, fstype) == 0)
            return checkers[i].checker;
    return NULL;
}

int crash_format_journals(const char *fstype, uint64_t size)
{
    if (strcmp(fstype, "ext2") == 0)
        return 0;
    if (strcmp(fstype, "ext3") == 0 || strcmp(fstype, "ext4") == 0)
        return size >= CRASH_EXT4_JOURNAL_MIN;
    return 1;
}

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
