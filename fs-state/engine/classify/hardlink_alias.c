/* The cause of a class on a path-based FUSE daemon whose operation met a file of several names: to the kernel each name is an inode of its own. */
#include "engine/classify/hardlink_alias.h"
#include "engine/vocab/differs.h"
#include "tree/diff.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libfuse's high-level API gives every path a node of its own, so the kernel holds one inode
 * per name of a hard-linked file: a write through one name leaves the other's cached size and
 * link count as they were, and copy_file_range between two names of one file is not refused as
 * an overlapping copy within one file (tmpfs: EINVAL; disorderfs copied 500 bytes, 2026-12-07). */
int alias_may_apply(const struct dclass *c, const struct op_args *a)
{
    if (!a || c->cause_id[0])
        return 0;
    if (a->op == OP_copy_range)
        return 1;
    return c->kinds == DIFF_STATE && (c->attr == TREE_DIFF_SIZE || c->attr == TREE_DIFF_CONTENT ||
                                      c->attr == TREE_DIFF_NLINK);
}

/* 1 when path is, in listing, a regular file with two links or more. */
static int hard_linked(const char *listing, const char *path)
{
    size_t n = strlen(path);
    for (const char *line = listing; n && line && *line;) {
        struct tree_fields e;
        if (tree_fields_split(line, &e) == 0 && (size_t)e.len[TREE_F_PATH] == n &&
            !strncmp(e.s[TREE_F_PATH], path, n))
            return e.len[TREE_F_TYPE] == 1 && e.s[TREE_F_TYPE][0] == 'f' &&
                   atol(e.s[TREE_F_NLINK]) >= 2;
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return 0;
}

/* 1 when entry is name or lies below it. */
static int is_or_below(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return n && !strncmp(entry, name, n) && (entry[n] == '\0' || entry[n] == '/');
}

/* A step leaves a new difference where it changed something: one in the size, content or link
 * count of an entry that is none of its operation's names (nor below them), made by anything
 * but a rename, is a change to another name of the file it named (the entry's own link count
 * may have dropped to 1 since, as after an open_unlink). */
static int another_name_changed(const struct dclass *c, const struct op_args *a)
{
    return c->kinds == DIFF_STATE && a->op != OP_rename && c->d.entry[0] == '/' &&
           !is_or_below(c->d.entry, a->path) && !is_or_below(c->d.entry, a->path2);
}

int alias_assign(struct dclass *c, const struct op_args *a, const char *ref_listing)
{
    const char *paths[] = { a->path, a->path2, c->d.entry };
    int found = another_name_changed(c, a);
    for (size_t k = 0; k < sizeof paths / sizeof paths[0] && !found; k++)
        found = paths[k][0] == '/' && hard_linked(ref_listing, paths[k]);
    if (!found)
        return 0;
    snprintf(c->cause_id, sizeof c->cause_id, "fuse-hard-link-alias");
    snprintf(c->cause, sizeof c->cause, "a file of several names is an inode per name to the "
             "kernel on a path-based FUSE daemon");
    if (!c->hint[0])
        snprintf(c->hint, sizeof c->hint, "Known FUSE behaviour: a path-based daemon (libfuse's "
                 "high-level API) gives each name of a hard-linked file a node of its own, so "
                 "the kernel holds an inode per name: what a call through one name changes "
                 "(size, content, link count) shows late or not at all through the other, and "
                 "copy_file_range between two names of one file is not refused as an "
                 "overlapping copy within one file (EINVAL on the reference).");
    return 1;
}
