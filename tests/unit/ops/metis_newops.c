/* Unit tests of issue 15's operations: fallocate modes, copy_range, mknod, open_unlink, utimes; their config keys, variants, reach rows and text form. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/config/config.h"
#include "engine/input/input.h"
#include "engine/ops/ops.h"
#include "engine/records/reach.h"

/* ---------- a scratch directory for real syscalls, and config files ---------- */

static char nop_top[64], nop_ini[128];
static int nop_root = -1;

static int nop_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    return remove(p);
}

static void nop_setup(void)
{
    umask(0);
    snprintf(nop_top, sizeof nop_top, "/dev/shm/metis-newops-%d-XXXXXX", getpid());
    cr_assert(mkdtemp(nop_top));
    nop_root = open(nop_top, O_PATH | O_DIRECTORY);
    cr_assert(nop_root >= 0);
    snprintf(nop_ini, sizeof nop_ini, "%s.ini", nop_top);
}

static void nop_teardown(void)
{
    close(nop_root);
    nftw(nop_top, nop_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    unlink(nop_ini);
    op_set_insert_cap(UINT64_MAX);
}

TestSuite(metis_newops, .init = nop_setup, .fini = nop_teardown);

/* Loads text as a config; returns config_load's result, its message in err. */
static int nop_load(const char *text, struct metis_config *c, char *err, size_t len)
{
    FILE *f = fopen(nop_ini, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return config_load(nop_ini, c, err, len);
}

/* The message after "path:" of a refused config. */
static const char *nop_refusal(const char *text, char *err, size_t len)
{
    static struct metis_config c;
    cr_assert_eq(nop_load(text, &c, err, len), -1, "accepted:\n%s", text);
    cr_assert_eq(strncmp(err, nop_ini, strlen(nop_ini)), 0, "%s", err);
    return err + strlen(nop_ini) + 1;
}

/* Runs one operation given in its text form; returns the errno (0 on success). */
static int nop_run(const char *line, long *ret)
{
    struct op_args a;
    struct op_result r;
    char err[128];
    cr_assert_eq(op_parse(line, &a, err, sizeof err), 0, "parse '%s': %s", line, err);
    op_exec(nop_root, &a, &r);
    if (ret)
        *ret = r.ret;
    return r.err;
}

static void nop_expect(const char *line, int want)
{
    int got = nop_run(line, NULL);
    cr_assert_eq(got, want, "%s: errno %s, want %s", line, strerrorname_np(got),
                 strerrorname_np(want));
}

static struct stat nop_stat(const char *rel)
{
    struct stat st;
    cr_assert_eq(fstatat(nop_root, rel, &st, AT_SYMLINK_NOFOLLOW), 0, "stat %s", rel);
    return st;
}

/* Writes len bytes of c at off of rel (made if missing). */
static void nop_fill(const char *rel, char c, off_t off, size_t len)
{
    char buf[16384];
    cr_assert(len <= sizeof buf);
    memset(buf, c, len);
    int fd = openat(nop_root, rel, O_WRONLY | O_CREAT, 0644);
    cr_assert(fd >= 0);
    cr_assert_eq(pwrite(fd, buf, len, off), (ssize_t)len);
    close(fd);
}

static char nop_byte_at(const char *rel, off_t off)
{
    char c = 'X';
    int fd = openat(nop_root, rel, O_RDONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(pread(fd, &c, 1, off), 1);
    close(fd);
    return c;
}

/* ---------- names and variants ---------- */

Test(metis_newops, variant_names_are_unique_and_map_back)
{
    for (int v = 0; v < op_variant_count(); v++) {
        const char *n = op_variant_name(v);
        cr_expect_eq(op_lookup(n), -1, "variant %s is also an operation", n);
        cr_expect_eq(op_variant_lookup(n), v, "%s", n);
        cr_expect_eq(op_variant_find(op_variant_op(v), op_variant_value(v)), v, "%s", n);
    }
    cr_expect_eq(op_variant_lookup("nonsense"), -1);
    struct op_args a = { .op = OP_fallocate_file, .flags = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE };
    cr_expect_str_eq(op_variant_name(op_variant_of(&a)), "punch_hole");
    a.flags = FALLOC_FL_PUNCH_HOLE;   /* no draw makes it (Linux refuses it) */
    cr_expect_eq(op_variant_of(&a), -1);
    a = (struct op_args){ .op = OP_mknod, .flags = S_IFSOCK };
    cr_expect_str_eq(op_variant_name(op_variant_of(&a)), "socket");
    a = (struct op_args){ .op = OP_chmod };
    cr_expect_eq(op_variant_of(&a), -1);
}

/* ---------- text form ---------- */

Test(metis_newops, text_forms_round_trip_exactly)
{
    static const char *const lines[] = {
        "fallocate_file path=/f0 flags=0x8 off=4096 size=8192",
        "copy_range path=/f0 path2=/d0/f1 off=7 size=4096 off2=65536",
        "mknod path=/f1 flags=0x1000 mode=0644 rdev=0x0",
        "mknod path=/f1 flags=0x2000 mode=0600 rdev=0xf003",
        "open_unlink path=/f0 flags=0x0 off=100 size=20 seed=0xabc",
        "open_unlink path=/f0 flags=0x1 off=0 size=300 seed=0x0",
        "utimes path=/d0 mtime=1234567890.000000000",
        "utimes path=/d0 mtime=now",
        "utimes path=/f0 mtime=0.000000001",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct op_args a;
        char err[128], back[METIS_OP_LINE_MAX];
        cr_assert_eq(op_parse(lines[i], &a, err, sizeof err), 0, "%s: %s", lines[i], err);
        cr_assert_gt(op_format(&a, back, sizeof back), 0);
        cr_expect_str_eq(back, lines[i]);
    }
}

Test(metis_newops, bad_text_is_refused)
{
    static const char *const bad[] = {
        "utimes path=/f0 mtime=12",                  /* no nanoseconds */
        "utimes path=/f0 mtime=12.5",                /* not nine digits */
        "utimes path=/f0 mtime=-1.000000000",
        "utimes path=/f0 mtime=1.1000000000",
        "utimes path=/f0 mtime=later",
        "copy_range path=/f0 path2=/f1 off=1 size=2",   /* off2 missing */
        "copy_range path=/f0 path2=../x off=1 size=2 off2=3",
        "mknod path=/f0 flags=0x1000 mode=0644",        /* rdev missing */
        "mknod path=/f0 flags=0x1000 mode=0644 rdev=12",/* hex needed */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct op_args a;
        char err[128];
        cr_expect_eq(op_parse(bad[i], &a, err, sizeof err), -1, "accepted: %s", bad[i]);
    }
}

/* ---------- exec ---------- */

Test(metis_newops, fallocate_modes_reach_the_file)
{
    long ret;
    nop_fill("f", 'a', 0, 16384);
    nop_expect("fallocate_file path=/f flags=0x3 off=100 size=200", 0);
    cr_expect_eq(nop_byte_at("f", 150), 0);
    cr_expect_eq(nop_byte_at("f", 99), 'a');
    cr_expect_eq(nop_stat("f").st_size, 16384);
    /* tmpfs (where this runs) has no ZERO_RANGE: EOPNOTSUPP, changing nothing. */
    int e = nop_run("fallocate_file path=/f flags=0x10 off=16000 size=1000", NULL);
    cr_expect(e == 0 || e == EOPNOTSUPP, "%s", strerrorname_np(e));
    cr_expect_eq(nop_stat("f").st_size, e ? 16384 : 17000);
    cr_expect_eq(nop_run("fallocate_file path=/f flags=0x3 off=0 size=0", &ret), EINVAL);
}

Test(metis_newops, insert_past_the_cap_is_efbig_without_reaching_the_file)
{
    nop_fill("f", 'a', 0, 8192);
    op_set_insert_cap(12288);
    /* tmpfs may refuse INSERT_RANGE itself; the cap must answer first either way. */
    nop_expect("fallocate_file path=/f flags=0x20 off=0 size=8192", EFBIG);
    cr_expect_eq(nop_stat("f").st_size, 8192);
    op_set_insert_cap(UINT64_MAX);
    int e = nop_run("fallocate_file path=/f flags=0x20 off=0 size=4096", NULL);
    cr_expect(e == 0 || e == EOPNOTSUPP, "%s", strerrorname_np(e));
}

Test(metis_newops, copy_range_copies_and_counts_bytes)
{
    long ret;
    nop_fill("a", 'x', 0, 5000);
    nop_fill("b", 'y', 0, 10);
    cr_expect_eq(nop_run("copy_range path=/a path2=/b off=4000 size=3000 off2=100", &ret), 0);
    cr_expect_eq(ret, 1000, "copies up to the source's end");
    cr_expect_eq(nop_stat("b").st_size, 1100);
    cr_expect_eq(nop_byte_at("b", 1099), 'x');
    cr_expect_eq(nop_byte_at("b", 50), 0, "the gap between 10 and 100 is a hole");
    cr_expect_eq(nop_run("copy_range path=/a path2=/b off=9000 size=5 off2=0", &ret), 0);
    cr_expect_eq(ret, 0, "past the source's end nothing is copied");
    nop_expect("copy_range path=/a path2=/a off=0 size=100 off2=50", EINVAL);
    nop_expect("copy_range path=/a path2=/missing off=0 size=1 off2=0", ENOENT);
}

Test(metis_newops, mknod_makes_special_files_that_never_block)
{
    nop_expect("mknod path=/p flags=0x1000 mode=0640 rdev=0x0", 0);
    nop_expect("mknod path=/s flags=0xc000 mode=0600 rdev=0x0", 0);
    cr_expect(S_ISFIFO(nop_stat("p").st_mode));
    cr_expect_eq(nop_stat("p").st_mode & 07777, 0640);
    cr_expect(S_ISSOCK(nop_stat("s").st_mode));
    nop_expect("mknod path=/p flags=0x1000 mode=0640 rdev=0x0", EEXIST);
    /* Without O_NONBLOCK these would wait for a peer forever. */
    nop_expect("create_file path=/p flags=0x0 mode=0644", 0);
    nop_expect("write_file path=/p flags=0x1 off=0 size=4 seed=0x1", ENXIO);
    nop_expect("write_file path=/p flags=0x2 off=0 size=4 seed=0x1", ESPIPE);
    nop_expect("write_file path=/s flags=0x2 off=0 size=4 seed=0x1", ENXIO);
    nop_expect("open_unlink path=/p flags=0x1 off=0 size=3 seed=0x0", EINVAL);
}

Test(metis_newops, open_unlink_writes_through_the_fd_to_other_links)
{
    nop_fill("f", 'a', 0, 100);
    cr_assert_eq(linkat(nop_root, "f", nop_root, "g", 0), 0);
    nop_expect("open_unlink path=/f flags=0x1 off=0 size=40 seed=0x0", 0);
    cr_expect_eq(faccessat(nop_root, "f", F_OK, AT_SYMLINK_NOFOLLOW), -1, "the name is gone");
    cr_expect_eq(nop_stat("g").st_size, 40);
    cr_expect_eq(nop_stat("g").st_nlink, 1);
    long ret;
    cr_expect_eq(nop_run("open_unlink path=/g flags=0x0 off=10 size=20 seed=0x5", &ret), 0);
    cr_expect_eq(ret, 20);
    nop_expect("open_unlink path=/g flags=0x0 off=10 size=20 seed=0x5", ENOENT);
}

Test(metis_newops, utimes_sets_the_mtime_of_the_target)
{
    nop_fill("f", 'a', 0, 1);
    cr_assert_eq(symlinkat("f", nop_root, "l"), 0);
    nop_expect("utimes path=/l mtime=1234567890.000000000", 0);
    cr_expect_eq(nop_stat("f").st_mtim.tv_sec, 1234567890);
    nop_expect("utimes path=/f mtime=now", 0);
    cr_expect_gt(nop_stat("f").st_mtim.tv_sec, 1500000000);
    nop_expect("utimes path=/none mtime=now", ENOENT);
}

/* ---------- draws ---------- */

Test(metis_newops, draws_follow_the_choices)
{
    static struct metis_config c;
    struct input in;
    config_defaults(&c);
    struct choice *fm = &c.choice[CH_FALLOC_MODE];
    for (int i = 0; i < fm->n; i++)
        fm->weight[i] = strcmp(op_variant_name(fm->variant[i]), "collapse") == 0;
    c.falloc_align = 4096;
    c.falloc_align_prob = 1;
    cr_assert_eq(input_init(&in, &c, 3), 0);
    for (int k = 0; k < 200; k++) {
        struct op_args a;
        op_draw(OP_fallocate_file, &in, &a);
        cr_expect_eq(a.flags, FALLOC_FL_COLLAPSE_RANGE);
        cr_expect_eq(a.offset % 4096, 0);
        cr_expect_eq(a.size % 4096, 0);
        op_draw(OP_mknod, &in, &a);
        cr_expect(a.flags == S_IFIFO || a.flags == S_IFSOCK, "devices are off by default");
        op_draw(OP_utimes, &in, &a);
        cr_expect(a.mtime_nsec == UTIME_NOW || (a.mtime_nsec == 0 && a.mtime_sec < 1500000000));
    }
    cr_expect_eq(in.cov.chosen[CH_FALLOC_MODE][5], 200);
    input_free(&in);
}

Test(metis_newops, old_modes_are_never_aligned)
{
    static struct metis_config c;
    struct input in;
    config_defaults(&c);
    struct choice *fm = &c.choice[CH_FALLOC_MODE];
    for (int i = 0; i < fm->n; i++)
        fm->weight[i] = op_variant_value(fm->variant[i]) == 0;
    c.falloc_align_prob = 1;
    cr_assert_eq(input_init(&in, &c, 9), 0);
    int unaligned = 0;
    for (int k = 0; k < 100; k++) {
        struct op_args a;
        op_draw(OP_fallocate_file, &in, &a);
        cr_expect_eq(a.flags, 0);
        unaligned += a.offset % 4096 != 0;
    }
    cr_expect_gt(unaligned, 50);
    input_free(&in);
}

/* ---------- config ---------- */

#define NOP_TWO "[fs a]\ntype = reffs\n[fs b]\ntype = reffs\n"

Test(metis_newops, defaults)
{
    static struct metis_config c;
    char err[512];
    cr_assert_eq(nop_load("[fs a]\ntype = reffs\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.op_weight[OP_utimes], 0);
    cr_expect_eq(c.op_weight[OP_copy_range], 1);
    cr_expect_eq(c.run.compare_mtime, 0);
    cr_expect_eq(c.falloc_align, 4096);
    cr_expect_eq(c.falloc_align_prob, 0.5);
    double want[] = { 4, 4, 1, 1, 1, 1, 1 };
    cr_assert_eq(c.choice[CH_FALLOC_MODE].n, 7);
    for (int i = 0; i < 7; i++)
        cr_expect_eq(c.choice[CH_FALLOC_MODE].weight[i], want[i]);
    cr_expect_str_eq(op_variant_name(c.choice[CH_MKNOD_TYPE].variant[2]), "chr");
    cr_expect_eq(c.choice[CH_MKNOD_TYPE].weight[2], 0);
    cr_expect_eq(c.part[ARG_COPY_LEN].nparts, c.part[ARG_WRITE_SIZE].nparts);
    cr_expect_str_eq(c.fs[0].readback, "auto");
}

Test(metis_newops, copy_kinds_follow_write_kinds_unless_given)
{
    static struct metis_config c;
    char err[512];
    cr_assert_eq(nop_load("[fs a]\ntype = reffs\n[sizes]\nwrite_size = 0:1 16:3\n"
                          "write_size_mode = boundary\ncopy_offset = 0:1 2:1\n", &c, err,
                          sizeof err), 0, "%s", err);
    cr_expect_eq(c.part[ARG_COPY_LEN].nparts, 6);
    cr_expect_eq(c.part[ARG_COPY_LEN].weight[5], 3);
    cr_expect_eq(c.part[ARG_COPY_LEN].mode, PART_BOUNDARY);
    cr_expect_eq(c.part[ARG_COPY_OFFSET].nparts, 3);
    cr_expect_eq(c.part[ARG_COPY_OFFSET].mode, PART_RANGE);
}

Test(metis_newops, choices_and_unsupported_parse)
{
    static struct metis_config c;
    char err[512];
    cr_assert_eq(nop_load("[fs a]\ntype = reffs\nunsupported = collapse, insert,mknod\n"
                          "[bits]\nfalloc_mode = punch_hole:2 insert:0.5\n", &c, err, sizeof err),
                 0, "%s", err);
    const struct choice *fm = &c.choice[CH_FALLOC_MODE];
    for (int i = 0; i < fm->n; i++) {
        const char *n = op_variant_name(fm->variant[i]);
        double w = !strcmp(n, "punch_hole") ? 2 : !strcmp(n, "insert") ? 0.5 : 0;
        cr_expect_eq(fm->weight[i], w, "%s", n);
    }
    const struct fs_config *fs = &c.fs[0];
    cr_expect(fs_unsupported(fs, OP_fallocate_file, op_variant_lookup("collapse")));
    cr_expect(!fs_unsupported(fs, OP_fallocate_file, op_variant_lookup("punch_hole")));
    cr_expect(fs_unsupported(fs, OP_mknod, op_variant_lookup("fifo")));
    cr_expect(fs_unsupported(fs, OP_mknod, -1));
    cr_expect(!fs_unsupported(fs, OP_chmod, -1));
}

Test(metis_newops, bad_keys_name_their_line)
{
    char err[512];
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\nunsupported = collapse,frobnicate\n", err,
                                 sizeof err),
                     "3: unsupported: 'frobnicate' is neither an operation nor a variant (e.g. "
                     "collapse, punch_hole, fifo; see configs/README.md)");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[bits]\nmknod_type = fifo:0\n", err,
                                 sizeof err),
                     "4: mknod_type: every weight is 0 (give mknod weight 0 in [ops] instead)");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[bits]\nfalloc_mode = fifo:1\n", err,
                                 sizeof err), "4: falloc_mode: unknown item 'fifo'");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[bits]\nfalloc_mode = insert:1 insert:2\n",
                                 err, sizeof err), "4: falloc_mode: item 'insert' given twice");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[sizes]\nfalloc_align = 3000:0.5\n", err,
                                 sizeof err), "4: falloc_align: unit '3000' is not a power of two 1 .. 1M");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[sizes]\nfalloc_align = 4096:2\n", err,
                                 sizeof err), "4: falloc_align: probability '2' is not a number 0..1");
    cr_expect_str_eq(nop_refusal("[fs a]\ntype = reffs\n[sizes]\nfalloc_align = 4096\n", err,
                                 sizeof err),
                     "4: falloc_align: '4096' is not UNIT:PROBABILITY (e.g. 4096:0.5)");
    cr_expect_str_eq(nop_refusal("[run]\ncompare_mtime = 1\n[fs a]\ntype = reffs\nreadback = dump\n",
                                 err, sizeof err),
                     "5: [fs a]: readback = dump cannot show mtimes: use auto or vfs");
}

Test(metis_newops, what_the_dump_lacks_makes_reffs_walk)
{
    static struct metis_config c;
    char err[512];
    cr_assert_eq(nop_load("[run]\ncompare_mtime = 1\n" NOP_TWO, &c, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[0].readback, "vfs");
    cr_assert_eq(nop_load(NOP_TWO "[bits]\nmknod_type = chr:1\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[1].readback, "vfs");
    cr_assert_eq(nop_load(NOP_TWO "[bits]\nmknod_type = chr:1\n[ops]\nmknod = 0\n", &c, err,
                          sizeof err), 0, "%s", err);
    cr_expect_str_eq(c.fs[1].readback, "auto");
    cr_expect_eq(c.fs[1].track_opens, 1, "open_unlink is drawn by default");
    cr_assert_eq(nop_load(NOP_TWO "[ops]\nopen_unlink = 0\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.fs[1].track_opens, 0);
}

Test(metis_newops, sizing_counts_the_new_operations)
{
    static struct metis_config c;
    char err[512];
    /* 6 files x (8193 + 8193): fits 256 KiB; a copy reaching 64 KiB + 64 KiB does not. */
    const char *big = "[fs a]\ntype = reffs\nsize = 256K\n[sizes]\ncopy_offset = uniform:17\n";
    cr_expect_str_eq(nop_refusal(big, err, sizeof err),
                     "3: [fs a]: the pool can hold 839448 bytes of data, more than half of its "
                     "256 KiB: shrink [sizes] or [pool], or grow size");
    char text[512];
    snprintf(text, sizeof text, "%s[ops]\ncopy_range = 0\n", big);
    cr_expect_eq(nop_load(text, &c, err, sizeof err), 0, "%s", err);
    /* An aligned fallocate length is rounded up to the unit. */
    cr_assert_eq(nop_load("[fs a]\ntype = reffs\nsize = 1M\n[ops]\nwrite_file = 0\ntruncate = 0\n"
                          "copy_range = 0\nopen_unlink = 0\n[sizes]\nfalloc_offset = 0:1\n"
                          "falloc_len = 0:1 1:1\nfalloc_align = 65536:0.1\n", &c, err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(config_file_extent(&c), 65536);
    c.falloc_align_prob = 0;
    cr_expect_eq(config_file_extent(&c), 3);
}

/* ---------- reach ---------- */

Test(metis_newops, reach_counts_every_fs_and_variant)
{
    static struct reach r;
    memset(&r, 0, sizeof r);
    struct op_args a = { .op = OP_fallocate_file, .flags = FALLOC_FL_COLLAPSE_RANGE };
    struct op_result refused = { -1, EOPNOTSUPP }, ok = { 0, 0 };
    reach_count(&r, 0, "ref", &a, &refused, 0);
    reach_count(&r, 1, "ext4", &a, &refused, 1);
    a.flags = 0;
    reach_count(&r, 0, "ref", &a, &ok, 0);
    reach_count(&r, 1, "ext4", &a, &ok, 0);
    int v = op_variant_lookup("collapse");
    cr_expect_eq(r.nfs, 2);
    cr_expect_eq(r.row[0][OP_fallocate_file].tried, 2);
    cr_expect_eq(r.row[0][OP_COUNT + v].err[EOPNOTSUPP], 1);
    cr_expect_eq(r.row[1][OP_COUNT + v].skipped, 1);
    cr_expect_eq(r.row[1][OP_COUNT + v].err[EOPNOTSUPP], 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    reach_write_json(&r, f);
    fclose(f);
    cr_expect(strstr(buf, "\"fallocate_file/collapse\":{\"tried\":1,\"ok\":0,\"skipped\":0,"
                          "\"errors\":{\"EOPNOTSUPP\":1}"), "%s", buf);
    cr_expect(strstr(buf, "\"ext4\":{\"tried\":1,\"ok\":0,\"skipped\":1,"), "%s", buf);
    cr_expect(!strstr(buf, "punch_hole"), "untried variants are left out: %s", buf);
    free(buf);
}
