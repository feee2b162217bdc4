/* Unit tests of the operations' text form (op_format/op_parse): round trips and hostile lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"

static struct metis_config optx_cfg;
static struct input optx_in;

static void optx_setup(void)
{
    config_defaults(&optx_cfg);
    optx_cfg.pool.depth = 2;
    optx_cfg.pool.name_len = 6;
    for (int k = 0; k < ARG_NKINDS; k++)
        optx_cfg.part[k].nparts = 40;
    cr_assert_eq(input_init(&optx_in, &optx_cfg, 42), 0);
}

static void optx_teardown(void)
{
    input_free(&optx_in);
}

TestSuite(metis_ops_text, .init = optx_setup, .fini = optx_teardown);

/* A drawn operation with its numeric fields spread over their whole range. */
static void optx_random(struct op_args *a)
{
    struct rng *r = &optx_in.rng;
    op_draw((enum op_id)rng_below(r, OP_COUNT), &optx_in, a);
    int wide = rng_below(r, 2);
    if (a->flags || wide)
        a->flags = (int)(uint32_t)rng_next(r);
    if (a->mode || wide)
        a->mode = (mode_t)rng_below(r, 010000);
    if (a->offset || wide)
        a->offset = rng_next(r);
    if (a->size || wide)
        a->size = rng_next(r) >> rng_below(r, 64);
    if (a->data_seed)
        a->data_seed = rng_next(r);
}

/* Randomised fields an operation does not use (no "key=" in its line) go back to zero. */
static void optx_zero_unused(struct op_args *a, const char *line)
{
    if (!strstr(line, " flags="))
        a->flags = 0;
    if (!strstr(line, " mode="))
        a->mode = 0;
    if (!strstr(line, " off="))
        a->offset = 0;
    if (!strstr(line, " size="))
        a->size = 0;
}

Test(metis_ops_text, random_round_trips)
{
    for (int i = 0; i < 1000; i++) {
        struct op_args a, b;
        char t1[METIS_OP_LINE_MAX], t2[METIS_OP_LINE_MAX], err[128];
        optx_random(&a);
        cr_assert_gt(op_format(&a, t1, sizeof t1), 0);
        optx_zero_unused(&a, t1);
        cr_assert_eq(op_parse(t1, &b, err, sizeof err), 0, "'%s': %s", t1, err);
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "parse(format(a)) != a for '%s'", t1);
        cr_assert_eq(op_format(&b, t2, sizeof t2), (int)strlen(t1));
        cr_assert_str_eq(t1, t2);
    }
}

Test(metis_ops_text, drawn_round_trips_exact)
{
    for (int i = 0; i < 1000; i++) {
        struct op_args a, b;
        char t[METIS_OP_LINE_MAX], err[128];
        op_draw((enum op_id)(i % OP_COUNT), &optx_in, &a);
        cr_assert_gt(op_format(&a, t, sizeof t), 0);
        cr_assert_eq(op_parse(t, &b, err, sizeof err), 0, "'%s': %s", t, err);
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "'%s' did not survive", t);
    }
}

Test(metis_ops_text, canonical_lines)
{
    static const char *const lines[] = {
        "create_file path=/f0 flags=0xc1 mode=0644",
        "write_file path=/d0/f1 flags=0x441 off=4096 size=100 seed=0x1a2b",
        "truncate path=/f0 size=0",
        "fallocate_file path=/f0 flags=0x1 off=0 size=18446744073709551615",
        "chmod path=/d0 mode=07777",
        "chmod path=/d0 mode=0",
        "chown_file path=/f0 uid=-1",
        "chgrp_file path=/f0 gid=4294967294",
        "unlink path=/d0/d1/f0",
        "mkdir path=/d0 mode=0755",
        "rmdir path=/d0",
        "rename path=/d0 path2=/d1/f0 flags=0x4",
        "link path=/f0 path2=/d0/f0",
        "symlink path=/d0/l path2=.",
        "symlink path=/l path2=d0/d1/f0",
        "setxattr path=/f0 flags=0x2 size=65536 xname=user.x0 seed=0xffffffffffffffff",
        "removexattr path=/f0 xname=user.x1",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct op_args a;
        char t[METIS_OP_LINE_MAX], err[128];
        cr_assert_eq(op_parse(lines[i], &a, err, sizeof err), 0, "'%s': %s", lines[i], err);
        op_format(&a, t, sizeof t);
        cr_assert_str_eq(t, lines[i]);
    }
    /* A trailing newline (a line read with fgets) is accepted. */
    struct op_args a;
    cr_assert_eq(op_parse("unlink path=/f0\n", &a, NULL, 0), 0);
}

Test(metis_ops_text, format_short_buffer)
{
    struct op_args a;
    char t[16];
    cr_assert_eq(op_parse("write_file path=/d0/f1 flags=0x441 off=4096 size=100 seed=0x1a2b", &a, NULL, 0), 0);
    cr_assert_eq(op_format(&a, t, sizeof t), -1);
    cr_assert_str_eq(t, "");
}

static void optx_reject(const char *line, const char *why)
{
    struct op_args a;
    char err[128] = "";
    cr_assert_eq(op_parse(line, &a, err, sizeof err), -1, "accepted (%s): '%.80s'", why, line);
    cr_assert_neq(err[0], '\0', "no message for '%.80s'", line);
}

Test(metis_ops_text, hostile_lines)
{
    static const char *const bad[] = {
        "", " ", "frobnicate path=/f0", "unlink", "unlink path=/f0 path=/f1", "unlink colour=red path=/f0",
        "unlink path=/f0 mode=0644", "unlink path", "unlink =/f0", "unlink path=f0", "unlink path=/",
        "unlink path=/d0/../f0", "unlink path=/..", "unlink path=/d0//f0", "unlink path=/d0/",
        "unlink path=/./f0", "unlink path=/d0/.", "unlink path=/d0\x01/f0", "unlink path=/f\x7f",
        "unlink path=/f0\tx", "unlink\tpath=/f0", "truncate path=/f0 size=-1", "truncate path=/f0 size=1x",
        "truncate path=/f0 size=", "truncate path=/f0 size=18446744073709551616", "truncate path=/f0",
        "create_file path=/f0 flags=12 mode=0644", "create_file path=/f0 flags=0x mode=0644",
        "create_file path=/f0 flags=0x100000000 mode=0644", "create_file path=/f0 flags=0xc1 mode=644",
        "create_file path=/f0 flags=0xc1 mode=0800", "create_file path=/f0 flags=0xc1 mode=017777",
        "chown_file path=/f0 uid=-2", "chown_file path=/f0 uid=4294967295", "chown_file path=/f0 uid=+1",
        "symlink path=/l path2=/etc/passwd", "symlink path=/l path2=../x", "symlink path=/l path2=d0/../..",
        "symlink path=/l path2=", "symlink path=/l path2=d0/", "rename path=/a path2=b flags=0x0",
        "rename path=/a path2=/b", "setxattr path=/f0 xname= size=1 seed=0x1 flags=0x0",
        "write_file path=/f0 flags=0x1 off=0 size=1 seed=1", "unlink path=/f0 extra",
        "UNLINK path=/f0", "unlink path=/f0\n\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        optx_reject(bad[i], "table");
    /* Over-long lines and fields. */
    static char big[3 * METIS_OP_LINE_MAX];
    snprintf(big, sizeof big, "unlink path=/");
    memset(big + strlen(big), 'a', sizeof big - strlen(big) - 1);
    optx_reject(big, "over-long line");
    snprintf(big, sizeof big, "unlink path=/");
    memset(big + strlen(big), 'a', METIS_PATH_MAX);
    big[strlen("unlink path=/") + METIS_PATH_MAX] = '\0';
    optx_reject(big, "over-long path");
    snprintf(big, sizeof big, "removexattr path=/f0 xname=user.");
    memset(big + strlen(big), 'a', METIS_XATTR_NAME_MAX);
    big[strlen("removexattr path=/f0 xname=user.") + METIS_XATTR_NAME_MAX] = '\0';
    optx_reject(big, "over-long xattr name");
}

/* Damage that always makes a line invalid, applied to a valid line t. */
static void optx_damage(char *t, size_t cap, int kind, struct rng *r)
{
    char tmp[METIS_OP_LINE_MAX + 64];
    char *sp = strchr(t, ' '), *path = strstr(t, "path=/");
    switch (kind) {
    case 0: snprintf(tmp, sizeof tmp, "bogus_op%s", sp); break;
    case 1: snprintf(tmp, sizeof tmp, "%s colour=red", t); break;
    case 2: snprintf(tmp, sizeof tmp, "%s%s", t, sp); break;                   /* duplicate keys */
    case 3: *strrchr(t, ' ') = '\0'; snprintf(tmp, sizeof tmp, "%s", t); break; /* missing field */
    case 4: {                                                                    /* control char */
        size_t at = rng_below(r, strlen(t));
        snprintf(tmp, sizeof tmp, "%.*s%c%s", (int)at, t, (char)(1 + rng_below(r, 31)), t + at);
        break;
    }
    case 5: snprintf(tmp, sizeof tmp, "%.*s/d0/..%s", (int)(path - t + 5), t, path + 5); break;
    case 6: snprintf(tmp, sizeof tmp, "%.*s%s", (int)(path - t + 5), t, path + 6); break;
    case 7: snprintf(tmp, sizeof tmp, "%.*s/%s", (int)(path - t + 5), t, path + 5); break;
    case 8: strrchr(t, '=')[1] = '\0'; snprintf(tmp, sizeof tmp, "%s", t); break; /* empty value */
    default: snprintf(tmp, sizeof tmp, "%s", t); break;
    }
    snprintf(t, cap, "%s", tmp);
}

Test(metis_ops_text, damaged_lines)
{
    struct rng r;
    rng_seed(&r, 99);
    int rejected = 0;
    for (int i = 0; i < 500; i++) {
        struct op_args a, b;
        char t[METIS_OP_LINE_MAX + 64], err[128] = "";
        op_draw((enum op_id)rng_below(&r, OP_COUNT), &optx_in, &a);
        op_format(&a, t, sizeof t);
        int kind = (int)rng_below(&r, 9);
        optx_damage(t, sizeof t, kind, &r);
        int rc = op_parse(t, &b, err, sizeof err);
        cr_assert_eq(rc, -1, "damage %d accepted: '%s'", kind, t);
        cr_assert_neq(err[0], '\0');
        rejected++;
    }
    cr_assert_eq(rejected, 500);
}

/* Random byte damage: whatever is accepted must be a valid, confined operation that round-trips. */
Test(metis_ops_text, random_byte_damage)
{
    struct rng r;
    rng_seed(&r, 7);
    int accepted = 0;
    for (int i = 0; i < 5000; i++) {
        struct op_args a, b;
        char t[METIS_OP_LINE_MAX], t2[METIS_OP_LINE_MAX], err[128];
        op_draw((enum op_id)rng_below(&r, OP_COUNT), &optx_in, &a);
        int n = op_format(&a, t, sizeof t);
        for (int k = 0; k < 1 + (int)rng_below(&r, 3); k++)
            t[rng_below(&r, (uint64_t)n)] = (char)(1 + rng_below(&r, 255));
        if (op_parse(t, &b, err, sizeof err) != 0)
            continue;
        accepted++;
        cr_assert_eq(b.path[0], '/');
        cr_assert_null(strstr(b.path, ".."));
        cr_assert_null(strstr(b.path2, ".."));
        cr_assert(b.op != OP_symlink || b.path2[0] != '/');
        cr_assert_gt(op_format(&b, t2, sizeof t2), 0);
        struct op_args c;
        cr_assert_eq(op_parse(t2, &c, err, sizeof err), 0, "'%s' -> '%s': %s", t, t2, err);
        cr_assert_eq(memcmp(&b, &c, sizeof b), 0);
    }
    cr_assert_lt(accepted, 5000);
}
