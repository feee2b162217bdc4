/* Crash-check modes and per-format crash facts (journal, checker): a leaf table like fsinfo.c. */
#include "engine/vocab/crash_modes.h"
#include "engine/vocab/fsinfo.h"
#include <stdio.h>
#include <string.h>

static const char *const mode_names[] = { "off", "fsync", "syncfs", "any" };
static const char *const states_names[] = { "copy", "flushes", "stream" };

/* The index of s among n names, or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    for (int m = 0; m < n; m++)
        if (strcmp(s, names[m]) == 0)
            return m;
    return -1;
}

int crash_mode_parse(const char *s)
{
    return name_index(mode_names, (int)(sizeof mode_names / sizeof mode_names[0]), s);
}

const char *crash_mode_name(enum crash_mode m)
{
    return (unsigned)m < sizeof mode_names / sizeof mode_names[0] ? mode_names[m] : "?";
}

int crash_states_parse(const char *s)
{
    return name_index(states_names, (int)(sizeof states_names / sizeof states_names[0]), s);
}

const char *crash_states_name(enum crash_states s)
{
    return (unsigned)s < sizeof states_names / sizeof states_names[0] ? states_names[s] : "?";
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

const char *crash_lie_record(int lie)
{
    return lie == 1 ? "on lie" : lie == 2 ? "on early" : "on";
}

int crash_data_op(const char *op)
{
    static const char *const data_ops[] = { "write_file", "truncate", "fallocate_file",
                                            "copy_range", "create_file", "open_unlink" };
    for (size_t k = 0; k < sizeof data_ops / sizeof *data_ops; k++)
        if (strcmp(op, data_ops[k]) == 0)
            return 1;
    return 0;
}
