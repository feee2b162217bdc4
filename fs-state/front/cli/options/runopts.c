/* Command-line parsing of run/check and the swarm's derivation of diversified search options. */
#include "runopts.h"
#include "search_shape.h"
#include "bounded_run.h"
#include "engine/vocab/crash_modes.h"
#include "engine/input/input.h"
#include "engine/run/searches.h"
#include "lib/text/numbers.h"
#include "lib/system/claims.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int u64_option(const char *opt, const char *s, uint64_t *out)
{
    if (parse_u64_any_base(s, out) < 0) {
        fprintf(stderr, "metis: %s: '%s' is not a non-negative integer\n", opt, s);
        return -1;
    }
    return 0;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0) {
        fprintf(stderr, "metis: --seconds: '%s' is not a non-negative number\n", s);
        return -1;
    }
    *out = v;
    return 0;
}

enum { O_OPS = 1, O_SECONDS, O_SEED, O_DEPTH, O_OUT, O_KEEP, O_VT, O_SWARM_SEED, O_KNOWN,
       O_STRICT_KNOWN, O_JUNIT, O_TOGETHER, O_REQUIRE_COMPLETE, O_VTS, O_CLAIMS };

/* --together SHARE: [run] together for this run, with the config's own checks of it. */
static int together_option(const char *s, struct run_opts *ro)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0 || v > 1) {
        fprintf(stderr, "metis: --together: '%s' is not a share from 0 to 1\n", s);
        return -1;
    }
    ro->cfg.run.together = v;
    if (v > 0 && ro->cfg.nfs < 2) {
        fprintf(stderr, "metis: --together: concurrent steps need a reference and a file system "
                "under test (two [fs] sections at least)\n");
        return -1;
    }
    if (v > 0 && crash_mode_parse(ro->cfg.run.crash) != CRASH_OFF) {
        fprintf(stderr, "metis: --together: concurrent steps and crash = %s do not go together\n",
                ro->cfg.run.crash);
        return -1;
    }
    return 0;
}

/* --claims NAME: the table's file in /dev/shm, a name the sweep of dead runs knows. */
static int claims_option(const char *name, struct run_opts *ro)
{
    char file[240];
    if (strlen(name) > 200 || snprintf(file, sizeof file, "%s%s", CLAIMS_PREFIX, name) < 0 ||
        !claims_name_ok(file)) {
        fprintf(stderr, "metis: --claims: '%s' is not a name of letters, digits and '-'\n", name);
        return -1;
    }
    snprintf(ro->claims, sizeof ro->claims, "%s/%s", CLAIMS_DIR, file);
    return 0;
}

static int apply_option(int c, const char *arg, struct run_opts *ro, int *have_vt, int *have_ss)
{
    uint64_t v;
    switch (c) {
    case O_OPS: return u64_option("--ops", arg, &ro->cfg.run.ops);
    case O_SECONDS: return parse_seconds(arg, &ro->cfg.run.seconds);
    case O_SEED: return u64_option("--seed", arg, &ro->cfg.run.seed);
    case O_DEPTH:
        if (u64_option("--depth", arg, &v) < 0 || v == 0 || v > 100000000) {
            fprintf(stderr, "metis: --depth: must be between 1 and 100000000\n");
            return -1;
        }
        ro->cfg.run.max_depth = (long)v;
        return 0;
    case O_OUT: snprintf(ro->cfg.run.out, sizeof ro->cfg.run.out, "%s", arg); return 0;
    case O_KEEP: ro->cfg.run.keep_going = 1; return 0;
    case O_VT:
        if (u64_option("--vt", arg, &v) < 0 || v > 1000000)
            return -1;
        ro->vt = (int)v;
        *have_vt = 1;
        return 0;
    case O_SWARM_SEED: *have_ss = 1; return u64_option("--swarm-seed", arg, &ro->swarm_seed);
    case O_KNOWN: ro->known = arg; return 0;
    case O_STRICT_KNOWN: ro->strict_known = 1; return 0;
    case O_JUNIT: ro->junit = arg; return 0;
    case O_TOGETHER: return together_option(arg, ro);
    case O_REQUIRE_COMPLETE: ro->require_complete = 1; return 0;
    case O_VTS:
        if (u64_option("--vts", arg, &v) < 0 || v == 0 || v > 1000000) {
            fprintf(stderr, "metis: --vts: must be between 1 and 1000000\n");
            return -1;
        }
        ro->vts = (int)v;
        return 0;
    case O_CLAIMS: return claims_option(arg, ro);
    }
    fprintf(stderr, "metis: unknown option (see metis --help)\n");
    return -1;
}

/* pan -RS takes a seed from 1 up. */
static unsigned long spin_seed_of(uint64_t seed)
{
    return 1 + seed % 1000000007ULL;
}

/* SPIN's fixed branch order would try the first operations of the model at every state before
 * the last ones; a seeded random order reaches every operation early and stays reproducible. */
static void default_search(struct search_opts *so, uint64_t seed)
{
    memset(so, 0, sizeof *so);
    so->t_rand = 1;
    so->spin_seed = spin_seed_of(seed);
}

int run_opts_parse(int argc, char **argv, struct run_opts *ro)
{
    static const struct option longopts[] = {
        {"ops", required_argument, 0, O_OPS},         {"seconds", required_argument, 0, O_SECONDS},
        {"seed", required_argument, 0, O_SEED},       {"depth", required_argument, 0, O_DEPTH},
        {"out", required_argument, 0, O_OUT},         {"keep-going", no_argument, 0, O_KEEP},
        {"vt", required_argument, 0, O_VT},           {"swarm-seed", required_argument, 0, O_SWARM_SEED},
        {"known", required_argument, 0, O_KNOWN},     {"strict-known", no_argument, 0, O_STRICT_KNOWN},
        {"junit", required_argument, 0, O_JUNIT},     {"together", required_argument, 0, O_TOGETHER},
        {"require-complete", no_argument, 0, O_REQUIRE_COMPLETE},
        {"vts", required_argument, 0, O_VTS},         {"claims", required_argument, 0, O_CLAIMS},
        {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
    char err[1200];
    struct { int c; const char *arg; } given[32];
    int ngiven = 0, have_vt = 0, have_ss = 0, c;
    memset(ro, 0, sizeof *ro);
    ro->vt = -1;
    optind = 1;
    opterr = 0;
    /* Options are collected first and applied after the config is loaded, so they override it. */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h')
            return 1;
        if (c == '?' || ngiven == 32) {
            fprintf(stderr, "metis: unknown option '%s' or missing value\n", argv[optind - 1]);
            return -1;
        }
        given[ngiven].c = c;
        given[ngiven++].arg = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "metis: %s: expected exactly one CONFIG\n", argv[0]);
        return -1;
    }
    if (config_load(argv[optind], &ro->cfg, err, sizeof err) < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return -1;
    }
    for (int i = 0; i < ngiven; i++)
        if (apply_option(given[i].c, given[i].arg, ro, &have_vt, &have_ss) < 0)
            return -1;
    if (have_vt != have_ss) {
        fprintf(stderr, "metis: --vt and --swarm-seed go together\n");
        return -1;
    }
    if (ro->strict_known && !ro->known) {
        fprintf(stderr, "metis: --strict-known needs --known FILE\n");
        return -1;
    }
    if (ro->vts && (!have_vt || ro->vt >= ro->vts)) {
        fprintf(stderr, "metis: --vts N goes with --vt I, I below N\n");
        return -1;
    }
    if (ro->claims[0] && search_kind_parse(ro->cfg.run.search) != SEARCH_BOUNDED) {
        fprintf(stderr, "metis: --claims goes with search = bounded\n");
        return -1;
    }
    if (have_vt) {
        swarm_diversify(ro->swarm_seed, ro->vt, &ro->search, &ro->cfg.run.seed);
        /* A bounded config's VTs split one space: each searches it bounded, none by a shape. */
        if (search_kind_parse(ro->cfg.run.search) == SEARCH_BOUNDED)
            ro->search.shape = SHAPE_PLAIN;
        search_shape_apply(ro->search.shape, &ro->cfg.run);
    } else {
        default_search(&ro->search, ro->cfg.run.seed);
    }
    if (bounded_refusal(&ro->cfg, err, sizeof err) < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return -1;
    }
    if (config_validate(&ro->cfg, err, sizeof err) < 0) {
        fprintf(stderr, "metis: %s\n", err);
        return -1;
    }
    return 0;
}

/* The search option combinations of a swarm: 4 orders x 5 storages (exhaustive, bitstate with
 * k = 2..5) x 100 hash functions. Combination 0 is SPIN's plain search. */
enum { SW_ORDERS = 4, SW_STORAGES = 5, SW_HASHES = 100, SW_COMBOS = SW_ORDERS * SW_STORAGES * SW_HASHES };

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void combination(unsigned c, struct search_opts *so)
{
    unsigned order = c % SW_ORDERS, storage = c / SW_ORDERS % SW_STORAGES;
    so->t_rand = order == 1 || order == 3;
    so->p_rand = order == 3;
    so->t_reverse = order == 2;
    so->bitstate = storage > 0;
    so->hash_count = storage > 0 ? 1 + (int)storage : 0;
    so->hash_fn = (int)(c / (SW_ORDERS * SW_STORAGES));
}

void swarm_diversify(uint64_t swarm_seed, int vt, struct search_opts *so, uint64_t *input_seed)
{
    struct rng swarm, own;
    uint64_t stride;
    /* VT i takes combination i * stride mod SW_COMBOS, stride coprime to SW_COMBOS and drawn from
     * the swarm seed: the first SW_COMBOS VTs get distinct combinations, any 20 consecutive
     * ones distinct orders x storages, and VT 0 the plain search; its search shape comes
     * from search_shape.c. */
    rng_seed(&swarm, swarm_seed * 0x9e3779b97f4a7c15ULL);
    do
        stride = 1 + rng_below(&swarm, SW_COMBOS - 1);
    while (gcd_u64(stride, SW_COMBOS) != 1);
    memset(so, 0, sizeof *so);
    combination((unsigned)((uint64_t)vt % SW_COMBOS * stride % SW_COMBOS), so);
    rng_seed(&own, swarm_seed * 0x9e3779b97f4a7c15ULL + (uint64_t)vt + 1);
    so->spin_seed = 1 + rng_below(&own, 1000000);
    *input_seed = rng_next(&own) ^ (uint64_t)vt;
    so->shape = search_shape_of(swarm_seed, vt);
}

/* SPIN's randomized order is seeded by -RS: with one seed for every search of a run, each
 * search would try the operations in the same order, state after state, and differ from the
 * others only in their arguments. */
struct search_opts search_opts_of(const struct search_opts *run, int search)
{
    struct search_opts so = *run;
    if (search > 1)
        so.spin_seed = spin_seed_of(search_seed(run->spin_seed, search));
    return so;
}

static void describe_as(const struct search_opts *so, const char *shape, char *buf, size_t len)
{
    snprintf(buf, len, "order=%s hash=%d storage=%s%s spin_seed=%lu shape=%s",
             so->t_rand ? (so->p_rand ? "t_rand+p_rand" : "t_rand") :
             so->t_reverse ? "t_reverse" : "default", so->hash_fn,
             so->bitstate ? "bitstate" : "exhaustive",
             so->bitstate ? (so->hash_count == 2 ? " k=2" : so->hash_count == 3 ? " k=3" :
                             so->hash_count == 4 ? " k=4" : " k=5") : "",
             so->spin_seed, shape);
}

/* A bounded config's VT: pan is built without bitstate (model.c) and the search is the plain
 * bounded one, whatever storage and shape the swarm seed drew; its order, hash and SPIN seed
 * stand. */
const char *search_opts_describe(const struct search_opts *so, int bounded, char *buf,
                                 size_t len)
{
    struct search_opts as_searched = *so;
    const char *shape = bounded ? "bounded" : search_shape_get(so->shape)->name;
    if (bounded)
        as_searched.bitstate = 0;
    describe_as(&as_searched, shape, buf, len);
    return shape;
}
