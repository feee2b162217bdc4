/* Unit tests of config_load's refusals: each bad file gives one "file:line: message" error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/config/config.h"
#include "engine/input/vary.h"

static char cfge_dir[64];
static char cfge_path[128];

static void cfge_setup(void)
{
    snprintf(cfge_dir, sizeof cfge_dir, "/tmp/metis-config-err-XXXXXX");
    cr_assert_not_null(mkdtemp(cfge_dir));
    snprintf(cfge_path, sizeof cfge_path, "%s/bad.ini", cfge_dir);
}

static void cfge_teardown(void)
{
    unlink(cfge_path);
    cr_expect_eq(rmdir(cfge_dir), 0);
}

TestSuite(metis_config_err, .init = cfge_setup, .fini = cfge_teardown);

struct cfge_case {
    const char *text;
    int line;                   /* expected line of the message */
    const char *message;        /* expected message after "file:line: " */
};

#define REF "[fs ref]\ntype = reffs\n"   /* lines 1-2 of most cases */

/* Loads text and checks the error is exactly "<path>:<line>: <message>". */
static void cfge_check(const struct cfge_case *c)
{
    FILE *f = fopen(cfge_path, "w");
    cr_assert_not_null(f);
    fputs(c->text, f);
    fclose(f);
    struct metis_config cfg;
    char err[1024] = "", want[1024];
    snprintf(want, sizeof want, "%s:%d: %s", cfge_path, c->line, c->message);
    int rc = config_load(cfge_path, &cfg, err, sizeof err);
    cr_expect_eq(rc, -1, "accepted:\n%s", c->text);
    cr_expect_str_eq(err, want, "for:\n%s", c->text);
}

static void cfge_check_all(const struct cfge_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cfge_check(&cases[i]);
}
#define CHECK_ALL(cases) cfge_check_all(cases, sizeof cases / sizeof cases[0])

Test(metis_config_err, missing_file)
{
    struct metis_config cfg;
    char err[512], want[512], path[256];
    snprintf(path, sizeof path, "%s/none.ini", cfge_dir);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    cr_expect_eq(config_load(path, &cfg, err, sizeof err), -1);
    cr_expect_str_eq(err, want);
}

Test(metis_config_err, syntax_and_sections)
{
    static const struct cfge_case cases[] = {
        { REF "garbage line\n", 3, "syntax error: expected [section], key = value or a comment" },
        { REF "[run\nseed = 1\n", 3, "section header without ']'" },
        { REF "[bogus]\nx = 1\n", 3,
          "unknown section [bogus] (expected run, fs NAME, pool, ops, sizes, bits or vary)" },
        { "seed = 1\n" REF, 1, "'seed' is outside any section" },
        { REF "[fs]\n", 3, "[fs] needs a name: [fs NAME]" },
        { REF "[fs a/b]\ntype = reffs\n", 3, "[fs a/b]: a name is 1..63 of A-Z a-z 0-9 _ -" },
        { REF "[fs ref]\ntype = reffs\n", 3, "[fs ref]: name already used on line 1" },
        { "[run]\nseed = 1\n", 0, "no [fs NAME] section: at least one file system is needed" },
        { "", 0, "no [fs NAME] section: at least one file system is needed" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, too_many_fs)
{
    char text[1024] = "";
    for (int i = 0; i <= METIS_MAX_FS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "[fs r%d]\ntype = reffs\n", i);
    struct cfge_case c = { text, 2 * METIS_MAX_FS + 1, "[fs r8]: more than 8 file systems" };
    cfge_check(&c);
}

Test(metis_config_err, long_line)
{
    char text[1024];
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(text, sizeof text, REF "reffs_opts = %s\n", big);
    struct cfge_case c = { text, 3, "reffs_opts: line too long (at most 198 characters): "
                                    "continue the value on indented lines" };
    cfge_check(&c);
}

Test(metis_config_err, unknown_keys)
{
    static const struct cfge_case cases[] = {
        { "[run]\nsed = 1\n" REF, 2, "[run]: unknown key 'sed'" },
        { REF "color = red\n", 3, "[fs ref]: unknown key 'color'" },
        { REF "[pool]\nfiles = 1\ndir = 1\n", 5, "[pool]: unknown key 'dir'" },
        { REF "[ops]\nwrite = 1\n", 4, "[ops]: unknown operation 'write'" },
        { REF "[sizes]\nread_size = 0:1\n", 4, "[sizes]: unknown key 'read_size'" },
        { REF "[sizes]\nread_size_mode = range\n", 4, "[sizes]: unknown key 'read_size_mode'" },
        { REF "[bits]\nflags = trunc:1\n", 4, "[bits]: unknown key 'flags'" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, bad_numbers)
{
    static const struct cfge_case cases[] = {
        { "[run]\nseed = 12x\n" REF, 2, "seed: '12x' is not a non-negative integer" },
        { "[run]\nops = -1\n" REF, 2, "ops: '-1' is not a non-negative integer" },
        { "[run]\nmax_depth =\n" REF, 2, "max_depth: '' is not a non-negative integer" },
        { "[run]\nseconds = soon\n" REF, 2, "seconds: 'soon' is not a non-negative number" },
        { "[run]\nseconds = -3\n" REF, 2, "seconds: '-3' is not a non-negative number" },
        { "[run]\nseconds = inf\n" REF, 2, "seconds: 'inf' is not a non-negative number" },
        { REF "[pool]\ndirs = -1\n", 4, "dirs: '-1' is not a non-negative integer" },
        { REF "[pool]\nprepopulate = half\n", 4,
          "prepopulate: 'half' is not a non-negative number" },
        { "[run]\nseed = 99999999999999999999\n" REF, 2,
          "seed: '99999999999999999999' is not a non-negative integer" },
        { REF "size = 12Q\n", 3, "size: '12Q' is not a size (bytes, or a number with K, M, G or T)" },
        { REF "size = 99999999999T\n", 3,
          "size: '99999999999T' is not a size (bytes, or a number with K, M, G or T)" },
        { REF "op_timeout = x\n", 3, "op_timeout: 'x' is not a non-negative number" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, out_of_range)
{
    static const struct cfge_case cases[] = {
        { "[run]\nmax_depth = 0\n" REF, 2, "max_depth: 0 is out of range (1..100000000)" },
        { "[run]\nring = 0\n" REF, 2, "ring: 0 is out of range (1..1000000)" },
        { "[run]\nhashtable_log2 = 40\n" REF, 2, "hashtable_log2: 40 is out of range (10..32)" },
        { REF "op_timeout = 0\n", 3, "op_timeout: 0 is out of range (0.001..86400)" },
        { REF "[pool]\nname_len = 256\n", 4, "name_len: 256 is out of range (0..255)" },
        { REF "[pool]\nfiles = 0\n", 4, "files: 0 is out of range (1..64)" },
        { REF "[pool]\ndepth = 17\n", 4, "depth: 17 is out of range (0..16)" },
        { REF "[pool]\nprepopulate = 1.5\n", 4, "prepopulate: 1.5 is out of range (0..1)" },
        { REF "[ops]\nmkdir = 1001\n", 4, "mkdir: weight 1001 is out of range (0..1000)" },
        { REF "[ops]\nmkdir = lots\n", 4, "mkdir: weight 'lots' is not a non-negative integer" },
        { REF "[pool]\nexisting = 2\n", 4, "existing: 2 is out of range (0..1)" },
        { "[run]\nmax_searches = -1\n" REF, 2, "max_searches: '-1' is not a non-negative integer" },
        { REF "[sizes]\nwrite_end_boundary = 1.5\n", 4,
          "write_end_boundary: 1.5 is out of range (0..1)" },
        { REF "[sizes]\nfalloc_end_boundary = x\n", 4,
          "falloc_end_boundary: 'x' is not a non-negative number" },
        { REF "[vary]\nfill = 3\n", 4, "fill: 3 is out of range (0..1)" },
        { REF "[vary]\nbytes_left = 1Q\n", 4,
          "bytes_left: '1Q' is not a size (bytes, or a number with K, M, G or T)" },
        { REF "[vary]\nfill_inodes = 1.5\n", 4, "fill_inodes: 1.5 is out of range (0..1)" },
        { REF "[vary]\ncolour = 1\n", 4, "[vary]: unknown key 'colour'" },
    };
    CHECK_ALL(cases);
}

/* A device filled alike runs out of space alike only on file systems of one kind: a config
 * that mixes kinds loads, and no search of it fills (vary_skipped says so). */
Test(metis_config_err, fill_skipped_for_two_kinds)
{
    struct metis_config cfg;
    char err[1024], note[400];
    FILE *f = fopen(cfge_path, "w");
    fputs(REF "[fs k]\ntype = kernel\nfstype = ext4\n[vary]\nfill = 1\nfill_inodes = 1\n", f);
    fclose(f);
    cr_assert_eq(config_load(cfge_path, &cfg, err, sizeof err), 0, "%s", err);
    vary_apply(&cfg);
    cr_expect_eq(cfg.vary.fill_on + cfg.vary.fill_inodes_on, 0, "two kinds: no search fills");
    cr_assert_not_null(vary_skipped(&cfg, note, sizeof note));
    cr_expect(strstr(note, "[fs ref] and [fs k] are of different kinds"), "%s", note);
    f = fopen(cfge_path, "w");
    fputs(REF "[fs two]\ntype = reffs\n[vary]\nfill = 1\n", f);
    fclose(f);
    cr_assert_eq(config_load(cfge_path, &cfg, err, sizeof err), 0, "%s", err);
    vary_apply(&cfg);
    cr_expect_eq(cfg.vary.fill_on, 1, "one kind: fill = 1 fills every search");
    cr_expect_null(vary_skipped(&cfg, note, sizeof note));
}

Test(metis_config_err, strings_bools_and_hash)
{
    static const struct cfge_case cases[] = {
        { "[run]\nkeep_going = maybe\n" REF, 2,
          "keep_going: 'maybe' is not a boolean (1/0, yes/no, true/false, on/off)" },
        { REF "remount = 2\n", 3,
          "remount: '2' is not a boolean (1/0, yes/no, true/false, on/off)" },
        { "[run]\nhash = nosuchdigest\n" REF, 2,
          "hash: 'nosuchdigest' is not a digest OpenSSL knows (e.g. md5, sha1, sha256)" },
        { "[run]\nhash = " "abcdefghijabcdefghijabcdefghijab\n" REF, 2,
          "hash: value too long (at most 31 characters)" },
        { "[fs k]\ntype = kernel\nfstype = ext/4\n", 3,
          "fstype: 'ext/4' is not a file system type name" },
        { REF "exclude = lost+found, a/b\n", 3, "exclude: 'a/b' is not a name in the root directory" },
        { REF "exclude = ..\n", 3, "exclude: '..' is not a name in the root directory" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, ignore_names_come_from_the_abstraction)
{
    static const struct cfge_case cases[] = {
        { REF "ignore = dir_nlink, atime\n", 3,
          "ignore: unknown ignore name 'atime' (known: dir_nlink, xattrs, mode, owner)" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, fs_types)
{
    static const struct cfge_case cases[] = {
        { "[fs a]\ntype = ntfs\n", 2, "type: 'ntfs' is not kernel, reffs or fuse" },
        { "[fs a]\nsize = 1M\n", 1, "[fs a]: no type (kernel, reffs or fuse)" },
        { REF "[fs k]\ntype = kernel\nsize = 1M\n", 3,
          "[fs k]: a kernel file system needs fstype (e.g. ext4)" },
        { REF "[fs f]\ntype = fuse\nunmount_cmd = x\n", 3,
          "[fs f]: a fuse file system needs mount_cmd" },
        { "[fs r]\nfstype = ext4\ntype = reffs\n", 2,
          "[fs r]: fstype does not apply to a reffs file system" },
        { "[fs k]\ntype = kernel\nfstype = ext4\nmount_cmd = x\n", 4,
          "[fs k]: mount_cmd does not apply to a kernel file system" },
        { "[fs k]\ntype = kernel\nfstype = ext4\nreffs_opts = x\n", 4,
          "[fs k]: reffs_opts does not apply to a kernel file system" },
        { "[fs f]\ntype = fuse\nmount_cmd = x\nmount_opts = ro\n", 4,
          "[fs f]: mount_opts does not apply to a fuse file system" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, pool)
{
    static const struct cfge_case cases[] = {
        { REF "[pool]\ndirs = 16\ndepth = 3\n", 5,
          "[pool]: 4368 directories and 2 files per directory exceed 4096 paths" },
        { REF "[pool]\nuids = 0 x\n", 4, "uids: 'x' is not an id (0..4294967294)" },
        { REF "[pool]\ngids = 4294967295\n", 4, "gids: '4294967295' is not an id (0..4294967294)" },
        { REF "[pool]\nuids = 1 2 3 4 5 6 7 8 9\n", 4, "uids: more than 8 ids" },
        { REF "[pool]\ngids = , \n", 4, "gids: needs at least one id" },
        { REF "[pool]\ndepth = 16\nname_len = 255\ndirs = 1\nfiles = 1\n", 7,
          "[pool]: depth 16 with name_len 255 makes paths longer than 4095" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, ops_all_zero)
{
    char text[2048] = REF "\n[ops]\n";
    static const char *const ops[] = {
#define CFGE_OP(n) #n,
        METIS_OPS(CFGE_OP)
#undef CFGE_OP
    };
    for (int i = 0; i < OP_COUNT; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s = 0\n", ops[i]);
    struct cfge_case c = { text, 4, "[ops]: every weight is 0; at least one operation needs one" };
    cfge_check(&c);
}

Test(metis_config_err, partitions)
{
    static const struct cfge_case cases[] = {
        { REF "[sizes]\nwrite_size = 0:1 3:1\n", 4,
          "write_size: lower bound '3' is neither 0 nor a power of two" },
        { REF "[sizes]\nwrite_size = x:1\n", 4,
          "write_size: lower bound 'x' is neither 0 nor a power of two" },
        { REF "[sizes]\nwrite_size = 0:0 1:0\n", 4, "write_size: every weight is 0" },
        { REF "[sizes]\nwrite_size =\n", 4,
          "write_size: no partitions (expected BOUND:WEIGHT ...)" },
        { REF "[sizes]\nwrite_size = 0 1\n", 4, "write_size: '0' is not BOUND:WEIGHT" },
        { REF "[sizes]\ntrunc_size = 4:1 4:2\n", 4, "trunc_size: lower bound 4 given twice" },
        { REF "[sizes]\ntrunc_size = 4:-1\n", 4,
          "trunc_size: weight '-1' is not a non-negative number" },
        { REF "[sizes]\nxattr_size = 65536:1\n", 4,
          "xattr_size: lower bound 65536 is beyond the largest allowed (32768)" },
        { REF "[sizes]\nxattr_size = uniform:17\n", 4,
          "xattr_size: uniform:17: N must be an integer 0..16" },
        { REF "[sizes]\nfalloc_len = uniform:x\n", 4,
          "falloc_len: uniform:x: N must be an integer 0..62" },
        { REF "[sizes]\nfalloc_len_mode = edges\n", 4,
          "falloc_len_mode: 'edges' is not range, boundary or boundary_pm1" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, bits)
{
    static const struct cfge_case cases[] = {
        { REF "[bits]\nmode = suid:0.1 setuid:1\n", 4, "mode: unknown bit 'setuid'" },
        { REF "[bits]\nmode = ur:1.5\n", 4, "mode: probability '1.5' of ur is not a number 0..1" },
        { REF "[bits]\nmode = ur\n", 4, "mode: 'ur' is not NAME:PROBABILITY" },
        { REF "[bits]\nmode = ur:1 ur:0\n", 4, "mode: bit 'ur' given twice" },
        { REF "[bits]\nopen_flags = rdwr:0.5 wronly:0.5\n", 4,
          "open_flags: rdwr and wronly cannot both be drawn (O_WRONLY|O_RDWR is no access mode)" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, sizing_rule)
{
    static const struct cfge_case cases[] = {
        /* 6 files below 128 KiB each on a 256 KiB device */
        { "[fs k]\ntype = kernel\nfstype = ext4\nsize = 256K\n[sizes]\nwrite_size = uniform:16\n"
          "write_offset = uniform:16\n", 4,
          "[fs k]: the pool can hold 790296 bytes of data, more than half of its 256 KiB: "
          "shrink [sizes] or [pool], or grow size" },
        /* size 0 is the smallest the fstype accepts: 256 KiB for ext4 */
        { "[fs k]\ntype = kernel\nfstype = ext4\n[sizes]\ntrunc_size = 65536:1\n", 1,
          "[fs k]: the pool can hold 790290 bytes of data, more than half of its 256 KiB: "
          "shrink [sizes] or [pool], or grow size" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, first_problem_wins)
{
    static const struct cfge_case cases[] = {
        { REF "[run]\nseed = x\nops = y\n", 4, "seed: 'x' is not a non-negative integer" },
        { REF "nonsense\n[run]\nseed = x\n", 3,
          "syntax error: expected [section], key = value or a comment" },
        { REF "[run]\nseed = x\nnonsense\n", 4, "seed: 'x' is not a non-negative integer" },
    };
    CHECK_ALL(cases);
}

Test(metis_config_err, fuse_restore)
{
    static const struct cfge_case cases[] = {
        { REF "[fs f]\ntype = fuse\nmount_cmd = x\nrestore = undo\n", 6,
          "restore: 'undo' is not auto, snapshot, logical or replay" },
        { REF "[fs f]\ntype = fuse\nmount_cmd = x\nsize = 1M\nrestore = logical\n", 7,
          "[fs f]: restore applies to a fuse file system without size (with a size its states "
          "are images)" },
        { REF "restore = replay\n", 3, "[fs ref]: restore does not apply to a reffs file system" },
        { REF "[run]\nequalize_limit = lots\n", 4,
          "equalize_limit: 'lots' is not a size (bytes, or a number with K, M, G or T)" },
    };
    CHECK_ALL(cases);
}
