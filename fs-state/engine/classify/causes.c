/* Cause groups of a run's classes: each class's group key from its hint rule's cause, an owner the kernel cannot map, or the known delta it belongs to, and the groups for summary.json. */
#include "engine/classify/causes.h"
#include "lib/system/helpers.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

void causes_key(const char *cause_id, const char *fs, char *out, size_t len)
{
    snprintf(out, len, "%.95s %.63s", cause_id, fs);
}

void causes_delta_id(const char *item, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "delta:%.88s", item);
    /* blanks would split the id where a known file's reader expects one word */
    for (size_t k = 0; k < n && k < len; k++)
        if (out[k] == '\t' || out[k] == ' ')
            out[k] = '-';
}

/* The first item of d that is a difference of kind attr ("mode<TAB>..."), or NULL. */
static const char *item_of_kind(const struct tree_delta *d, enum tree_diff attr)
{
    const char *name = tree_diff_name(attr);
    size_t n = strlen(name);
    for (size_t k = 0; d && k < d->n; k++)
        if (!strncmp(d->item[k], name, n) && d->item[k][n] == '\t')
            return d->item[k];
    return NULL;
}

/* A known delta's difference the class belongs to: one of its own attribute that the delta
 * it was found below holds (the class may well be its consequence), else the one the class
 * itself started. A difference of another attribute below it is no evidence of one cause. */
static const char *delta_item(const struct dclass *c, const struct cause_path *p)
{
    if (c->kinds != DIFF_STATE || c->attr == TREE_DIFF_NONE)
        return NULL;            /* an outcome's class is signed by the outcome, not the state */
    const char *held = item_of_kind(p->below, c->attr);
    return held ? held : item_of_kind(p->made, c->attr);
}

/* The kernel's overflow id ("uid" or "gid"): what stat shows for an id it cannot map. */
static unsigned read_overflow_id(const char *which)
{
    char path[64];
    unsigned id = 65534;
    snprintf(path, sizeof path, "/proc/sys/kernel/overflow%s", which);
    FILE *f = fopen(path, "re");
    if (f) {
        if (fscanf(f, "%u", &id) != 1)
            id = 65534;
        fclose(f);
    }
    return id;
}

/* The overflow uid and gid, read once. */
static void overflow_ids(unsigned *uid, unsigned *gid)
{
    static unsigned ouid, ogid;
    if (!ouid) {
        ouid = read_overflow_id("uid");
        ogid = read_overflow_id("gid");
    }
    *uid = ouid;
    *gid = ogid;
}

/* An owner difference ("owner<TAB>ref uid:gid<TAB>fs uid:gid") in which the fs shows the
 * overflow id where the reference has another: a daemon sent an id the kernel cannot map,
 * such as the -1 of a chown that leaves the owner or group as it is. */
static int unmapped_owner_item(const char *item)
{
    unsigned ru, rg, fu, fg, ouid, ogid;
    if (sscanf(item, "owner\t%u:%u\t%u:%u", &ru, &rg, &fu, &fg) != 4)
        return 0;
    overflow_ids(&ouid, &ogid);
    return (fu == ouid && ru != ouid) || (fg == ogid && rg != ogid);
}

static int has_unmapped_owner(const struct tree_delta *d)
{
    for (size_t k = 0; d && k < d->n; k++)
        if (unmapped_owner_item(d->item[k]))
            return 1;
    return 0;
}

/* On an inode whose owner the kernel cannot map, the VFS refuses any write access
 * (inode_permission: EACCES, for every caller, as it could not write the ids back) and any
 * change of its attributes or names (EOVERFLOW), and root holds no capability as its owner
 * (EPERM): every such refusal below that owner, and the owner difference itself, is one
 * cause whatever the operation. */
static int unmapped_owner_cause(const struct dclass *c, const struct cause_path *p)
{
    if (c->kinds == DIFF_STATE && c->attr == TREE_DIFF_OWNER)
        return has_unmapped_owner(p->made) || has_unmapped_owner(p->below);
    int e = c->res.err;
    int refused = c->res.ret < 0 && (e == EACCES || e == EOVERFLOW || e == EPERM);
    return (c->kinds & DIFF_ERRNO) && refused && c->ref.err != e && has_unmapped_owner(p->below);
}

/* A hint's cause stands, but for an EPERM taken for a refused family (a lacks word): below an
 * owner the kernel cannot map, the owner explains it, and the fs may well have the family. */
static int cause_open_to_owner(const struct dclass *c)
{
    return !c->cause_id[0] || (!strncmp(c->cause_id, "lacks:", 6) && c->res.err == EPERM);
}

static void unmapped_owner_assign(struct dclass *c)
{
    unsigned ouid, ogid;
    overflow_ids(&ouid, &ogid);
    c->lacks[0] = '\0';   /* an EPERM below such an owner declares nothing the fs lacks */
    snprintf(c->cause_id, sizeof c->cause_id, "unmapped-owner");
    snprintf(c->cause, sizeof c->cause, "an owner the kernel cannot map (the overflow id): "
             "write access refused (EACCES), changes refused (EOVERFLOW), no owner's rights "
             "(EPERM)");
    snprintf(c->hint, sizeof c->hint, "The file system shows an owner as the kernel's overflow "
             "id (%u:%u): it sent a uid or gid the kernel cannot map, as a daemon does that "
             "stores the -1 of chown(path, -1, gid) or chown(path, uid, -1) (\"leave it as it "
             "is\") as the id. The VFS refuses any write access to such an inode (EACCES, for "
             "root too) and any change of it (EOVERFLOW), and root has no owner's rights there "
             "(EPERM).", ouid, ogid);
}

void causes_assign(struct dclass *c, const char *fs, const struct cause_path *p)
{
    if (p && cause_open_to_owner(c) && unmapped_owner_cause(c, p))
        unmapped_owner_assign(c);
    const char *item = !c->cause_id[0] && p ? delta_item(c, p) : NULL;
    if (p && p->below_text)
        snprintf(c->below_delta, sizeof c->below_delta, "%s", p->below_text);
    if (item) {
        causes_delta_id(item, c->cause_id, sizeof c->cause_id);
        snprintf(c->cause, sizeof c->cause, "a known delta's difference (%.150s)", item);
        for (char *t = c->cause; (t = strchr(t, '\t'));)
            *t = ' ';
    }
    if (c->cause_id[0])
        causes_key(c->cause_id, fs, c->group, sizeof c->group);
    else
        snprintf(c->group, sizeof c->group, "%s", c->signature);
}

/* The index of the first class of class k's group. */
static int group_head(const struct dclass_table *t, int k)
{
    for (int j = 0; j < k; j++)
        if (!strcmp(t->v[j].group, t->v[k].group))
            return j;
    return k;
}

int causes_count(const struct dclass_table *t)
{
    int n = 0;
    for (int k = 0; k < t->n; k++)
        n += group_head(t, k) == k;
    return n;
}

static void json_group(const struct dclass_table *t, int head, FILE *f)
{
    char key[400], cause[500];
    unsigned long long hits = 0;
    json_escape(t->v[head].group, key, sizeof key);
    json_escape(t->v[head].cause, cause, sizeof cause);
    fprintf(f, "{\"group\":\"%s\",\"cause\":\"%s\",\"classes\":[", key, cause);
    for (int k = head, n = 0; k < t->n; k++)
        if (group_head(t, k) == head) {
            fprintf(f, "%s%d", n++ ? "," : "", t->v[k].id);
            hits += t->v[k].hits;
        }
    fprintf(f, "],\"hits\":%llu}", hits);
}

void causes_write_json(const struct dclass_table *t, FILE *f)
{
    fprintf(f, "\"discrepancy_groups\":%d,\"groups\":[", causes_count(t));
    for (int k = 0, n = 0; k < t->n; k++)
        if (group_head(t, k) == k) {
            fputs(n++ ? "," : "", f);
            json_group(t, k, f);
        }
    fputs("],", f);
}
