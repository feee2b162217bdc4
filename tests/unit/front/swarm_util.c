/* Unit tests of the swarm's helpers: shell quoting, flat JSON, host tags, hosts files, VT options. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "front/cli/runs/model.h"
#include "front/cli/options/runopts.h"
#include "front/json/json_reader.h"
#include "front/swarm/swarm.h"
#include "front/swarm/shared/swarm_util.h"
#include "lib/system/helpers.h"

static struct swarm swu_swarm;

static void swu_shell_echo(const char *word, char *out, size_t len)
{
    char q[512], cmd[600];
    swarm_shell_quote(word, q, sizeof q);
    snprintf(cmd, sizeof cmd, "printf %%s %s", q);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    pclose(p);
}

Test(swarm_util, shell_quote_survives_the_shell)
{
    const char *words[] = {"plain", "it's", "a b\tc", "$HOME `id` \"x\" \\", "''", ""};
    char back[512];
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        swu_shell_echo(words[i], back, sizeof back);
        cr_expect_str_eq(back, words[i], "word %zu", i);
    }
}

Test(swarm_util, json_reads_top_level_fields)
{
    const char *j = "{\"status\":\"ok\",\"ops\":1234,\"ops_per_s\":56.5,\"run_id\":\"m42\","
                    "\"reach\":{\"ops\":9},\"esc\":\"a\\\"b\"}";
    double v;
    char s[32];
    json_object *o = rj_parse(j);
    cr_assert_not_null(o);
    cr_assert_eq(rj_num_at(o, "ops", &v), 0);
    cr_expect_eq(v, 1234);
    cr_assert_eq(rj_num_at(o, "ops_per_s", &v), 0);
    cr_expect_float_eq(v, 56.5, 1e-9);
    cr_expect_eq(rj_num_at(o, "missing", &v), -1);
    cr_assert_eq(rj_copy(o, "run_id", s, sizeof s), 0);
    cr_expect_str_eq(s, "m42");
    cr_assert_eq(rj_copy(o, "esc", s, sizeof s), 0);
    cr_expect_str_eq(s, "a\"b");
    cr_expect_eq(rj_copy(o, "ops", s, sizeof s), -1);
    json_object_put(o);
}

Test(swarm_util, json_escape_round_trips)
{
    char e[64], back[64];
    json_escape("q\"b\\s\n", e, sizeof e);
    cr_expect_str_eq(e, "q\\\"b\\\\s\\u000a");
    char doc[128];
    snprintf(doc, sizeof doc, "{\"k\":\"%s\"}", "q\\\"b");
    json_object *o = rj_parse(doc);
    cr_assert_eq(rj_copy(o, "k", back, sizeof back), 0);
    cr_expect_str_eq(back, "q\"b");
    json_object_put(o);
}

Test(swarm_util, host_tags_are_safe_and_distinct)
{
    char a[128], b[128], c[128];
    swarm_host_tag("ssh -p 2 root@h", a, sizeof a);
    swarm_host_tag("ssh_-p_2_root@h", b, sizeof b);
    swarm_host_tag(":", c, sizeof c);
    cr_expect_str_neq(a, b);
    for (const char *p = a; *p; p++)
        cr_expect(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@", *p),
                  "unsafe character '%c' in %s", *p, a);
    cr_expect_eq(strchr(c, '/'), NULL);
    cr_expect_eq(strchr(c, ':'), NULL);
}

static int swu_load(const char *text)
{
    char path[] = "/tmp/metis-swu-hostsXXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    memset(&swu_swarm, 0, sizeof swu_swarm);
    int rc = swarm_hosts_load(&swu_swarm, path);
    unlink(path);
    return rc;
}

Test(swarm_util, hosts_file_lines)
{
    cr_assert_eq(swu_load("# comment\n\n  2/root@h1  \n:\n12/ssh -p 2222 h3\nh4\n"), 0);
    cr_assert_eq(swu_swarm.nhosts, 4);
    cr_expect_str_eq(swu_swarm.host[0].login, "root@h1");
    cr_expect_eq(swu_swarm.host[0].slots, 2);
    cr_expect_str_eq(swu_swarm.host[0].line, "2/root@h1");
    cr_expect_str_eq(swu_swarm.host[1].login, ":");
    cr_expect_eq(swu_swarm.host[1].slots, 0);
    cr_expect_str_eq(swu_swarm.host[2].login, "ssh -p 2222 h3");
    cr_expect_eq(swu_swarm.host[2].slots, 12);
    cr_expect_eq(swu_swarm.host[3].slots, 0);
}

Test(swarm_util, hosts_file_errors, .init = cr_redirect_stderr)
{
    cr_expect_eq(swu_load(""), -1);
    cr_expect_eq(swu_load("# nothing\n"), -1);
    cr_expect_eq(swu_load("0/h\n"), -1);
    cr_expect_eq(swu_load("2/\n"), -1);
    cr_expect_eq(swu_load("h1\n2/h1\n"), -1);
    cr_expect_eq(swu_load("@g/h1\n"), -1);
    cr_expect_eq(swu_load("h1,h2\n"), -1);
}

/* Every VT of a swarm gets its own recorded combination (options and input seed). */
Test(swarm_util, vt_combinations_pairwise_distinct)
{
    for (uint64_t seed = 0; seed < 200; seed++) {
        char seen[64][320];
        for (int vt = 0; vt < 64; vt++) {
            struct search_opts so;
            uint64_t in;
            char d[256];
            swarm_diversify(seed, vt, &so, &in);
            search_opts_describe(&so, 0, d, sizeof d);
            snprintf(seen[vt], sizeof seen[vt], "%s in=%llu", d, (unsigned long long)in);
            for (int k = 0; k < vt; k++)
                cr_assert_str_neq(seen[vt], seen[k], "swarm seed %llu: VT %d and VT %d",
                                  (unsigned long long)seed, k, vt);
        }
    }
}

Test(swarm_util, vt_zero_is_the_plain_search)
{
    struct search_opts so;
    uint64_t in;
    swarm_diversify(77, 0, &so, &in);
    cr_expect(!so.t_rand && !so.p_rand && !so.t_reverse && !so.bitstate);
}
