/* Making a concurrent step's calls: at once from a thread each behind one barrier, or in an order of their resolutions and acts; their text for logs and replays. */
#include "engine/ops/together.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
        for (int j = 0, n = together_call_paths(&set->op[c], p); j < n; j++)
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
