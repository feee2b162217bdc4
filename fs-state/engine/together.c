/* Concurrent steps: the draw of a step's calls (near each other's names) and their issue from a thread each, released by one barrier. */
#include "together.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        int s = together_fits(in->cfg, &cand) ? closeness(set, n, &cand) : -1;
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

void together_serial(int rootfd, const struct together_set *set, const unsigned char *order,
                     struct op_result *res)
{
    for (int j = 0; j < set->k; j++)
        op_exec(rootfd, &set->op[order[j]], &res[order[j]]);
}
