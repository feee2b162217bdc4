/* Unit tests of flags by name (opflags.c) and of the trace's start record (trace.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/ops/opflags.h"
#include "trace/trace.h"

static void named(const char *op, const char *want)
{
    struct op_args a;
    char err[200], buf[600];
    cr_assert_eq(op_parse(op, &a, err, sizeof err), 0, "%s: %s", op, err);
    cr_assert_eq(op_format_named(&a, buf, sizeof buf), 0);
    cr_assert_str_eq(buf, want);
}

Test(metis_opflags, each_flag_family_by_name)
{
    named("write_file path=/f0 flags=0x401 off=0 size=3 seed=0x1",
          "write_file path=/f0 flags=O_WRONLY|O_APPEND off=0 size=3 seed=0x1");
    named("create_file path=/f0 flags=0xc2 mode=0644",
          "create_file path=/f0 flags=O_RDWR|O_CREAT|O_EXCL mode=0644");
    named("setxattr path=/f0 flags=0x2 size=1 xname=user.x0 seed=0x1",
          "setxattr path=/f0 flags=XATTR_REPLACE size=1 xname=user.x0 seed=0x1");
    named("rename path=/f0 path2=/f1 flags=0x2", "rename path=/f0 path2=/f1 flags=RENAME_EXCHANGE");
    named("rename path=/f0 path2=/f1 flags=0x0", "rename path=/f0 path2=/f1 flags=0");
    named("fallocate_file path=/f0 flags=0x3 off=0 size=1",
          "fallocate_file path=/f0 flags=FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE off=0 size=1");
    named("mknod path=/f0 flags=0x1000 mode=0644 rdev=0x0",
          "mknod path=/f0 flags=S_IFIFO mode=0644 rdev=0x0");
    named("chmod path=/f0 mode=0644", "chmod path=/f0 mode=0644");
}

Test(metis_opflags, unknown_bits_stay_hex)
{
    named("setxattr path=/f0 flags=0x6 size=1 xname=user.x0 seed=0x1",
          "setxattr path=/f0 flags=XATTR_REPLACE|0x4 size=1 xname=user.x0 seed=0x1");
}

Test(metis_opflags, start_record_round_trip_and_misplaced)
{
    static const char good[] = "metis-trace 1\nrun seed=1 hash=md5\n"
        "fs 0 name=a type=kernel fstype=ext4 size=262144\n"
        "op 3 mkdir path=/d0 mode=0755\nop 9 rmdir path=/d0\nstart 9\nstate a /run dir/a-9.img\n"
        "op 12 mkdir path=/d0 mode=0700\nend ops=3\n";
    struct trace t;
    char err[300], *text = NULL;
    size_t len = 0;
    cr_assert_eq(trace_parse(good, strlen(good), "t", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.start, 2);
    cr_assert_str_eq(t.start_state[0], "/run dir/a-9.img");
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(trace_write(&t, f), 0);
    fclose(f);
    cr_assert_str_eq(text, good);
    free(text);
    trace_free(&t);
    static const char bad[] = "metis-trace 1\nrun seed=1 hash=md5\n"
        "fs 0 name=a type=kernel fstype=ext4 size=262144\n"
        "op 3 mkdir path=/d0 mode=0755\nstart 2\nend ops=1\n";
    cr_assert_eq(trace_parse(bad, strlen(bad), "t", &t, err, sizeof err), -1);
    cr_assert(strstr(err, "t:5:") != NULL, "%s", err);
    trace_free(&t);
}
