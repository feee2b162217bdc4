/* Unit tests of restore calls (fs-state/backend/logical/calls/rcalls.c, rcalls_text.c): the text form's round trip and refusals, and calls kept below the root they run on. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend/logical/calls/rcalls_text.h"

static uint64_t rc_state = 0x5eed;

/* xorshift64: any fixed sequence will do. */
static uint64_t rc_rand(void)
{
    rc_state ^= rc_state << 13;
    rc_state ^= rc_state >> 7;
    rc_state ^= rc_state << 17;
    return rc_state;
}

/* Names with bytes the writer escapes now and then: space, '%', control and high bytes. */
static void rc_name(char *out, size_t cap, int absolute)
{
    static const char odd[] = " %\t\x7f\xe9=";
    size_t n = 0;
    int parts = 1 + (int)(rc_rand() % 3);
    for (int i = 0; i < parts && n + 16 < cap; i++) {
        if (absolute || i)
            out[n++] = '/';
        out[n++] = "dfx"[rc_rand() % 3];
        out[n++] = (char)('0' + rc_rand() % 10);
        if (rc_rand() % 4 == 0)
            out[n++] = odd[rc_rand() % (sizeof odd - 1)];
    }
    out[n] = '\0';
}

static size_t rc_data(unsigned char *d, size_t cap)
{
    size_t n = rc_rand() % cap;
    for (size_t i = 0; i < n; i++)
        d[i] = rc_rand() % 3 ? 0 : (unsigned char)rc_rand();
    return n;
}

static void rc_random(struct rcall *c, char *p1, char *p2, char *x, unsigned char *d)
{
    memset(c, 0, sizeof *c);
    c->kind = (enum rcall_kind)(rc_rand() % RC_NKINDS);
    rc_name(p1, 64, 1);
    rc_name(p2, 64, c->kind != RC_SYMLINK);
    rc_name(x, 64, 0);
    c->path = rc_rand() % 8 ? p1 : "/";
    c->path2 = p2;
    c->xname = x;
    c->off = rc_rand() % 3 ? rc_rand() % 100000 : rc_rand();
    c->size = rc_rand();
    c->mode = (unsigned)(rc_rand() % 0177777);
    c->uid = (uint32_t)rc_rand();
    c->gid = (uint32_t)rc_rand();
    c->data = d;
    c->len = rc_data(d, 300);
}

Test(metis_rcalls, text_round_trip_of_random_calls)
{
    char p1[64], p2[64], x[64], err[200];
    unsigned char d[300];
    for (int k = 0; k < 2000; k++) {
        struct rcall c, back;
        struct buf one = { 0 }, two = { 0 };
        unsigned char *data;
        rc_random(&c, p1, p2, x, d);
        cr_assert_eq(rcall_format(&c, &one), 0);
        char *copy = strdup(one.p);
        cr_assert_eq(rcall_parse(copy, &back, &data, err, sizeof err), 0, "%s: %s", one.p, err);
        cr_assert_eq(rcall_format(&back, &two), 0);
        cr_assert_str_eq(one.p, two.p);
        cr_assert_eq(back.kind, c.kind);
        free(data);
        free(copy);
        buf_free(&one);
        buf_free(&two);
    }
}

static void refused(const char *text)
{
    char copy[300], err[200] = "";
    struct rcall c;
    unsigned char *data;
    snprintf(copy, sizeof copy, "%s", text);
    cr_expect_eq(rcall_parse(copy, &c, &data, err, sizeof err), -1, "accepted: %s", text);
    cr_expect(err[0] && !strchr(err, '\n'), "no one-line message for %s", text);
}

Test(metis_rcalls, refuses_what_the_writer_never_writes)
{
    refused("");
    refused("frob path=/f0");
    refused("unlink");
    refused("unlink path=f0");
    refused("unlink path=/a/../b");
    refused("unlink path=/a//b");
    refused("unlink path=/./b");
    refused("unlink path=/a/");
    refused("unlink path=/f0 path=/f1");
    refused("unlink path=/f0 mode=0644");
    refused("chmod path=/f0 mode=00644");
    refused("chmod path=/f0 mode=644");
    refused("chmod path=/f0 mode=0999");
    refused("chown path=/f0 uid=0");
    refused("chown path=/f0 uid=0 gid=4294967296");
    refused("truncate path=/f0 size=01");
    refused("truncate path=/f0 size=-1");
    refused("write path=/f0 off=0 data=");
    refused("write path=/f0 off=0 data=0");
    refused("write path=/f0 off=0 data=0g");
    refused("write path=/f0 off=0 data=0000000000000000");
    refused("write path=/f0 off=0 data=z7.");
    refused("write path=/f0 off=0 data=z8");
    refused("write path=/f0 off=0 data=z65537.");
    refused("setxattr path=/f0 xname= data=-");
    refused("unlink path=/f%41");
    refused("unlink path=/f%2");
    refused("unlink path=/f%00");
    refused("unlink  path=/f0");
}

/* ---- calls on a directory, kept below it ---- */

static char rc_dir[64];
static int rc_fd = -1;

static void rc_setup(void)
{
    snprintf(rc_dir, sizeof rc_dir, "/tmp/metis-rcalls-XXXXXX");
    cr_assert_not_null(mkdtemp(rc_dir));
    rc_fd = open(rc_dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(rc_fd, 0);
}

static void rc_teardown(void)
{
    char cmd[128];
    close(rc_fd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", rc_dir);
    cr_expect_eq(system(cmd), 0);
}

static long run(const char *text)
{
    char copy[300], err[200];
    struct rcall c;
    unsigned char *data;
    snprintf(copy, sizeof copy, "%s", text);
    cr_assert_eq(rcall_parse(copy, &c, &data, err, sizeof err), 0, "%s", err);
    long r = rcall_exec(rc_fd, &c);
    free(data);
    return r;
}

Test(metis_rcalls, calls_act_below_their_root, .init = rc_setup, .fini = rc_teardown)
{
    struct stat st;
    char buf[16] = "";
    cr_assert_eq(run("mkdir path=/d0 mode=0700"), 0);
    cr_assert_eq(run("create path=/d0/f0 mode=0600"), 0);
    cr_assert_eq(run("create path=/d0/f0 mode=0600"), -1, "create is exclusive");
    cr_assert_eq(run("write path=/d0/f0 off=2 data=68690a"), 3);
    cr_assert_eq(run("truncate path=/d0/f0 size=4"), 0);
    cr_assert_eq(run("chmod path=/d0/f0 mode=0641"), 0);
    cr_assert_eq(run("link path=/f1 path2=/d0/f0"), 0);
    cr_assert_eq(fstatat(rc_fd, "f1", &st, 0), 0);
    cr_expect_eq(st.st_size, 4);
    cr_expect_eq(st.st_mode & 07777, 0641);
    cr_expect_eq(st.st_nlink, 2u);
    int fd = openat(rc_fd, "f1", O_RDONLY);
    cr_assert_eq(pread(fd, buf, sizeof buf, 0), 4);
    close(fd);
    cr_expect_eq(memcmp(buf, "\0\0hi", 4), 0);
    cr_assert_eq(run("symlink path=/l0 path2=/etc"), 0);
    cr_expect_eq(run("chmod path=/l0/passwd mode=0600"), -1, "a symlink led out of the root");
    cr_expect_eq(run("chmod path=/l0 mode=0600"), -1, "chmod followed a symlink");
    cr_assert_eq(run("unlink path=/f1"), 0);
    cr_assert_eq(run("rmdir path=/d0"), -1);
    cr_expect_eq(errno, ENOTEMPTY);
}
