/* The record command: a seeded random walk of a config's operations (no SPIN), written as a trace. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/text/numbers.h"
#include "lib/system/helpers.h"
#include "engine/run/engine.h"
#include "engine/input/input.h"
#include "replay/replay.h"
#include "replay/session.h"
#include "engine/input/vary.h"
#include "engine/input/view.h"

struct record_opts {
    const char *config, *out;
    uint64_t ops, seed;
    int have_seed, keep_going;
};

static int parse_record(int argc, char **argv, struct record_opts *o)
{
    static const struct option longopts[] = {
        { "ops", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
        { "out", required_argument, NULL, 'o' }, { "keep-going", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },      { NULL, 0, NULL, 0 },
    };
    int c;
    memset(o, 0, sizeof *o);
    o->ops = 1000;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:s:o:kh", longopts, NULL)) != -1) {
        if (c == 'h') {
            cli_usage("record");
            return CLI_HELP;
        }
        if (c == 'o')
            o->out = optarg;
        else if (c == 'k')
            o->keep_going = 1;
        else if ((c == 'n' && parse_u64_any_base(optarg, &o->ops) == 0 && o->ops > 0) ||
                 (c == 's' && parse_u64_any_base(optarg, &o->seed) == 0 && (o->have_seed = 1)))
            continue;
        else {
            fprintf(stderr, "metis-replay record: bad option or value '%s'\n", argv[optind - 1]);
            return -1;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "metis-replay record: expected one CONFIG argument\n");
        return -1;
    }
    o->config = argv[optind];
    return 0;
}

static int header(struct trace *t, const struct metis_config *cfg, const struct session *s)
{
    trace_init(t);
    t->seed = cfg->run.seed;
    snprintf(t->hash, sizeof t->hash, "%s", cfg->run.hash);
    snprintf(t->config_path, sizeof t->config_path, "%s", cfg->path);
    FILE *f = fopen(cfg->path, "re");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) >= 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        trace_add_cfg_line(t, line);
    }
    free(line);
    if (f)
        fclose(f);
    t->nfs = cfg->nfs;
    for (int i = 0; i < cfg->nfs; i++) {
        struct trace_fs *x = &t->fs[i];
        snprintf(x->name, sizeof x->name, "%s", cfg->fs[i].name);
        snprintf(x->type, sizeof x->type, "%s", fs_type_name(cfg->fs[i].type));
        snprintf(x->fstype, sizeof x->fstype, "%s", cfg->fs[i].fstype[0] ? cfg->fs[i].fstype : "-");
        x->size = cfg->fs[i].size;
        t->init[i] = s->out[i];
        t->init[i].have = 1;
    }
    return f ? 0 : -1;
}

/* An operation with probability proportional to its weight, as the model's branches are. */
static enum op_id pick(struct input *in, const struct metis_config *cfg)
{
    uint64_t sum = 0;
    for (int i = 0; i < OP_COUNT; i++)
        sum += (uint64_t)cfg->op_weight[i];
    uint64_t k = rng_below(&in->rng, sum);
    for (int i = 0; i < OP_COUNT; i++) {
        if (k < (uint64_t)cfg->op_weight[i])
            return (enum op_id)i;
        k -= (uint64_t)cfg->op_weight[i];
    }
    return OP_create_file;
}

static int walk(struct session *s, struct trace *t, const struct metis_config *cfg,
                const struct record_opts *o)
{
    static struct input in;
    struct op_args a;
    struct tree_view *view = NULL;
    if (input_init(&in, cfg, cfg->run.seed) < 0)
        return fprintf(stderr, "metis-replay record: cannot build the name pool\n"), -1;
    int rc = 0;
    for (uint64_t seq = 1; seq <= o->ops && rc == 0; seq++) {
        if (session_interrupted())
            return input_free(&in), view_free(view), -2;
        /* Paths are drawn from the reference's tree as the engine draws them. */
        view_free(view);
        if (!(in.view = view = view_make(&s->g.tree)))
            return input_free(&in), -1;
        op_draw(pick(&in, cfg), &in, &a);
        if (session_step(s, &a, NULL, SESSION_NO_STATE, SESSION_NO_STATE) < 0) {
            fprintf(stderr, "metis-replay: infrastructure failure: %s\n", s->err);
            rc = -1;
            break;
        }
        struct trace_op *op = trace_add_op(t, seq, &a);
        if (!op)
            return input_free(&in), -1;
        int differ = session_compare(s, 0);
        for (int i = 0; i < s->g.nfs; i++) {
            op->res[i] = s->out[i];
            op->disc[i].have = s->differs[i] != 0;
            op->disc[i].differs = s->differs[i];
        }
        if (differ && !o->keep_going)
            break;
    }
    input_free(&in);
    view_free(view);
    return rc;
}

int cmd_record(int argc, char **argv)
{
    struct record_opts o;
    static struct metis_config cfg;
    static struct session s;
    struct trace t;
    char err[1400];
    int parsed = parse_record(argc, argv, &o);
    if (parsed != 0)
        return parsed == CLI_HELP ? EXIT_MATCH : EXIT_BAD_INPUT;
    if (config_load(o.config, &cfg, err, sizeof err) < 0 || config_validate(&cfg, err, sizeof err) < 0) {
        fprintf(stderr, "metis-replay: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (o.have_seed)
        cfg.run.seed = o.seed;
    vary_apply(&cfg);
    session_install_cleanup();
    if (session_start(&s, &cfg) < 0) {
        fprintf(stderr, "metis-replay: infrastructure failure: %s\n", s.err);
        session_stop(&s);
        return EXIT_INFRA;
    }
    double t0 = now_seconds();
    header(&t, &cfg, &s);
    int rc = walk(&s, &t, &cfg, &o);
    session_stop(&s);
    if (rc == 0) {
        rc = o.out ? trace_write_file(&t, o.out, err, sizeof err) : trace_write(&t, stdout);
        if (rc < 0)
            fprintf(stderr, "metis-replay: %s\n", o.out ? err : "writing the trace failed");
        unsigned d[METIS_MAX_FS];
        fprintf(stderr, "metis-replay: recorded %zu operations in %.3f s%s\n", t.nops,
                now_seconds() - t0,
                trace_final_discrepancy(&t, d) ? " (stopped at a discrepancy)" : "");
    }
    trace_free(&t);
    return rc == -2 ? EXIT_INTERRUPTED : rc < 0 ? EXIT_INFRA : 0;
}
