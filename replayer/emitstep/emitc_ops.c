/* emit-c's per-operation emitters: each operation's syscall as the C statements of the reproducer, exactly as ops.c runs it. */
#include "emitc_ops.h"

#include <inttypes.h>
#include <linux/falloc.h>
#include <sys/stat.h>

void emitc_cstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\%03o", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Closes fd in the program without disturbing errno. */
#define CLOSE_KEEP(fd) "if (" fd " >= 0) { int e = errno; close(" fd "); errno = e; }"

static void emit_create_file(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { int fd = open("); emitc_cstr(f, a->path + 1);
    fprintf(f, ", 0x%x | O_CREAT | O_NONBLOCK, 0%o); r = fd < 0 ? -1 : 0; " CLOSE_KEEP("fd") " }\n",
            (unsigned)a->flags, (unsigned)a->mode);
}

/* A write past METIS_WRITE_MAX fails with EFBIG, as Metis's driver fails it (ops.c). */
static void emit_write_file(FILE *f, const struct op_args *a)
{
    fprintf(f, "    if (%" PRIu64 "ull > " METIS_STRINGIFY(METIS_WRITE_MAX) ") { errno = EFBIG; r = -1; } else {\n"
            "        int fd = open(", a->size); emitc_cstr(f, a->path + 1);
    fprintf(f, ", 0x%x | O_NONBLOCK, 0%o);\n        r = fd < 0 ? -1 : pwrite(fd, data(0x%" PRIx64 "ull, %" PRIu64
            "u), %" PRIu64 "u, %" PRIu64 ");\n"
            "        " CLOSE_KEEP("fd") "\n    }\n",
            (unsigned)a->flags, (unsigned)a->mode, a->data_seed, a->size, a->size, a->offset);
}

static void emit_truncate(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = truncate("); emitc_cstr(f, a->path + 1); fprintf(f, ", %" PRIu64 ");\n", a->size);
}

static void emit_fallocate_file(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { int fd = open("); emitc_cstr(f, a->path + 1);
    if (a->flags & FALLOC_FL_INSERT_RANGE)
        fprintf(f, ", O_RDWR | O_NONBLOCK);\n      if (fd >= 0 && insert_past_cap(fd, %" PRIu64 "u)) {"
                " errno = EFBIG; r = -1; } else\n      ", a->size);
    else
        fprintf(f, ", O_RDWR | O_NONBLOCK); ");
    fprintf(f, "r = fd < 0 ? -1 : fallocate(fd, 0x%x, %" PRIu64 ", %" PRIu64 "); " CLOSE_KEEP("fd") " }\n",
            (unsigned)a->flags, a->offset, a->size);
}

static void emit_chmod(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = chmod("); emitc_cstr(f, a->path + 1); fprintf(f, ", 0%o);\n", (unsigned)a->mode);
}

static void emit_chown_file(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = chown("); emitc_cstr(f, a->path + 1);
    fprintf(f, ", (uid_t)%" PRIu32 "u, (gid_t)-1);\n", a->uid);
}

static void emit_chgrp_file(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = chown("); emitc_cstr(f, a->path + 1);
    fprintf(f, ", (uid_t)-1, (gid_t)%" PRIu32 "u);\n", a->gid);
}

static void emit_unlink(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = unlink("); emitc_cstr(f, a->path + 1); fprintf(f, ");\n");
}

static void emit_mkdir(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = mkdir("); emitc_cstr(f, a->path + 1); fprintf(f, ", 0%o);\n", (unsigned)a->mode);
}

static void emit_rmdir(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = rmdir("); emitc_cstr(f, a->path + 1); fprintf(f, ");\n");
}

static void emit_rename(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = syscall(SYS_renameat2, AT_FDCWD, "); emitc_cstr(f, a->path + 1);
    fprintf(f, ", AT_FDCWD, "); emitc_cstr(f, a->path2 + 1); fprintf(f, ", 0x%x);\n", (unsigned)a->flags);
}

static void emit_link(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = linkat(AT_FDCWD, "); emitc_cstr(f, a->path + 1); fprintf(f, ", AT_FDCWD, ");
    emitc_cstr(f, a->path2 + 1); fprintf(f, ", 0);\n");
}

static void emit_symlink(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = symlink("); emitc_cstr(f, a->path2); fprintf(f, ", "); emitc_cstr(f, a->path + 1);
    fprintf(f, ");\n");
}

/* A value past the kernel's limit is refused (E2BIG) before it is read: no bytes are made. */
static void emit_setxattr(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = setxattr("); emitc_cstr(f, a->path + 1); fprintf(f, ", "); emitc_cstr(f, a->xname);
    fprintf(f, ", data(0x%" PRIx64 "ull, %" PRIu64 "u), %" PRIu64 "u, 0x%x);\n", a->data_seed,
            a->size > METIS_XATTR_VALUE_MAX ? 0 : a->size, a->size, (unsigned)a->flags);
}

static void emit_removexattr(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = removexattr("); emitc_cstr(f, a->path + 1); fprintf(f, ", "); emitc_cstr(f, a->xname);
    fprintf(f, ");\n");
}

static void emit_copy_range(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { int in = open("); emitc_cstr(f, a->path + 1);
    fprintf(f, ", O_RDONLY | O_NONBLOCK), out = in < 0 ? -1 : open("); emitc_cstr(f, a->path2 + 1);
    fprintf(f, ", O_WRONLY | O_NONBLOCK);\n      r = out < 0 ? -1 : copy_all(in, out, %" PRIu64 ", %"
            PRIu64 ", %" PRIu64 "u);\n      " CLOSE_KEEP("out") " " CLOSE_KEEP("in") " }\n",
            a->offset, a->offset2, a->size);
}

static void emit_mknod(FILE *f, const struct op_args *a)
{
    fprintf(f, "    r = mknod("); emitc_cstr(f, a->path + 1);
    fprintf(f, ", 0%o | 0%o, (dev_t)0x%" PRIx64 "ull);\n", (unsigned)a->flags & S_IFMT,
            (unsigned)a->mode & 07777, a->rdev);
}

/* open_unlink: the name goes, the fd stays; then a write or truncate through it. */
static void emit_open_unlink(FILE *f, const struct op_args *a)
{
    const char *p = a->path + 1;
    fprintf(f, "    { int fd = open("); emitc_cstr(f, p); fprintf(f, ", O_RDWR | O_NONBLOCK);\n");
    fprintf(f, "      r = fd < 0 ? -1 : unlink("); emitc_cstr(f, p); fprintf(f, ");\n");
    if (a->flags == OU_TRUNCATE)
        fprintf(f, "      if (r == 0) r = ftruncate(fd, %" PRIu64 ");\n", a->size);
    else if (a->size > METIS_WRITE_MAX)
        fprintf(f, "      if (r == 0) { errno = EFBIG; r = -1; }\n");
    else
        fprintf(f, "      if (r == 0) r = pwrite(fd, data(0x%" PRIx64 "ull, %" PRIu64 "u), %" PRIu64
                "u, %" PRIu64 ");\n", a->data_seed, a->size, a->size, a->offset);
    fprintf(f, "      " CLOSE_KEEP("fd") " }\n");
}

static void emit_utimes(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { struct timespec ts[2] = { { 0, UTIME_OMIT }, { %" PRId64 ", %ld } }; "
            "r = utimensat(AT_FDCWD, ", a->mtime_sec, a->mtime_nsec);
    emitc_cstr(f, a->path + 1); fprintf(f, ", ts, 0); }\n");
}

/* One emitter per operation of METIS_OPS: one without its emit_NAME does not compile. */
static emitc_op_fn *const emitters[OP_COUNT] = {
#define EMIT_ROW(n) [OP_##n] = emit_##n,
    METIS_OPS(EMIT_ROW)
#undef EMIT_ROW
};

emitc_op_fn *emitc_emitter(enum op_id op)
{
    return (unsigned)op < OP_COUNT ? emitters[op] : NULL;
}

