/* search = bounded on the command line: the transition table checked before anything is made, described by metis check, and the verdict as the run's last line. */
#include "bounded_run.h"
#include "engine/ops/transitions.h"
#include "engine/vocab/exits.h"
#include "front/json/json_reader.h"
#include <limits.h>
#include <string.h>

static int is_bounded(const struct metis_config *cfg)
{
    return search_kind_parse(cfg->run.search) == SEARCH_BOUNDED;
}

/* The table as pan will make it: the same config, the same pool. -1: no memory. */
static int build(const struct metis_config *cfg, struct input *in, struct transitions *tt)
{
    if (input_init(in, cfg, cfg->run.seed) < 0)
        return -1;
    if (transitions_build(in, tt) < 0) {
        input_free(in);
        return -1;
    }
    return 0;
}

static enum op_id largest(const struct transitions *tt)
{
    int top = 0;
    for (int op = 1; op < OP_COUNT; op++)
        if (tt->per_op[op] > tt->per_op[top])
            top = op;
    return (enum op_id)top;
}

int bounded_refusal(const struct metis_config *cfg, char *err, size_t len)
{
    struct input in;
    struct transitions tt;
    if (!is_bounded(cfg))
        return 0;
    if (cfg->run.together > 0) {
        snprintf(err, len, "%s:%d: search = bounded: together must be 0 (--together)", cfg->path,
                 cfg->run.search_line);
        return -1;
    }
    if (build(cfg, &in, &tt) < 0) {
        snprintf(err, len, "%s: search = bounded: out of memory for the transition table",
                 cfg->path);
        return -1;
    }
    int too_many = tt.total > TRANSITIONS_MAX;
    if (too_many)
        snprintf(err, len, "%s:%d: search = bounded: %s%zu transitions leave each state (%s %zu), "
                 "more than %d: give [bits] probabilities of 0 or 1, fewer partitions or a "
                 "smaller pool", cfg->path, cfg->run.search_line, tt.total >= 1000000 ?
                 "at least " : "", tt.total, op_name(largest(&tt)), tt.per_op[largest(&tt)],
                 TRANSITIONS_MAX);
    transitions_free(&tt);
    input_free(&in);
    return too_many ? -1 : 0;
}

void bounded_describe(const struct metis_config *cfg, FILE *f)
{
    struct input in;
    struct transitions tt;
    char bounds[1024];
    if (!is_bounded(cfg) || build(cfg, &in, &tt) < 0)
        return;
    transitions_bounds(&in, bounds, sizeof bounds);
    fprintf(f, "bounded: every state within depth %ld, each depth a search of its own; %zu "
            "transitions leave each state (weights do not apply); %s%s\n", cfg->run.max_depth,
            tt.total, bounds, run_symmetry_names(&cfg->run)
            ? "; states matched" SYMMETRY_STATES " (symmetry = names)" : "");
    if (transitions_grouped(&tt))
        fprintf(f, "  (the model chooses them in two steps: one of %zu groups of %d, then a "
                "member)\n", transitions_groups(&tt), TRANSITIONS_GROUP);
    transitions_describe(&tt, f);
    transitions_free(&tt);
    input_free(&in);
}

static json_object *summary_of(const char *out)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/summary.json", out);
    return rj_load(path);
}

int bounded_exit(const char *out, int require_complete, int rc)
{
    json_object *sum = summary_of(out);
    int incomplete = rj_get(sum, "bounded") && !rj_true(sum, "complete");
    json_object_put(sum);
    return require_complete && incomplete && rc == METIS_EXIT_OK ? METIS_EXIT_INCOMPLETE : rc;
}

void bounded_print_verdict(const char *out, FILE *f)
{
    json_object *sum = summary_of(out);
    json_object *b = rj_get(sum, "bounded");
    if (b)
        fprintf(f, "metis: %s\n", rj_str(b, "verdict", "no verdict"));
    json_object_put(sum);
}
