/* The tables of backend types and of on-disk formats every module reads (config, backends, replayer). */
#include "engine/vocab/fsinfo.h"
#include <stdio.h>
#include <string.h>

#define KiB 1024ULL
#define MiB (1024ULL * KiB)

static const char *const type_names[FS_NTYPES] = { "kernel", "reffs", "fuse" };

const char *fs_type_name(enum fs_type t)
{
    return (unsigned)t < FS_NTYPES ? type_names[t] : "?";
}

int fs_type_by_name(const char *name)
{
    for (int t = 0; t < FS_NTYPES; t++)
        if (strcmp(type_names[t], name) == 0)
            return t;
    return -1;
}

const char *fs_type_list(void)
{
    return "kernel, reffs or fuse";
}

/* Smallest devices the tools make here: mkfs.ext3 adds a journal from 2 MiB (ext3 cannot
 * mount without one), mkfs.ext4 drops its journal below that, mkfs.xfs needs the fstests
 * variables below 300 MiB, mkfs.btrfs needs -M below 109 MiB, mkfs.f2fs 1.15 refuses 50 MiB
 * and crashes below; mkfs.ntfs (ntfs-3g 2022.10.3) refuses 1 MiB, mkfs.exfat (exfatprogs 1.2.0)
 * refuses 2 MiB. The last two have no kernel driver here: they are images for FUSE targets. */
static const struct fs_format formats[] = {
    { "ext2", 256 * KiB, "-q -F", "", "lost+found", "", 0 },
    { "ext3", 2 * MiB, "-q -F", "", "lost+found", "", 0 },
    { "ext4", 256 * KiB, "-q -F", "", "lost+found", "", 0 },
    { "xfs", 16 * MiB, "-q -f", "TEST_DIR=/tmp TEST_DEV=/dev/null QA_CHECK_FS=xfs ", "", "", 0 },
    { "btrfs", 16 * MiB, "-q -f", "", "",
      "directories have st_nlink 1: set ignore = dir_nlink on every fs of the run", 0 },
    { "f2fs", 52 * MiB, "-q -f", "", "", "", 0 },
    /* No device: the size is the tmpfs's (overlay: that of the tmpfs its layers live on); the
     * default is RefFS's, any size mounts. */
    { "tmpfs", 256 * KiB, "", "", "", "", 1 },
    { "overlay", 256 * KiB, "", "", "",
      "a merged directory (the root among them) has st_nlink 1: set ignore = dir_nlink on "
      "every fs of the run", 1 },
    { "ntfs", 1100 * KiB, "-q -F -f", "", "", "", 0 },
    { "exfat", 3 * MiB, "", "", "", "", 0 },
};

const struct fs_format *fs_format_of(const char *fstype)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].fstype, fstype) == 0)
            return &formats[i];
    return NULL;
}

uint64_t fs_format_default_size(const char *fstype)
{
    const struct fs_format *f = fs_format_of(fstype);
    return f ? f->min_size : 16 * MiB;
}

int fs_format_devless(const char *fstype)
{
    const struct fs_format *f = fs_format_of(fstype);
    return f && f->devless;
}

const char *fs_format_view_opts(const char *fstype)
{
    if (strcmp(fstype, "xfs") == 0)
        return "nouuid,norecovery";
    return fs_format_settles_by_journal(fstype) ? "noload" : "";
}

int fs_format_settles_by_journal(const char *fstype)
{
    return strcmp(fstype, "ext4") == 0 || strcmp(fstype, "ext3") == 0;
}

int fs_logs_own_calls(enum fs_type t, const char *fstype)
{
    return t == FS_KERNEL && fs_format_devless(fstype);
}

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

int fs_mkfs_opts_mixed(const char *opts)
{
    return has_word(opts, "-M") || has_word(opts, "--mixed");
}

int fs_format_mkfs_command(const char *fstype, uint64_t size, const char *opts,
                           const char *image, char *cmd, size_t len)
{
    const struct fs_format *f = fs_format_of(fstype);
    const char *flags = f ? f->mkfs_flags : "", *env = f ? f->mkfs_env : "";
    const char *mixed = strcmp(fstype, "btrfs") == 0 && size < (1ULL << 30) &&
                        !fs_mkfs_opts_mixed(opts) ? " -M" : "";
    return snprintf(cmd, len, "%smkfs.%s %s%s %s %s", env, fstype, flags, mixed, opts, image);
}

/* Checked on Debian 12 with dpkg -S where installed, else by the package's description. */
static const struct { const char *program, *package; } providers[] = {
    { "mkfs.vfat", "dosfstools" }, { "mkfs.fat", "dosfstools" }, { "mkfs.msdos", "dosfstools" },
    { "mkfs.exfat", "exfatprogs" }, { "mkfs.ntfs", "ntfs-3g" }, { "mkfs.f2fs", "f2fs-tools" },
    { "mkfs.btrfs", "btrfs-progs" }, { "mkfs.ext2", "e2fsprogs" }, { "mkfs.ext3", "e2fsprogs" },
    { "mkfs.ext4", "e2fsprogs" }, { "mkfs.xfs", "xfsprogs" }, { "mkfs.minix", "util-linux" },
    { "mkfs.jfs", "jfsutils" }, { "mkfs.nilfs2", "nilfs-tools" }, { "mkfs.udf", "udftools" },
    { "mkfs.reiserfs", "reiserfsprogs" }, { "mkfs.erofs", "erofs-utils" },
    { "fusefat", "fusefat" }, { "fuse2fs", "fuse2fs" }, { "ntfs-3g", "ntfs-3g" },
    { "mount.exfat-fuse", "exfat-fuse" }, { "mount.posixovl", "fuse-posixovl" },
    { "bindfs", "bindfs" }, { "unionfs", "unionfs-fuse" }, { "fuse-overlayfs", "fuse-overlayfs" },
    { "squashfuse", "squashfuse" }, { "fuseiso", "fuseiso" }, { "archivemount", "archivemount" },
    { "encfs", "encfs" }, { "gocryptfs", "gocryptfs" }, { "securefs", "securefs" },
    { "cryfs", "cryfs" }, { "loggedfs", "loggedfs" }, { "disorderfs", "disorderfs" },
    { "mergerfs", "mergerfs" }, { "sshfs", "sshfs" }, { "fusermount3", "fuse3" },
};

const char *fs_program_package(const char *program)
{
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++)
        if (strcmp(providers[i].program, program) == 0)
            return providers[i].package;
    return NULL;
}
