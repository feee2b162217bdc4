/* The roots made alike before a run: each target's root gets the reference's mode and owner, read back; what a target keeps or refuses goes to the reference instead, recorded for a class. */
#include "backend/logical/equalize_root.h"
#include "backend/base/backend_types.h"
#include "engine/config/config.h"
#include "tree/tree.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set-up messages are said once per run: a later search makes the same set-up again. */
static int quiet;

void equalize_quiet(int on)
{
    quiet = on;
}

void equalize_tell(const char *fmt, ...)
{
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* The attributes set-up makes alike: those no [fs] lacks leaves out of the state. A lacked one
 * is never set: a target that lacks owners may well refuse a chown of its root (ENOSYS). */
static unsigned root_attrs(const struct backend *b)
{
    unsigned ig = b->cfg->lacks_ignore;
    return (ig & TREE_IGNORE_MODE ? 0u : ROOT_ATTR_MODE) |
           (ig & TREE_IGNORE_OWNER ? 0u : ROOT_ATTR_OWNER);
}

/* A dead daemon's answers are its failure, not a refusal of the attribute. */
static int daemon_gone_errno(int err)
{
    return err == ENOTCONN || err == ECONNABORTED || err == ENODEV;
}

/* chown before chmod: a chown may clear set-id bits the mode then restores. Each attribute on
 * its own, so that one refused leaves the other set; *refused gets the refused ones, *err the
 * last errno. */
static unsigned set_root(int rootfd, unsigned attrs, const struct stat *want, int *err)
{
    unsigned refused = 0;
    if ((attrs & ROOT_ATTR_OWNER) && fchown(rootfd, want->st_uid, want->st_gid) < 0) {
        refused |= ROOT_ATTR_OWNER;
        *err = errno;
    }
    if ((attrs & ROOT_ATTR_MODE) && fchmod(rootfd, want->st_mode & 07777) < 0) {
        refused |= ROOT_ATTR_MODE;
        *err = errno;
    }
    return refused;
}

static int root_stat(struct backend *b, struct stat *st)
{
    if (b->ops->begin(b) < 0)
        return -1;
    int rc = fstat(b->rootfd, st);
    if (rc < 0)
        snprintf(b->err, sizeof b->err, "%s: reading the root's attributes: %s", b->cfg->name,
                 strerror(errno));
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

/* The attributes of attrs in which a and b differ. */
static unsigned root_differs(const struct stat *a, const struct stat *b, unsigned attrs)
{
    unsigned d = 0;
    if ((a->st_mode & 07777) != (b->st_mode & 07777))
        d |= ROOT_ATTR_MODE;
    if (a->st_uid != b->st_uid || a->st_gid != b->st_gid)
        d |= ROOT_ATTR_OWNER;
    return d & attrs;
}

static void note_root(struct free_counts *applied, const struct stat *st, unsigned attrs)
{
    applied->root_set = 1;
    applied->root_attrs |= attrs;
    applied->root_mode = st->st_mode & 07777;
    applied->root_uid = st->st_uid;
    applied->root_gid = st->st_gid;
}

/* Sets attrs of b's root to want's, then reads them back (after an end and a begin): a daemon
 * may answer a chmod of its root and keep its own mode all the same (cryfs). *refused: the
 * attributes the fs refused (errno in *err); a dead daemon's answer is a failure instead. */
static int set_root_checked(struct backend *b, unsigned attrs, const struct stat *want,
                            struct stat *got, unsigned *refused, int *err)
{
    if (b->ops->begin(b) < 0)
        return -1;
    *refused = set_root(b->rootfd, attrs, want, err);
    int failed = *refused && daemon_gone_errno(*err);
    if (failed)
        snprintf(b->err, sizeof b->err, "%s: setting the root's attributes: %s", b->cfg->name,
                 strerror(*err));
    if (b->ops->end(b) < 0 || failed)
        return -1;
    return root_stat(b, got);
}

/* "mode 0700", "owner 0:0", "mode 0700 and owner 0:0": attrs of st. */
static void attrs_text(unsigned attrs, const struct stat *st, char *out, size_t len)
{
    char mode[32] = "", owner[48] = "";
    if (attrs & ROOT_ATTR_MODE)
        snprintf(mode, sizeof mode, "mode %04o", (unsigned)(st->st_mode & 07777));
    if (attrs & ROOT_ATTR_OWNER)
        snprintf(owner, sizeof owner, "owner %u:%u", (unsigned)st->st_uid,
                 (unsigned)st->st_gid);
    snprintf(out, len, "%s%s%s", mode, mode[0] && owner[0] ? " and " : "", owner);
}

/* The `lacks` words that declare attrs: "modes", "owners", "owners,modes". */
static const char *lacks_words(unsigned attrs)
{
    return attrs == ROOT_ATTR_MODE ? "modes" : attrs == ROOT_ATTR_OWNER ? "owners" : "owners,modes";
}

/* What set-up adapts to, said exactly, as it is done. */
static void tell_adapted(const struct backend *b, const struct stat *ref, const struct stat *now,
                         const struct root_adapt *a)
{
    char kept[96], was[96], refused[96], theirs[96];
    if (a->kept) {
        attrs_text(a->kept, now, kept, sizeof kept);
        attrs_text(a->kept, ref, was, sizeof was);
        equalize_tell("metis: %s: its root kept %s after it was set to the reference's %s (the "
                      "fs ignores it): the reference's root gets the fs's instead; a class of its "
                      "own, and the run goes on\n", b->cfg->name, kept, was);
    }
    if (a->refused) {
        attrs_text(a->refused, ref, was, sizeof was);
        attrs_text(a->refused, now, theirs, sizeof theirs);
        snprintf(refused, sizeof refused, "%s", strerror(a->err));
        equalize_tell("metis: %s: setting its root's %s (the reference's) failed: %s; no [fs] "
                      "lacks declares it (lacks = %s would, and set-up would not set it): the "
                      "reference's root gets the fs's %s instead; a class of its own, and the run "
                      "goes on\n", b->cfg->name, was, refused, lacks_words(a->refused), theirs);
    }
}

static void record_adapt(struct root_adapt *a, unsigned kept, unsigned refused,
                         const struct stat *ref, const struct stat *now)
{
    a->kept = kept;
    a->refused = refused;
    a->ref_mode = ref->st_mode & 07777;
    a->ref_uid = ref->st_uid;
    a->ref_gid = ref->st_gid;
    a->now_mode = now->st_mode & 07777;
    a->now_uid = now->st_uid;
    a->now_gid = now->st_gid;
}

/* A target that keeps or refuses root attributes (which): the reference takes the target's
 * instead, since the run goes on from there; what was adapted to is in applied->adapt. */
static int root_to_target(struct backend *ref, struct backend *b, struct stat *ref_st,
                          const struct stat *now, unsigned which, struct free_counts *applied,
                          struct free_counts *ref_applied)
{
    struct stat want = *ref_st, got;
    unsigned refused;
    int err = 0;
    tell_adapted(b, ref_st, now, &applied->adapt);
    if (which & ROOT_ATTR_MODE)
        want.st_mode = now->st_mode;
    if (which & ROOT_ATTR_OWNER) {
        want.st_uid = now->st_uid;
        want.st_gid = now->st_gid;
    }
    if (set_root_checked(ref, which, &want, &got, &refused, &err) < 0)
        return -1;
    if (refused || root_differs(&got, &want, which)) {
        char text[96];
        attrs_text(which, now, text, sizeof text);
        snprintf(b->err, sizeof b->err, "%s: its root keeps %s and the reference's root does "
                 "not take them either%s%s: the roots cannot be made alike", b->cfg->name, text,
                 refused ? ": " : "", refused ? strerror(err) : "");
        return -1;
    }
    note_root(ref_applied, &got, which);
    *ref_st = got;
    return 0;
}

/* fs i's root made like ref's, read back; the difference told on stderr, as it is made before
 * any step. */
static int root_like(struct backend *ref, struct backend *b, struct stat *ref_st,
                     struct free_counts *applied, struct free_counts *ref_applied)
{
    struct stat st, now;
    unsigned attrs = root_attrs(b), refused = 0;
    int err = 0;
    if (root_stat(b, &st) < 0)
        return -1;
    applied->adapt.nlink = (unsigned long long)st.st_nlink;
    attrs = root_differs(&st, ref_st, attrs);     /* only those that differ are set */
    if (!attrs)
        return 0;
    if (set_root_checked(b, attrs, ref_st, &now, &refused, &err) < 0)
        return -1;
    unsigned kept = root_differs(&now, ref_st, attrs) & ~refused;
    unsigned set = attrs & ~(kept | refused);
    if (set) {
        equalize_tell("metis: %s: root set to the reference's: mode %04o -> %04o, owner %u:%u -> "
                      "%u:%u\n", b->cfg->name, (unsigned)(st.st_mode & 07777),
                      (unsigned)(now.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
                      (unsigned)now.st_uid, (unsigned)now.st_gid);
        note_root(applied, &now, set);
    }
    if (!(kept | refused))
        return 0;
    record_adapt(&applied->adapt, kept, refused, ref_st, &now);
    applied->adapt.err = err;
    return root_to_target(ref, b, ref_st, &now, kept | refused, applied, ref_applied);
}

int equalize_root(struct backend **be, int n, struct free_counts *applied)
{
    struct stat ref;
    if (n < 2 || root_stat(be[0], &ref) < 0)
        return n < 2 ? 0 : -1;
    applied[0].adapt.nlink = (unsigned long long)ref.st_nlink;
    /* Twice when a target gave the reference its root: the targets before it are set again. */
    for (int pass = 0; pass < 2 && (pass == 0 || applied[0].root_set); pass++)
        for (int i = 1; i < n; i++)
            if (root_like(be[0], be[i], &ref, &applied[i], &applied[0]) < 0)
                return -1;
    return 0;
}

int equalize_root_again(int rootfd, const struct free_counts *applied)
{
    struct stat want;
    int err = 0;
    memset(&want, 0, sizeof want);
    want.st_mode = applied->root_mode;
    want.st_uid = applied->root_uid;
    want.st_gid = applied->root_gid;
    if (set_root(rootfd, applied->root_attrs, &want, &err) == 0)
        return 0;
    errno = err;
    return -1;
}
