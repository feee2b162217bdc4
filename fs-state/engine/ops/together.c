/* Concurrent steps: whether a step is one, and the draw of its calls, near each other's names, none walking where another changes names. */
#include "engine/ops/together.h"
#include "engine/input/view.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Draws of one extra call among which the closest to the set is taken. */
#define CANDIDATES 4
/* Draws of an extra call that may come out unfit (an INSERT_RANGE, a gated variant). */
#define FIT_ATTEMPTS 8

/* ---- what may be a call of a concurrent step ---- */

/* Calls that make one change in one system call. open_unlink (open, unlink, write) and
 * copy_range (copy_file_range until done) make several, which other calls could interleave
 * with although no file system misbehaves. */
static int single_call_op(enum op_id op)
{
    return op != OP_open_unlink && op != OP_copy_range;
}

int together_fits(const struct metis_config *cfg, const struct op_args *a)
{
    if (!single_call_op(a->op))
        return 0;
    /* An insert Metis caps looks at the size first: a check another call could overtake. */
    if (a->op == OP_fallocate_file && (a->flags & FALLOC_FL_INSERT_RANGE))
        return 0;
    int v = op_variant_of(a);
    for (int i = 0; i < cfg->nfs; i++)
        if (fs_unsupported(&cfg->fs[i], a->op, v))
            return 0;
    return 1;
}

void together_adapt(struct op_args *a)
{
    if (a->op == OP_write_file)
        a->flags &= ~(O_TRUNC | O_APPEND);
}

/* ---- drawing the calls ---- */

/* An operation by the config's weights among those that fit a concurrent step; -1: none. */
static int draw_op(struct input *in)
{
    uint64_t total = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if (single_call_op((enum op_id)op))
            total += (uint64_t)in->cfg->op_weight[op];
    if (!total)
        return -1;
    uint64_t r = rng_below(&in->rng, total);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!single_call_op((enum op_id)op))
            continue;
        if (r < (uint64_t)in->cfg->op_weight[op])
            return op;
        r -= (uint64_t)in->cfg->op_weight[op];
    }
    return -1;
}

int together_call_paths(const struct op_args *a, const char **p)
{
    int n = 0;
    p[n++] = a->path;
    if ((op_desc_of(a->op)->fields & OPF_PATH2) && a->op != OP_symlink)
        p[n++] = a->path2;
    return n;
}

/* The length of p's directory part ("/d0" of "/d0/f1", "" of "/f1"). */
static size_t dir_len(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? (size_t)(slash - p) : 0;
}

/* 3: the same name; 2: one is the other's directory, or both are in one directory; else 0. */
static int nearness(const char *p, const char *q)
{
    size_t dp = dir_len(p), dq = dir_len(q);
    if (strcmp(p, q) == 0)
        return 3;
    if (dp == dq && strncmp(p, q, dp) == 0)
        return 2;
    if ((strlen(p) == dq && strncmp(p, q, dq) == 0) || (strlen(q) == dp && strncmp(q, p, dp) == 0))
        return 2;
    return 0;
}

/* 1 when p runs through name (a proper prefix of p, at a component boundary). */
static int walks_through(const char *p, const char *name)
{
    size_t n = strlen(name);
    return strncmp(p, name, n) == 0 && p[n] == '/';
}

/* An exchange swaps two names at once, and a path walk that meets one of them half before and
 * half after it gives what no order gives (ELOOP, seen through a symlink swapped with a
 * directory): Linux walks paths without locks. So no call of the set walks through them. */
static int walk_hazard(const struct op_args *x, const struct op_args *y)
{
    const char *py[2];
    if (x->op != OP_rename || !(x->flags & RENAME_EXCHANGE))
        return 0;
    for (int j = 0, n = together_call_paths(y, py); j < n; j++)
        if (walks_through(py[j], x->path) || walks_through(py[j], x->path2))
            return 1;
    return 0;
}

/* Calls that make, remove or replace a name. */
static int changes_names(const struct op_args *a)
{
    switch (a->op) {
    case OP_create_file: case OP_mkdir: case OP_rmdir: case OP_unlink: case OP_rename:
    case OP_link: case OP_symlink: case OP_mknod:
        return 1;
    default:
        return 0;
    }
}

/* Calls whose last name is followed when it is a symlink (they open what it names). */
static int follows_last(const struct op_args *a)
{
    return !changes_names(a) || a->op == OP_create_file;
}

/* 1 when a path of a walks through a symlink of the reference's tree (a directory name on its
 * way, or the last name where a follows it): where the symlink leads, and so what the walk
 * meets, is not in the call's text, and a walk that meets a name another call changes half
 * before and half after that change gives what no order gives. */
static int walks_symlink(const struct input *in, const struct op_args *a)
{
    const char *p[2];
    char prefix[METIS_PATH_MAX];
    for (int j = 0, n = together_call_paths(a, p); j < n && in->view; j++)
        for (const char *s = strchr(p[j] + 1, '/');; s = strchr(s + 1, '/')) {
            size_t len = s ? (size_t)(s - p[j]) : strlen(p[j]);
            if (!s && !follows_last(a))
                break;
            snprintf(prefix, sizeof prefix, "%.*s", (int)len, p[j]);
            const struct view_entry *e = view_find(in->view, prefix);
            if (e && S_ISLNK(e->mode))
                return 1;
            if (!s)
                break;
        }
    return 0;
}

/* 1 when b may join the set's first n calls. */
static int fits_set(const struct input *in, const struct together_set *set, int n,
                    const struct op_args *b)
{
    for (int j = 0; j < n; j++) {
        const struct op_args *a = &set->op[j];
        if (walk_hazard(a, b) || walk_hazard(b, a) ||
            (changes_names(a) && walks_symlink(in, b)) ||
            (changes_names(b) && walks_symlink(in, a)))
            return 0;
    }
    return 1;
}

/* How near b's names are to those of the set's first n calls: where races are. */
static int closeness(const struct together_set *set, int n, const struct op_args *b)
{
    const char *pb[2], *pa[2];
    int nb = together_call_paths(b, pb), score = 0;
    for (int j = 0; j < n; j++) {
        int na = together_call_paths(&set->op[j], pa);
        for (int x = 0; x < nb; x++)
            for (int y = 0; y < na; y++) {
                int s = nearness(pb[x], pa[y]);
                score = s > score ? s : score;
            }
    }
    return score;
}

/* Call n of the set: of CANDIDATES draws of one operation, the nearest to the calls before it.
 * The one kept is drawn again from its own generator state, so that the coverage counts only
 * it. Returns 0, or -1 when the draw does not fit a concurrent step. */
static int draw_call(struct input *in, struct together_set *set, int n, enum op_id op)
{
    static struct coverage before;
    struct rng start[CANDIDATES];
    struct op_args cand;
    int best = 0, best_score = -1;
    before = in->cov;
    for (int c = 0; c < CANDIDATES; c++) {
        start[c] = in->rng;
        op_draw(op, in, &cand);
        int s = together_fits(in->cfg, &cand) && fits_set(in, set, n, &cand)
                    ? closeness(set, n, &cand) : -1;
        if (s > best_score)
            best = c, best_score = s;
    }
    in->cov = before;
    in->rng = start[best];
    op_draw(op, in, &set->op[n]);
    together_adapt(&set->op[n]);
    return best_score < 0 ? -1 : 0;
}

int together_draw(struct input *in, const struct op_args *a, struct together_set *set)
{
    const struct run_config *r = &in->cfg->run;
    if (r->together <= 0 || rng_unit(&in->rng) >= r->together || !together_fits(in->cfg, a))
        return 0;
    int want = 2 + (int)rng_below(&in->rng, (uint64_t)(r->together_max - 1));
    set->k = 1;
    set->op[0] = *a;
    together_adapt(&set->op[0]);
    for (int tries = 0; set->k < want && tries < FIT_ATTEMPTS; tries++) {
        int op = draw_op(in);
        if (op >= 0 && draw_call(in, set, set->k, (enum op_id)op) == 0)
            set->k++;
    }
    return set->k >= 2;
}

/* ---- labels and text ---- */

static int compare_names(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void together_label(const struct together_set *set, char *buf, size_t len)
{
    char names[TOGETHER_MAX][96];
    const char *sorted[TOGETHER_MAX];
    size_t used = 0;
    for (int j = 0; j < set->k; j++) {
        int v = op_variant_of(&set->op[j]);
        snprintf(names[j], sizeof names[j], "%s%s%s", op_name(set->op[j].op), v < 0 ? "" : "/",
                 v < 0 ? "" : op_variant_name(v));
        sorted[j] = names[j];
    }
    qsort(sorted, (size_t)set->k, sizeof *sorted, compare_names);
    buf[0] = '\0';
    for (int j = 0; j < set->k && used < len; j++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", j ? "+" : "", sorted[j]);
}
