/* Concurrent steps: the draw of a step's calls (near each other's names) and their issue from a thread each, released by one barrier. */
#include "together.h"
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* The pool paths a call names (a symlink's target is no pool path). */
static int call_paths(const struct op_args *a, const char **p)
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
    for (int j = 0, n = call_paths(y, py); j < n; j++)
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
    for (int j = 0, n = call_paths(a, p); j < n && in->view; j++)
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
    int nb = call_paths(b, pb), score = 0;
    for (int j = 0; j < n; j++) {
        int na = call_paths(&set->op[j], pa);
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

int together_format_calls(const struct together_set *set, uint64_t seq, char *buf, size_t len)
{
    char text[METIS_OP_LINE_MAX];
    size_t used = 0;
    for (int j = 0; j < set->k; j++) {
        if (op_format(&set->op[j], text, sizeof text) < 0)
            return -1;
        int n = snprintf(buf + used, len - used, "%scall %llu %d %s", j ? "\n" : "",
                         (unsigned long long)seq, j + 1, text);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

/* ---- the kernel's view of the names, fresh ---- */

/* Looks name up, confined below rootfd, and stats what it names (not following it). */
static void stat_beneath(int rootfd, const char *name)
{
    struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    struct stat st;
    int fd = (int)syscall(SYS_openat2, rootfd, name, &how, sizeof how);
    if (fd >= 0) {
        fstat(fd, &st);
        close(fd);
    }
}

void together_refresh(int rootfd, const struct together_set *set)
{
    char prefix[METIS_PATH_MAX];
    const char *p[2];
    for (int c = 0; c < set->k; c++)
        for (int j = 0, n = call_paths(&set->op[c], p); j < n; j++)
            for (const char *s = strchr(p[j] + 1, '/');; s = strchr(s + 1, '/')) {
                snprintf(prefix, sizeof prefix, "%.*s", (int)(s ? s - p[j] - 1 : (long)strlen(p[j]) - 1),
                         p[j] + 1);
                stat_beneath(rootfd, prefix);
                if (!s)
                    break;
            }
}

/* ---- issuing the calls ---- */

/* One caller thread: waits until every caller exists (the creator holds gate meanwhile), then
 * at the barrier, then makes its call. */
struct caller {
    pthread_t thread;
    pthread_mutex_t *gate;
    pthread_barrier_t *start;
    const int *abandoned;
    int rootfd;
    const struct op_args *a;
    struct op_result *res;
};

static void *call_when_released(void *arg)
{
    struct caller *c = arg;
    pthread_mutex_lock(c->gate);
    int abandoned = *c->abandoned;
    pthread_mutex_unlock(c->gate);
    if (!abandoned) {
        pthread_barrier_wait(c->start);
        op_exec(c->rootfd, c->a, c->res);
    }
    op_thread_done();
    return NULL;
}

int together_issue(int rootfd, const struct together_set *set, struct op_result *res)
{
    pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
    pthread_barrier_t start;
    struct caller c[TOGETHER_MAX];
    int made = 1, abandoned = 0;
    together_refresh(rootfd, set);
    pthread_mutex_lock(&gate);
    for (; made < set->k; made++) {
        c[made] = (struct caller){ 0, &gate, &start, &abandoned, rootfd, &set->op[made],
                                   &res[made] };
        if (pthread_create(&c[made].thread, NULL, call_when_released, &c[made]) != 0)
            break;
    }
    abandoned = made < set->k;
    if (!abandoned)
        pthread_barrier_init(&start, NULL, (unsigned)set->k);
    pthread_mutex_unlock(&gate);
    if (!abandoned) {
        pthread_barrier_wait(&start);
        op_exec(rootfd, &set->op[0], &res[0]);
    }
    for (int j = 1; j < made; j++)
        pthread_join(c[j].thread, NULL);
    if (!abandoned)
        pthread_barrier_destroy(&start);
    return abandoned ? -1 : 0;
}

/* ---- orders of atoms ---- */

void together_run_atoms(int rootfd, const struct together_set *set, const unsigned char *atoms,
                        struct op_result *res)
{
    struct op_hold hold[TOGETHER_MAX];
    together_refresh(rootfd, set);
    for (int i = 0; i < 2 * set->k; i++) {
        int c = atoms[i] & ~ATOM_RESOLVE;
        if (atoms[i] & ATOM_RESOLVE)
            op_resolve(rootfd, &set->op[c], &hold[c]);
        else
            op_act(&set->op[c], &hold[c], &res[c]);
    }
    for (int c = 0; c < set->k; c++)
        op_release(&hold[c]);
}

void together_whole_atoms(const unsigned char *acts, int k, unsigned char *atoms)
{
    for (int p = 0; p < k; p++) {
        atoms[2 * p] = acts[p] | ATOM_RESOLVE;
        atoms[2 * p + 1] = acts[p];
    }
}

void together_atoms_text(const unsigned char *atoms, int k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 2 * k && used < len; i++) {
        int c = atoms[i] & ~ATOM_RESOLVE, whole = (atoms[i] & ATOM_RESOLVE) && i + 1 < 2 * k &&
                                                   atoms[i + 1] == c;
        used += (size_t)snprintf(buf + used, len - used, "%s%s%d", used ? "," : "",
                                 (atoms[i] & ATOM_RESOLVE) && !whole ? "r" : "", c + 1);
        i += whole;
    }
}

int together_atoms_parse(const char *text, int k, unsigned char *atoms)
{
    unsigned resolved = 0, acted = 0;
    int n = 0;
    for (const char *p = text; *p;) {
        int early = *p == 'r';
        p += early;
        if (*p < '1' || *p > '0' + k || (p[1] && (p[1] != ',' || !p[2])))
            return -1;
        int c = *p - '1';
        p += 1 + (p[1] == ',');
        int need = !((resolved >> c) & 1) + !early;
        if ((acted >> c) & 1 || (early && ((resolved >> c) & 1)) || n + need > 2 * k)
            return -1;
        if (!((resolved >> c) & 1))
            atoms[n++] = (unsigned char)(c | ATOM_RESOLVE);
        resolved |= 1u << c;
        if (!early) {
            atoms[n++] = (unsigned char)c;
            acted |= 1u << c;
        }
    }
    return n == 2 * k && acted == (1u << k) - 1 ? 0 : -1;
}

int together_history(const struct together_set *set, const unsigned char *atoms, char *buf,
                     size_t len)
{
    char order[64], text[METIS_OP_LINE_MAX];
    together_atoms_text(atoms, set->k, order, sizeof order);
    int used = snprintf(buf, len, "together %s", order);
    for (int c = 0; c < set->k && used >= 0 && (size_t)used < len; c++) {
        if (op_format(&set->op[c], text, sizeof text) < 0)
            return -1;
        used += snprintf(buf + used, len - (size_t)used, "\n%s", text);
    }
    return used < 0 || (size_t)used >= len ? -1 : 0;
}

int together_is_history(const char *text)
{
    return strncmp(text, "together ", 9) == 0;
}

int together_replay(int rootfd, const char *text, char *err, size_t errlen)
{
    static struct together_set set;
    char line[METIS_OP_LINE_MAX], order[64];
    unsigned char atoms[TOGETHER_MAX_ATOMS];
    struct op_result res[TOGETHER_MAX];
    size_t n = strcspn(text, "\n");
    snprintf(order, sizeof order, "%.*s", (int)(n > 9 ? n - 9 : 0), text + 9);
    set.k = 0;
    for (text += n; *text == '\n' && set.k < TOGETHER_MAX; text += n) {
        n = strcspn(++text, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, text);
        if (op_parse(line, &set.op[set.k++], err, errlen) < 0)
            return -1;
    }
    if (together_atoms_parse(order, set.k, atoms) < 0) {
        snprintf(err, errlen, "'%s' is no order of %d calls", order, set.k);
        return -1;
    }
    together_run_atoms(rootfd, &set, atoms, res);
    return 0;
}
