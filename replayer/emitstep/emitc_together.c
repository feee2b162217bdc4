/* emit-c's concurrent step: the program issues the last step's calls at once (a thread each, one barrier) and holds what they did against every serial order's outcome on the reference. */
#include "emitc_together.h"

#include <inttypes.h>
#include <string.h>

#include "emitc_ops.h"
#include "engine/ops/opflags.h"

static const char *errno_symbol(int err)
{
    const char *n = err ? strerrorname_np(err) : NULL;
    return n ? n : "0";
}

/* Call c of the set as a function of its own, for its thread. */
static void emit_call_fn(FILE *f, const struct op_args *a, int c)
{
    char text[2 * METIS_PATH_MAX + 512];
    emitc_op_fn *emit = emitc_emitter(a->op);
    op_format_named(a, text, sizeof text);
    fprintf(f, "/* call %d: ", c + 1);
    for (const char *p = text; *p; p++)
        fputc(p[0] == '*' && p[1] == '/' ? '+' : p[0], f);
    fprintf(f, " */\nstatic long call_%d(void)\n{\n    long r = 0;\n    errno = 0;\n", c + 1);
    if (emit)
        emit(f, a);
    fprintf(f, "    return r;\n}\n\n");
}

/* The names the calls walk, stat'ed before they meet, as Metis does (together_refresh): the
 * kernel then holds fresh entries and attributes of each, as in the run. */
static void emit_warm(FILE *f, const struct emit *e)
{
    fputs("static void warm(void)\n{\n    struct stat st;\n", f);
    for (int c = 0; c < e->set.k; c++) {
        const struct op_args *a = &e->set.op[c];
        const char *p[2] = { a->path, a->path2 };
        int n = (op_desc_of(a->op)->fields & OPF_PATH2) && a->op != OP_symlink ? 2 : 1;
        for (int j = 0; j < n; j++)
            for (const char *s = strchr(p[j] + 1, '/');; s = strchr(s + 1, '/')) {
                char prefix[METIS_PATH_MAX];
                snprintf(prefix, sizeof prefix, "%.*s", (int)(s ? s - p[j] - 1 : (long)strlen(p[j]) - 1),
                         p[j] + 1);
                fputs("    lstat(", f);
                emitc_cstr(f, prefix);
                fputs(", &st);\n", f);
                if (!s)
                    break;
            }
    }
    fputs("}\n\n", f);
}

static void emit_tree_table(FILE *f, const struct emit *e)
{
    for (int i = 0; i < e->ntrees; i++) {
        fprintf(f, "static const char *const TREE_%d[] = {\n", i);
        for (size_t l = 0; l < e->trees[i].n; l++) {
            fputs("    ", f);
            emitc_cstr(f, e->trees[i].v[l]);
            fputs(",\n", f);
        }
        fputs("    NULL\n};\n", f);
    }
}

/* The reference's outcomes: one row per distinct outcome of its serial orders. */
static void emit_order_table(FILE *f, const struct emit *e)
{
    fprintf(f, "static const struct order { const char *name; long ret[NCALLS]; int err[NCALLS];"
            " const char *const *tree; } ORDERS[] = {\n");
    for (int o = 0; o < e->norders; o++) {
        const struct emit_order *x = &e->orders[o];
        fprintf(f, "    { \"%s\", {", x->name);
        for (int c = 0; c < e->set.k; c++)
            fprintf(f, "%s%ldL", c ? ", " : " ", x->res[c].ret);
        fputs(" }, {", f);
        for (int c = 0; c < e->set.k; c++)
            fprintf(f, "%s%s", c ? ", " : " ", errno_symbol(x->res[c].err));
        fprintf(f, " }, TREE_%d },\n", x->tree);
    }
    fputs("};\n#define NORDERS (sizeof ORDERS / sizeof ORDERS[0])\n\n", f);
}

static const char program_threads[] =
    "/* One thread per call, all released by one barrier: the calls reach the file system at once. */\n"
    "struct caller { pthread_t thread; pthread_barrier_t *start; int call; long ret; int err; };\n\n"
    "static void *make_call(void *arg)\n{\n"
    "    struct caller *c = arg;\n"
    "    pthread_barrier_wait(c->start);\n"
    "    errno = 0;\n"
    "    c->ret = CALLS[c->call]();\n"
    "    c->err = c->ret < 0 ? (errno ? errno : EIO) : 0;\n"
    "    return NULL;\n}\n\n"
    "static void count_diff(void *ctx, enum tree_diff k, const struct tree_fields *ref,\n"
    "                       const struct tree_fields *got, int best)\n{\n"
    "    (void)k; (void)ref; (void)got; (void)best;\n    ++*(int *)ctx;\n}\n\n"
    "static int same_tree(const char *const *ref, const struct rt_tree *got)\n{\n"
    "    size_t n = 0;\n    int d = 0;\n    while (ref[n])\n        n++;\n"
    "    tree_diff_listings(ref, n, (const char *const *)got->v, got->n, IGNORE, count_diff, &d);\n"
    "    return d == 0;\n}\n\n"
    "static int same_outcome(const struct order *o, const struct caller *c)\n{\n"
    "    for (int i = 0; i < NCALLS; i++)\n"
    "        if (c[i].ret != o->ret[i] || (c[i].err != o->err[i] && !equivalent(c[i].err, o->err[i])))\n"
    "            return 0;\n    return 1;\n}\n\n"
    "static void print_outcome(const char *what, const long *ret, const int *err)\n{\n"
    "    printf(\"%s:\", what);\n"
    "    for (int i = 0; i < NCALLS; i++)\n"
    "        printf(\" call %d ret=%ld errno=%s\", i + 1, ret[i], ename(err[i]));\n"
    "    printf(\"\\n\");\n}\n\n";

static const char program_try[] =
    "/* One try: the calls at once, then is there a serial order of them on the reference that\n"
    " * gives every call's result and the tree after? 1 when none does. */\n"
    "static int together_try(void)\n{\n"
    "    pthread_barrier_t start;\n"
    "    struct caller c[NCALLS];\n"
    "    long ret[NCALLS];\n    int err[NCALLS];\n"
    "    warm();\n"
    "    pthread_barrier_init(&start, NULL, NCALLS);\n"
    "    for (int i = 0; i < NCALLS; i++) {\n"
    "        c[i] = (struct caller){ .start = &start, .call = i };\n"
    "        if (pthread_create(&c[i].thread, NULL, make_call, &c[i]) != 0) {\n"
    "            perror(\"repro: pthread_create\");\n            exit(2);\n        }\n    }\n"
    "    for (int i = 0; i < NCALLS; i++)\n        pthread_join(c[i].thread, NULL);\n"
    "    for (int i = 0; i < NCALLS; i++)\n        ret[i] = c[i].ret, err[i] = c[i].err;\n"
    "    print_outcome(\"together: at once\", ret, err);\n"
    "    struct rt_tree got = { 0 };\n"
    "    int fd = open(\".\", O_RDONLY | O_DIRECTORY);\n"
    "    if (fd < 0 || rt_list(fd, EXCLUDE, &got) < 0) {\n"
    "        printf(\"together: the tree cannot be listed: %s\\n\", ename(errno));\n        return 1;\n    }\n"
    "    close(fd);\n"
    "    for (size_t o = 0; o < NORDERS; o++)\n"
    "        if (same_outcome(&ORDERS[o], c) && same_tree(ORDERS[o].tree, &got)) {\n"
    "            printf(\"together: as the serial order %s on \" REF_NAME \"\\n\", ORDERS[o].name);\n"
    "            rt_free(&got);\n            return 0;\n        }\n"
    "    for (size_t o = 0; o < NORDERS; o++) {\n"
    "        char name[96];\n"
    "        snprintf(name, sizeof name, \"together: serial order %s on \" REF_NAME, ORDERS[o].name);\n"
    "        print_outcome(name, ORDERS[o].ret, ORDERS[o].err);\n    }\n"
    "    for (size_t i = 0; i < got.n; i++)\n        printf(\"together: tree: %s\\n\", got.v[i]);\n"
    "    printf(\"together: matched no serial order of the calls  DIFFERS FROM THE REFERENCE\\n\");\n"
    "    if (!first_diff[0])\n"
    "        snprintf(first_diff, sizeof first_diff, \"the calls at once matched no serial order\");\n"
    "    rt_free(&got);\n    return 1;\n}\n\n";

void emitc_together(FILE *f, const struct emit *e)
{
    if (!e->at_once) {
        fputs("static int together_try(void)\n{\n    return 0;\n}\n\n", f);
        return;
    }
    fprintf(f, "/* The last step: %d calls Metis issued at once, and what every serial order of them "
            "gives on the reference " "(%d distinct outcomes of %d orders' trees). */\n#define NCALLS %d\n",
            e->set.k, e->norders, e->ntrees, e->set.k);
    for (int c = 0; c < e->set.k; c++)
        emit_call_fn(f, &e->set.op[c], c);
    fputs("static long (*const CALLS[])(void) = {", f);
    for (int c = 0; c < e->set.k; c++)
        fprintf(f, "%s call_%d", c ? "," : "", c + 1);
    fputs(" };\n\n", f);
    emit_warm(f, e);
    emit_tree_table(f, e);
    emit_order_table(f, e);
    fputs(program_threads, f);
    fputs(program_try, f);
}
