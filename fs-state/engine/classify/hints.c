/* Known kernel and FUSE behaviours as hint rules: each matches a discrepancy's operation, kinds and first difference. */
#include "engine/classify/hints.h"
#include "engine/vocab/differs.h"
#include "engine/vocab/features.h"
#include "lib/text/errnos.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The two modes of a mode difference; 0 when the difference is not one of modes. */
static int mode_pair(const struct hint_case *c, unsigned *ref, unsigned *got)
{
    char *end1, *end2;
    if (!c->d || c->d->attr != TREE_DIFF_MODE)
        return 0;
    *ref = (unsigned)strtoul(c->d->ref, &end1, 8);
    *got = (unsigned)strtoul(c->d->other, &end2, 8);
    return *end1 == '\0' && *end2 == '\0' && end1 != c->d->ref && end2 != c->d->other;
}

static int op_is(const struct hint_case *c, enum op_id op)
{
    return c->a && c->a->op == op;
}

/* RefFS always asks for default_permissions; a fuse fs only when its mount command says so. */
static int fuse_without_default_permissions(const struct fs_config *f)
{
    return f->type == FS_FUSE && !strstr(f->mount_cmd, "default_permissions");
}

static const char *sticky_on_chown(const struct hint_case *c)
{
    unsigned r, g;
    if (!(op_is(c, OP_chown_file) || op_is(c, OP_chgrp_file) || op_is(c, OP_chmod)) ||
        !mode_pair(c, &r, &g) || !((r ^ g) & S_ISVTX))
        return NULL;
    if (!fuse_without_default_permissions(&c->cfg->fs[c->fs]) &&
        !fuse_without_default_permissions(&c->cfg->fs[0]))
        return NULL;
    return "Known FUSE behaviour: without -o default_permissions the FUSE kernel module keeps "
           "no sticky bit in its cached mode, so the mode it sends when a chown clears "
           "setuid/setgid (or for chown(f, -1, -1)) lacks S_ISVTX; mount with "
           "default_permissions to tell this apart from a defect.";
}

static const char *chown_clears_suid(const struct hint_case *c)
{
    unsigned r, g;
    if (!(op_is(c, OP_chown_file) || op_is(c, OP_chgrp_file)) || !mode_pair(c, &r, &g) ||
        !((r ^ g) & (S_ISUID | S_ISGID)))
        return NULL;
    return "Known Linux behaviour: a chown by root of a regular file clears setuid, and setgid "
           "when group-execute is set, even when no owner changes; a file system that leaves "
           "them (or clears them otherwise) differs here.";
}

static const char *mkdir_setgid_argument(const struct hint_case *c)
{
    unsigned r, g;
    if (!op_is(c, OP_mkdir) || !(c->a->mode & S_ISGID) || !mode_pair(c, &r, &g) ||
        (r ^ g) != S_ISGID || !(g & S_ISGID))
        return NULL;
    return "Known Linux behaviour: mkdir ignores S_ISGID in its mode argument (a directory "
           "gets it only from a setgid parent); this file system kept it.";
}

static const char *fuse_mkdir_write_bits(const struct hint_case *c)
{
    unsigned r, g;
    if (!(op_is(c, OP_mkdir) || op_is(c, OP_create_file)) ||
        c->cfg->fs[c->fs].type != FS_FUSE || !mode_pair(c, &r, &g) || g != (r & ~022u))
        return NULL;
    return "Known FUSE findings: some FUSE drivers clear the group and other write bits of a "
           "new directory whatever the umask (fuse2fs of e2fsprogs 1.47.0 does; fixed after "
           "it), and a daemon that applies the umask of the shell that started it masks a "
           "mode the kernel has already masked.";
}

static const char *removexattr_absent(const struct hint_case *c)
{
    if (!op_is(c, OP_removexattr) || c->ref.err != ENODATA || c->res.ret != 0)
        return NULL;
    return "Known FUSE finding: fuse2fs of e2fsprogs 1.47.0 returns 0 for removexattr of an "
           "attribute the file does not have, where the ext4 kernel driver returns ENODATA.";
}

static int errnos_are(const struct hint_case *c, int a, int b)
{
    return (c->ref.err == a && c->res.err == b) || (c->ref.err == b && c->res.err == a);
}

static const char *posix_errno_choice(const struct hint_case *c)
{
    if (!(c->kinds & DIFF_ERRNO))
        return NULL;
    if ((op_is(c, OP_rmdir) || op_is(c, OP_rename)) && errnos_are(c, EEXIST, ENOTEMPTY))
        return "POSIX lets a non-empty directory fail with EEXIST where Linux gives ENOTEMPTY; "
               "errno_equiv = EEXIST:ENOTEMPTY on this fs accepts it.";
    if (op_is(c, OP_unlink) && errnos_are(c, EPERM, EISDIR))
        return "POSIX has unlink of a directory fail with EPERM where Linux gives EISDIR; "
               "errno_equiv = EPERM:EISDIR on this fs accepts it.";
    return NULL;
}

static int is_tmpfs(const struct fs_config *f)
{
    return f->type == FS_KERNEL && strcmp(f->fstype, "tmpfs") == 0;
}

/* Only when the tmpfs side's root has that mode: a cryfs root that keeps 0700 against a tmpfs
 * mounted mode=0755 is the other fs's doing. */
static const char *tmpfs_root_mode(const struct hint_case *c)
{
    unsigned r, g;
    if (!mode_pair(c, &r, &g) || strcmp(c->d->entry, "/") != 0)
        return NULL;
    if (!(is_tmpfs(&c->cfg->fs[c->fs]) && g == 01777) && !(is_tmpfs(&c->cfg->fs[0]) && r == 01777))
        return NULL;
    return "Known tmpfs behaviour: its root directory has mode 1777 unless it is mounted with "
           "mode=0755.";
}

/* A refusal that says "not here": EOPNOTSUPP or ENOSYS of any operation with a lacks word,
 * EPERM of one (what FAT-like daemons answer for chown, link, symlink, mknod), EINVAL of a
 * variant's word only (a flag or mode it does not know: fallocate's mode, rename's flag,
 * mknod's type; EINVAL of setxattr says nothing of xattrs as such). */
static int refuses(int e, const char *word)
{
    return e == EOPNOTSUPP || e == ENOSYS || e == EPERM || (e == EINVAL && strchr(word, ':'));
}

const char *hints_lacks_word(const struct hint_case *c)
{
    int e = c->res.err;
    if (!c->a || e == 0 || c->ref.err == e)
        return NULL;
    /* Whatever the reference answered (0, ENODATA, EEXIST): a target that refuses a family
     * refuses it in every state, and one declaration covers every such class. */
    const char *word = features_word_for(c->a->op, op_variant_find(c->a->op, (unsigned)c->a->flags));
    return word && refuses(e, word) ? word : NULL;
}

void hints_lacks_family(const char *word, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(word, ":"), word);
}

static const char *lacks_declaration(const struct hint_case *c)
{
    static _Thread_local char text[320];
    const char *word = hints_lacks_word(c);
    if (!word)
        return NULL;
    snprintf(text, sizeof text, "The file system refused with %s (the reference answered %s); "
             "if it lacks this by design, declare it in [fs %s]: lacks = %s (configs/README.md, "
             "\"Declared feature sets\"), so that it is never drawn.", errno_name(c->res.err),
             errno_name(c->ref.err), c->cfg->fs[c->fs].name, word);
    return text;
}

/* Each rule with the cause it names: a short id that stays the same from run to run (a known
 * file's group record names it) and a title for the group's line. The order is the hints'
 * order, and the first rule that matches names a class's cause. */
struct hint_rule {
    const char *cause, *title;
    const char *(*match)(const struct hint_case *);
};

static const struct hint_rule rules[] = {
    { "fuse-sticky-without-default-permissions",
      "the FUSE kernel module keeps no sticky bit without default_permissions", sticky_on_chown },
    { "chown-clears-setid", "a chown by root clears setuid and setgid", chown_clears_suid },
    { "mkdir-ignores-setgid", "mkdir ignores S_ISGID in its mode argument",
      mkdir_setgid_argument },
    { "fuse-new-entry-write-bits", "a FUSE driver clears write bits of a new entry's mode",
      fuse_mkdir_write_bits },
    { "removexattr-absent-returns-0", "removexattr of an absent attribute returns 0",
      removexattr_absent },
    { "posix-errno-choice", "an errno POSIX lets a file system choose", posix_errno_choice },
    { "tmpfs-root-mode", "tmpfs's root mode 1777", tmpfs_root_mode },
    { "lacks", "a refused feature the file system may lack by design", lacks_declaration },
};

#define NRULES (sizeof rules / sizeof rules[0])

int hints_find(const struct hint_case *c, char *out, size_t len)
{
    size_t used = 0;
    int n = 0;
    for (size_t k = 0; k < NRULES; k++) {
        const char *h = rules[k].match(c);
        if (!h || used >= len)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", n ? " " : "", h);
        n++;
    }
    return n;
}

const char *hints_cause(const struct hint_case *c, char *id, size_t len)
{
    id[0] = '\0';
    for (size_t k = 0; k < NRULES; k++) {
        if (!rules[k].match(c))
            continue;
        char family[64] = "";
        if (rules[k].match == lacks_declaration)
            hints_lacks_family(hints_lacks_word(c), family, sizeof family);
        /* a refusal's cause is its operation family, whatever the flag: lacks:fallocate */
        snprintf(id, len, "%s%s%s", rules[k].cause, family[0] ? ":" : "", family);
        return rules[k].title;
    }
    return NULL;
}
