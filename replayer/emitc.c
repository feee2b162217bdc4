/* The emit-c command: writes repro.c (the operations as plain syscalls, write bytes derived in-program) and run.sh. */
#include "config.h"
#include "ops.h"
#include "input.h"
#include "prepopulate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/falloc.h>

#include "cli.h"
#include "trace.h"

/* ---- C text ---- */

static void cstr(FILE *f, const char *s)
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

static const char *errno_symbol(int err)
{
    const char *n = err ? strerrorname_np(err) : NULL;
    return n ? n : "0";
}

static const char program_head[] =
    "#define _GNU_SOURCE\n"
    "#include <dirent.h>\n#include <errno.h>\n#include <fcntl.h>\n#include <stdint.h>\n"
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <sys/stat.h>\n"
    "#include <sys/syscall.h>\n#include <sys/xattr.h>\n#include <unistd.h>\n\n"
    "/* The bytes Metis writes: splitmix64 of the write's seed, 8 bytes at a time, little end first. */\n"
    "static uint64_t splitmix64(uint64_t *x)\n{\n"
    "    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);\n"
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
    "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
    "    return z ^ (z >> 31);\n}\n\n"
    "static unsigned char *data(uint64_t seed, size_t len)\n{\n"
    "    static unsigned char *buf;\n    static size_t cap;\n"
    "    if (len + 8 > cap) {\n"
    "        cap = len + 8;\n        buf = realloc(buf, cap);\n"
    "        if (!buf) {\n            perror(\"repro: data\");\n            exit(2);\n        }\n    }\n"
    "    for (size_t i = 0; i < len; i += 8) {\n"
    "        uint64_t v = splitmix64(&seed);\n"
    "        for (int k = 0; k < 8; k++)\n"
    "            buf[i + k] = (unsigned char)(v >> (8 * k));\n    }\n"
    "    return buf;\n}\n\n"
    "static const char *ename(int e)\n{\n"
    "    static char num[16];\n    if (e == 0)\n        return \"0\";\n"
    "#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)\n"
    "    if (strerrorname_np(e))\n        return strerrorname_np(e);\n#endif\n"
    "    snprintf(num, sizeof num, \"%d\", e);\n    return num;\n}\n\n"
    "static int verbose;\n\n"
    "/* Prints one step; 1 when it differs from what the reference file system did. */\n"
    "static int report(int step, const char *text, long ret, int have, long ref_ret, int ref_err,\n"
    "                  int have_rec, long rec_ret, int rec_err)\n{\n"
    "    int err = ret < 0 ? (errno ? errno : EIO) : 0;\n"
    "    int differs = have && (ret != ref_ret || err != ref_err);\n"
    "    printf(\"step %d: %s -> ret=%ld errno=%s\", step, text, ret, ename(err));\n"
    "    if (have)\n        printf(\"; reference \" REF_NAME \": ret=%ld errno=%s\", ref_ret, ename(ref_err));\n"
    "    if (have_rec)\n        printf(\"; recorded on \" FS_NAME \": ret=%ld errno=%s\", rec_ret, ename(rec_err));\n"
    "    printf(\"%s\\n\", differs ? \"  DIFFERS FROM THE REFERENCE\" : \"\");\n"
    "    return differs;\n}\n\n"
    "static void pre_report(const char *text, long ret)\n{\n"
    "    if (verbose || (ret < 0 && errno != EBADF))\n"
    "        printf(\"setup: %s -> ret=%ld errno=%s\\n\", text, ret, ret < 0 ? ename(errno) : \"0\");\n}\n\n";

/* What the operations added with issue 15 need besides a syscall each. */
static const char program_newops[] =
    "/* copy_range: called again until the range is done or the source ends, as Metis does. */\n"
    "static long copy_all(int in, int out, off_t off_in, off_t off_out, uint64_t len)\n{\n"
    "    uint64_t total = 0;\n"
    "    while (len > 0) {\n"
    "        ssize_t n = copy_file_range(in, &off_in, out, &off_out, len > (64u << 20) ? (64u << 20) : len, 0);\n"
    "        if (n < 0)\n            return -1;\n        if (n == 0)\n            break;\n"
    "        total += (uint64_t)n;\n        len -= (uint64_t)n;\n    }\n"
    "    return (long)total;\n}\n\n"
    "/* Metis fails an INSERT_RANGE that would take a file past its run's per-file bound with EFBIG. */\n"
    "static int insert_past_cap(int fd, uint64_t len)\n{\n"
    "    struct stat st;\n"
    "    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size + len > INSERT_CAP;\n}\n\n";

static const char program_tree[] =
    "/* The final tree: every entry with its metadata, contents and xattrs digested (FNV-1a). */\n"
    "static uint64_t fnv(const unsigned char *p, size_t n, uint64_t h)\n{\n"
    "    for (size_t i = 0; i < n; i++)\n        h = (h ^ p[i]) * 0x100000001b3ull;\n    return h;\n}\n\n"
    "static void print_xattrs(const char *path)\n{\n"
    "    char names[65536], val[65536];\n"
    "    ssize_t n = llistxattr(path, names, sizeof names);\n"
    "    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1) {\n"
    "        ssize_t v = lgetxattr(path, names + i, val, sizeof val);\n"
    "        printf(\" xattr %s=%zd:%016llx\", names + i, v,\n"
    "               (unsigned long long)fnv((unsigned char *)val, v > 0 ? (size_t)v : 0, 0xcbf29ce484222325ull));\n"
    "    }\n}\n\n"
    "static void print_contents(const char *path)\n{\n"
    "    unsigned char buf[65536];\n    uint64_t h = 0xcbf29ce484222325ull;\n"
    "    int fd = open(path, O_RDONLY | O_NOFOLLOW);\n    ssize_t n;\n"
    "    if (fd < 0) {\n        printf(\" contents=unreadable(%s)\", ename(errno));\n        return;\n    }\n"
    "    while ((n = read(fd, buf, sizeof buf)) > 0)\n        h = fnv(buf, (size_t)n, h);\n"
    "    close(fd);\n    printf(\" contents=%016llx\", (unsigned long long)h);\n}\n\n"
    "static int excluded(const char *name)\n{\n"
    "    for (int i = 0; EXCLUDE[i]; i++)\n        if (strcmp(EXCLUDE[i], name) == 0)\n            return 1;\n"
    "    return 0;\n}\n\n"
    "static void tree(const char *dir, int root)\n{\n"
    "    struct dirent **ents;\n    int n = scandir(dir, &ents, NULL, alphasort);\n"
    "    if (n < 0) {\n        printf(\"%s: cannot list: %s\\n\", dir, ename(errno));\n        return;\n    }\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        const char *name = ents[i]->d_name;\n        char path[8192], target[4096];\n        struct stat st;\n"
    "        if (!strcmp(name, \".\") || !strcmp(name, \"..\") || (root && excluded(name)))\n            continue;\n"
    "        snprintf(path, sizeof path, \"%s/%s\", dir, name);\n"
    "        if (lstat(path, &st) < 0)\n            continue;\n"
    "        char type = S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' : '?';\n"
    "        printf(\"%c %s mode=%04o uid=%u gid=%u nlink=%lu size=%lld\", type, path + 1,\n"
    "               (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,\n"
    "               (unsigned long)st.st_nlink, (long long)st.st_size);\n"
    "        if (type == 'l') {\n"
    "            ssize_t k = readlink(path, target, sizeof target - 1);\n"
    "            target[k > 0 ? k : 0] = 0;\n            printf(\" -> %s\", target);\n        }\n"
    "        if (type == 'f')\n            print_contents(path);\n"
    "        if (type != 'l')\n            print_xattrs(path);\n"
    "        printf(\"\\n\");\n"
    "        if (type == 'd')\n            tree(path, 0);\n    }\n"
    "    for (int i = 0; i < n; i++)\n        free(ents[i]);\n    free(ents);\n}\n\n";

static const char program_main[] =
    "int main(int argc, char **argv)\n{\n"
    "    const char *what = argc > 2 ? argv[2] : \"all\";\n"
    "    verbose = getenv(\"REPRO_VERBOSE\") != NULL;\n"
    "    if (argc < 2 || argc > 4) {\n"
    "        fprintf(stderr, \"usage: %s MOUNT_POINT [all | pre | step K | tree]\\n\", argv[0]);\n"
    "        return 2;\n    }\n"
    "    if (chdir(argv[1]) < 0) {\n"
    "        fprintf(stderr, \"repro: %s: %s\\n\", argv[1], strerror(errno));\n        return 2;\n    }\n"
    "    setvbuf(stdout, NULL, _IOLBF, 0);\n"
    "    umask(UMASK);\n"
    "    int differs = 0;\n"
    "    if (!strcmp(what, \"all\") || !strcmp(what, \"pre\"))\n        prepopulate();\n"
    "    if (!strcmp(what, \"all\"))\n"
    "        for (int k = 1; k <= NSTEPS; k++)\n            differs |= step(k);\n"
    "    if (!strcmp(what, \"step\") && argc == 4)\n        differs |= step(atoi(argv[3]));\n"
    "    if (!strcmp(what, \"all\") || !strcmp(what, \"tree\")) {\n"
    "        printf(\"tree after the steps:\\n\");\n        tree(\".\", 1);\n    }\n"
    "    if (!strcmp(what, \"all\"))\n"
    "        printf(\"%s\\n\", differs ? \"repro: the defect shows: a step differs from the reference\"\n"
    "                                : \"repro: every step did what the reference did\");\n"
    "    return differs ? 1 : 0;\n}\n";

/* Closes fd in the program without disturbing errno. */
#define CLOSE_KEEP(fd) "if (" fd " >= 0) { int e = errno; close(" fd "); errno = e; }"

static void emit_fallocate(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { int fd = open("); cstr(f, a->path + 1);
    if (a->flags & FALLOC_FL_INSERT_RANGE)
        fprintf(f, ", O_RDWR | O_NONBLOCK);\n      if (fd >= 0 && insert_past_cap(fd, %" PRIu64 "u)) {"
                " errno = EFBIG; r = -1; } else\n      ", a->size);
    else
        fprintf(f, ", O_RDWR | O_NONBLOCK); ");
    fprintf(f, "r = fd < 0 ? -1 : fallocate(fd, 0x%x, %" PRIu64 ", %" PRIu64 "); " CLOSE_KEEP("fd") " }\n",
            (unsigned)a->flags, a->offset, a->size);
}

static void emit_copy_range(FILE *f, const struct op_args *a)
{
    fprintf(f, "    { int in = open("); cstr(f, a->path + 1);
    fprintf(f, ", O_RDONLY | O_NONBLOCK), out = in < 0 ? -1 : open("); cstr(f, a->path2 + 1);
    fprintf(f, ", O_WRONLY | O_NONBLOCK);\n      r = out < 0 ? -1 : copy_all(in, out, %" PRIu64 ", %"
            PRIu64 ", %" PRIu64 "u);\n      " CLOSE_KEEP("out") " " CLOSE_KEEP("in") " }\n",
            a->offset, a->offset2, a->size);
}

/* open_unlink: the name goes, the fd stays; then a write or truncate through it. */
static void emit_open_unlink(FILE *f, const struct op_args *a)
{
    const char *p = a->path + 1;
    fprintf(f, "    { int fd = open("); cstr(f, p); fprintf(f, ", O_RDWR | O_NONBLOCK);\n");
    fprintf(f, "      r = fd < 0 ? -1 : unlink("); cstr(f, p); fprintf(f, ");\n");
    if (a->flags == OU_TRUNCATE)
        fprintf(f, "      if (r == 0) r = ftruncate(fd, %" PRIu64 ");\n", a->size);
    else if (a->size > (64u << 20))
        fprintf(f, "      if (r == 0) { errno = EFBIG; r = -1; }\n");
    else
        fprintf(f, "      if (r == 0) r = pwrite(fd, data(0x%" PRIx64 "ull, %" PRIu64 "u), %" PRIu64
                "u, %" PRIu64 ");\n", a->data_seed, a->size, a->size, a->offset);
    fprintf(f, "      " CLOSE_KEEP("fd") " }\n");
}

/* The operations added after the first fifteen. */
static void emit_newer(FILE *f, const struct op_args *a)
{
    switch (a->op) {
    case OP_copy_range:
        emit_copy_range(f, a);
        break;
    case OP_mknod:
        fprintf(f, "    r = mknod("); cstr(f, a->path + 1);
        fprintf(f, ", 0%o | 0%o, (dev_t)0x%" PRIx64 "ull);\n", (unsigned)a->flags & S_IFMT,
                (unsigned)a->mode & 07777, a->rdev);
        break;
    case OP_open_unlink:
        emit_open_unlink(f, a);
        break;
    case OP_utimes:
        fprintf(f, "    { struct timespec ts[2] = { { 0, UTIME_OMIT }, { %" PRId64 ", %ld } }; r = utimensat(AT_FDCWD, ",
                a->mtime_sec, a->mtime_nsec);
        cstr(f, a->path + 1); fprintf(f, ", ts, 0); }\n");
        break;
    default:
        fprintf(f, "    errno = EINVAL; r = -1;\n");
    }
}

/* The syscall of one operation, as a statement setting r (errno kept from the call). */
static void emit_call(FILE *f, const struct op_args *a)
{
    const char *p = a->path + 1;
    switch (a->op) {
    case OP_create_file:
        fprintf(f, "    { int fd = open("); cstr(f, p);
        fprintf(f, ", 0x%x | O_CREAT | O_NONBLOCK, 0%o); r = fd < 0 ? -1 : 0; if (fd >= 0) { int e = errno; close(fd); errno = e; } }\n",
                (unsigned)a->flags, (unsigned)a->mode);
        break;
    case OP_write_file:
        fprintf(f, "    if (%" PRIu64 "ull > (64ull << 20)) { errno = EFBIG; r = -1; } else {\n"
                "        int fd = open(", a->size); cstr(f, p);
        fprintf(f, ", 0x%x | O_NONBLOCK, 0%o);\n        r = fd < 0 ? -1 : pwrite(fd, data(0x%" PRIx64 "ull, %" PRIu64
                "u), %" PRIu64 "u, %" PRIu64 ");\n"
                "        if (fd >= 0) { int e = errno; close(fd); errno = e; }\n    }\n",
                (unsigned)a->flags, (unsigned)a->mode, a->data_seed, a->size, a->size, a->offset);
        break;
    case OP_truncate:
        fprintf(f, "    r = truncate("); cstr(f, p); fprintf(f, ", %" PRIu64 ");\n", a->size);
        break;
    case OP_fallocate_file:
        emit_fallocate(f, a);
        break;
    case OP_chmod:
        fprintf(f, "    r = chmod("); cstr(f, p); fprintf(f, ", 0%o);\n", (unsigned)a->mode);
        break;
    case OP_chown_file:
        fprintf(f, "    r = chown("); cstr(f, p); fprintf(f, ", (uid_t)%" PRIu32 "u, (gid_t)-1);\n", a->uid);
        break;
    case OP_chgrp_file:
        fprintf(f, "    r = chown("); cstr(f, p); fprintf(f, ", (uid_t)-1, (gid_t)%" PRIu32 "u);\n", a->gid);
        break;
    case OP_unlink:
        fprintf(f, "    r = unlink("); cstr(f, p); fprintf(f, ");\n");
        break;
    case OP_mkdir:
        fprintf(f, "    r = mkdir("); cstr(f, p); fprintf(f, ", 0%o);\n", (unsigned)a->mode);
        break;
    case OP_rmdir:
        fprintf(f, "    r = rmdir("); cstr(f, p); fprintf(f, ");\n");
        break;
    case OP_rename:
        fprintf(f, "    r = syscall(SYS_renameat2, AT_FDCWD, "); cstr(f, p);
        fprintf(f, ", AT_FDCWD, "); cstr(f, a->path2 + 1); fprintf(f, ", 0x%x);\n", (unsigned)a->flags);
        break;
    case OP_link:
        fprintf(f, "    r = linkat(AT_FDCWD, "); cstr(f, p); fprintf(f, ", AT_FDCWD, ");
        cstr(f, a->path2 + 1); fprintf(f, ", 0);\n");
        break;
    case OP_symlink:
        fprintf(f, "    r = symlink("); cstr(f, a->path2); fprintf(f, ", "); cstr(f, p); fprintf(f, ");\n");
        break;
    case OP_setxattr:
        fprintf(f, "    r = setxattr("); cstr(f, p); fprintf(f, ", "); cstr(f, a->xname);
        fprintf(f, ", data(0x%" PRIx64 "ull, %" PRIu64 "u), %" PRIu64 "u, 0x%x);\n", a->data_seed,
                a->size > METIS_XATTR_VALUE_MAX ? 0 : a->size, a->size, (unsigned)a->flags);
        break;
    case OP_removexattr:
        fprintf(f, "    r = removexattr("); cstr(f, p); fprintf(f, ", "); cstr(f, a->xname); fprintf(f, ");\n");
        break;
    case OP_copy_range:
    case OP_mknod:
    case OP_open_unlink:
    case OP_utimes:
        emit_newer(f, a);
        break;
    default:
        fprintf(f, "    errno = EINVAL; r = -1;\n");
    }
}

static void emit_prepopulate(FILE *f, const struct op_args *pre, size_t n)
{
    char text[2 * METIS_PATH_MAX + 512];
    fprintf(f, "/* The initial state Metis made before the first operation (pool prepopulate). */\n"
            "static void prepopulate(void)\n{\n    long r = 0;\n");
    for (size_t k = 0; k < n; k++) {
        op_format(&pre[k], text, sizeof text);
        fprintf(f, "    errno = 0;\n");
        emit_call(f, &pre[k]);
        fprintf(f, "    pre_report("); cstr(f, text); fprintf(f, ", r);\n");
    }
    fprintf(f, "    (void)r;\n}\n\n");
}

struct emit {
    const struct trace *t;
    const struct metis_config *cfg;
    int map[METIS_MAX_FS];
    int fut;                    /* the fs under test: config index */
};

/* 1 when the fs under test did not run op in the run: a gatekeeper (a fs that lists it
 * `unsupported`, step.c) refused it with EOPNOTSUPP, and the fs under test is none. */
static int skipped_here(const struct emit *e, const struct trace_op *op)
{
    int v = op_variant_of(&op->args);
    if (fs_unsupported(&e->cfg->fs[e->fut], op->args.op, v))
        return 0;
    for (int i = 0; i < e->cfg->nfs; i++) {
        const struct trace_outcome *o = e->map[i] >= 0 ? &op->res[e->map[i]] : NULL;
        if (fs_unsupported(&e->cfg->fs[i], op->args.op, v) && o && o->have && o->err == EOPNOTSUPP)
            return 1;
    }
    return 0;
}

/* A step's call, or the refusal Metis recorded where it did not run the call (skipped_here). */
static void emit_step_call(FILE *f, const struct emit *e, const struct trace_op *op)
{
    if (skipped_here(e, op))
        fprintf(f, "    /* a file system that lists it unsupported refused it: Metis ran it"
                " nowhere else */\n    r = -1; errno = EOPNOTSUPP;\n");
    else
        emit_call(f, &op->args);
}

static void emit_steps(FILE *f, const struct emit *e)
{
    char text[2 * METIS_PATH_MAX + 512];
    int ref = e->map[0], rec = e->map[e->fut];
    fprintf(f, "/* The operations of the trace, one step each. */\nstatic int step(int k)\n{\n"
            "    long r = 0;\n    errno = 0;\n    switch (k) {\n");
    for (size_t k = 0; k < e->t->nops; k++) {
        const struct trace_op *op = &e->t->ops[k];
        const struct trace_outcome *ro = ref >= 0 ? &op->res[ref] : NULL;
        const struct trace_outcome *fo = rec >= 0 ? &op->res[rec] : NULL;
        op_format(&op->args, text, sizeof text);
        fprintf(f, "    case %zu: /* operation %" PRIu64 " of the run */\n", k + 1, op->seq);
        emit_step_call(f, e, op);
        fprintf(f, "    return report(%zu, ", k + 1); cstr(f, text);
        fprintf(f, ", r, %d, %ldL, %s, %d, %ldL, %s);\n", ro && ro->have, ro ? ro->ret : 0,
                errno_symbol(ro ? ro->err : 0), fo && fo->have && e->fut != 0,
                fo ? fo->ret : 0, errno_symbol(fo ? fo->err : 0));
    }
    fprintf(f, "    }\n    fprintf(stderr, \"repro: no step %%d\\n\", k);\n    (void)r;\n"
            "    return 0;\n}\n\n");
}

static void emit_excludes(FILE *f, const char *list)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    fprintf(f, "static const char *const EXCLUDE[] = { \"lost+found\", ");
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        cstr(f, tok);
        fprintf(f, ", ");
    }
    fprintf(f, "NULL };\n\n");
}

static int write_program(const struct emit *e, const char *path, char *err, size_t errlen)
{
    struct op_args *pre;
    size_t npre;
    struct input in;
    const struct fs_config *fut = &e->cfg->fs[e->fut];
    if (input_init(&in, e->cfg, e->cfg->run.seed) < 0)
        return snprintf(err, errlen, "cannot build the name pool"), -1;
    int rc = prepopulate_plan(e->cfg, &in.pool, &pre, &npre);
    input_free(&in);
    if (rc < 0)
        return snprintf(err, errlen, "out of memory for the prepopulation plan"), -1;
    FILE *f = fopen(path, "w");
    if (!f) {
        free(pre);
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    }
    fprintf(f, "/* Standalone reproducer written by metis-replay emit-c from %s: %zu operations on "
            "fs %s (%s), compared with what the reference fs %s did. */\n",
            e->t->file, e->t->nops, fut->name, fut->type == FS_KERNEL ? fut->fstype :
            fut->type == FS_REFFS ? "RefFS" : "FUSE", e->cfg->fs[0].name);
    fprintf(f, "/* Build: cc -o repro repro.c   Run: ./repro MOUNT_POINT (run.sh makes the fs). */\n");
    fprintf(f, "#define FS_NAME \"%s\"\n#define REF_NAME \"%s\"\n#define NSTEPS %zu\n", fut->name,
            e->cfg->fs[0].name, e->t->nops);
    fprintf(f, "/* Metis runs with umask 0: modes are drawn whole. */\n#define UMASK 0\n");
    fprintf(f, "/* The run's per-file bound, past which Metis refuses INSERT_RANGE (ops.h). */\n"
            "#define INSERT_CAP %" PRIu64 "ull\n", config_file_extent(e->cfg));
    fputs(program_head, f);
    fputs(program_newops, f);
    emit_excludes(f, fut->exclude);
    fputs(program_tree, f);
    emit_prepopulate(f, pre, npre);
    emit_steps(f, e);
    fputs(program_main, f);
    free(pre);
    return fclose(f) == 0 ? 0 : (snprintf(err, errlen, "%s: write failed", path), -1);
}

/* ---- run.sh ---- */

/* Single-quoted for sh. */
static void shq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

static const char script_head[] =
    "set -u\n"
    "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
    "cc -O1 -g -o \"$here/repro\" \"$here/repro.c\" || { echo \"run.sh: cannot build repro.c\" >&2; exit 2; }\n"
    "work=$(mktemp -d /dev/shm/metis-repro.XXXXXX) || exit 2\n"
    "mnt=$work/mnt img=$work/fs.img loop= pid=\n"
    "mkdir -p \"$mnt\"\n"
    "cleanup() {\n"
    "  if mountpoint -q \"$mnt\" 2>/dev/null; then umount \"$mnt\" 2>/dev/null || fusermount3 -u \"$mnt\" 2>/dev/null || umount -l \"$mnt\"; fi\n"
    "  [ -n \"$pid\" ] && { kill \"$pid\" 2>/dev/null; wait \"$pid\" 2>/dev/null; }\n"
    "  [ -n \"$loop\" ] && losetup -d \"$loop\" 2>/dev/null\n"
    "  rm -rf \"$work\"\n"
    "}\n"
    "trap cleanup EXIT\ntrap 'exit 130' INT TERM HUP\n"
    "wait_mounted() {\n"
    "  for _ in $(seq 1 200); do mountpoint -q \"$mnt\" && return 0; sleep 0.05; done\n"
    "  echo \"run.sh: $mnt did not get mounted\" >&2; exit 2\n"
    "}\n"
    "rc=0\n";

static void mkfs_line(FILE *f, const struct fs_config *c, uint64_t size)
{
    char cmd[1024];
    fs_format_mkfs_command(c->fstype, size, c->mkfs_opts, "\"$img\"", cmd, sizeof cmd);
    fprintf(f, "  %s >\"$work/mkfs.log\" 2>&1 ||\n"
            "    { cat \"$work/mkfs.log\" >&2; exit 2; }\n", cmd);
}

/* The same size the backend would pick when the config gives none. */
static uint64_t image_size(const struct fs_config *c)
{
    return c->size ? c->size : fs_format_default_size(c->fstype);
}

static void emit_kernel(FILE *f, const struct fs_config *c)
{
    fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", image_size(c));
    mkfs_line(f, c, image_size(c));
    fprintf(f, "  loop=$(losetup -f --show \"$img\") || exit 2\n");
    fprintf(f, "  do_mount() { mount -t %s %s%s \"$loop\" \"$mnt\" || exit 2; }\n", c->fstype,
            c->mount_opts[0] ? "-o " : "", c->mount_opts);
    fprintf(f, "  do_umount() { umount \"$mnt\" || exit 2; }\n");
    if (c->remount)
        fprintf(f, "  # Metis unmounts and mounts again around every operation: so does this.\n"
                "  do_mount; \"$here/repro\" \"$mnt\" pre; do_umount\n"
                "  for k in $(seq 1 %s); do do_mount; \"$here/repro\" \"$mnt\" step \"$k\" || rc=1; do_umount; done\n"
                "  do_mount; \"$here/repro\" \"$mnt\" tree; do_umount\n"
                "  [ $rc = 1 ] && echo \"repro: the defect shows: a step differs from the reference\" ||"
                " echo \"repro: every step did what the reference did\"\n", "$nsteps");
    else
        fprintf(f, "  do_mount; \"$here/repro\" \"$mnt\" || rc=$?; do_umount\n");
}

static void emit_reffs(FILE *f, const struct fs_config *c)
{
    char opts[512];
    if (c->size)
        snprintf(opts, sizeof opts, "capacity=%" PRIu64 "%s%s", c->size, c->reffs_opts[0] ? "," : "",
                 c->reffs_opts);
    else
        snprintf(opts, sizeof opts, "%s", c->reffs_opts);
    fprintf(f, "  # RefFS keeps its state in memory: one mount for all steps.\n");
    fprintf(f, "  bin=${REFFS_BIN:-%s}\n", strstr(c->reffs_opts, "mutation=") ? "reffs-mutant" : "reffs");
    fprintf(f, "  \"$bin\" -f %s%s \"$mnt\" >\"$work/daemon.log\" 2>&1 &\n  pid=$!\n  wait_mounted\n",
            opts[0] ? "-o " : "", opts);
    fprintf(f, "  \"$here/repro\" \"$mnt\" || rc=$?\n");
}

static void emit_fuse(FILE *f, const struct fs_config *c)
{
    if (c->size) {
        fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", c->size);
        if (c->fstype[0])
            mkfs_line(f, c, c->size);
    }
    fprintf(f, "  # The config's mount command, with {mnt}, {img} and {bin} ($METIS_BIN) filled in.\n");
    fprintf(f, "  cmd=");
    shq(f, c->mount_cmd);
    fprintf(f, "\n  cmd=$(printf '%%s' \"$cmd\" | sed \"s|{mnt}|$mnt|g; s|{img}|$img|g; s|{bin}|${METIS_BIN:-.}|g\")\n");
    fprintf(f, "  sh -c \"$cmd\" >\"$work/daemon.log\" 2>&1 &\n  pid=$!\n  wait_mounted\n");
    fprintf(f, "  \"$here/repro\" \"$mnt\" || rc=$?\n");
}

static int write_script(const struct emit *e, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    fprintf(f, "#!/bin/sh\n# Makes a file system of the trace from scratch (as root), runs repro.c on it, "
            "removes it.\n# usage: run.sh [FS]  (FS: ");
    for (int i = 0; i < e->cfg->nfs; i++)
        fprintf(f, "%s%s", i ? ", " : "", e->cfg->fs[i].name);
    fprintf(f, "; default %s, the one that disagreed)\n", e->cfg->fs[e->fut].name);
    fprintf(f, "# exit status: 0 every step did what the reference did, 1 the defect shows, 2 set-up failed\n");
    fputs(script_head, f);
    fprintf(f, "nsteps=%zu\ncase \"${1:-%s}\" in\n", e->t->nops, e->cfg->fs[e->fut].name);
    for (int i = 0; i < e->cfg->nfs; i++) {
        const struct fs_config *c = &e->cfg->fs[i];
        fprintf(f, "%s)\n", c->name);
        if (c->type == FS_KERNEL)
            emit_kernel(f, c);
        else if (c->type == FS_REFFS)
            emit_reffs(f, c);
        else
            emit_fuse(f, c);
        fprintf(f, "  ;;\n");
    }
    fprintf(f, "*) echo \"run.sh: no fs '$1'\" >&2; exit 2;;\nesac\nexit $rc\n");
    if (fclose(f) != 0)
        return snprintf(err, errlen, "%s: write failed", path), -1;
    chmod(path, 0755);
    return 0;
}

/* The fs under test: the first that disagreed at the end, else fs 1 (fs 0 alone: itself). */
static int fs_under_test(const struct emit *e)
{
    unsigned d[METIS_MAX_FS];
    trace_final_discrepancy(e->t, d);
    for (int i = 1; i < e->cfg->nfs; i++)
        if (e->map[i] >= 0 && d[e->map[i]])
            return i;
    return e->cfg->nfs > 1 ? 1 : 0;
}

int cmd_emit_c(int argc, char **argv)
{
    struct cli_opts o;
    struct runlog rl;
    static struct metis_config cfg;
    struct emit e;
    char path[2048], err[2200];
    if (cli_parse(argc, argv, "emit-c", &o) < 0 || cli_load(o.input, &rl) < 0)
        return EXIT_BAD_INPUT;
    if (cli_check(&rl.trace, o.config, &cfg, e.map) < 0) {
        runlog_free(&rl);
        return EXIT_BAD_INPUT;
    }
    const char *dir = o.out ? o.out : "metis-repro";
    e.t = &rl.trace;
    e.cfg = &cfg;
    e.fut = fs_under_test(&e);
    int rc = 0;
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, sizeof err, "%s: %s", dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        snprintf(path, sizeof path, "%s/repro.c", dir), rc = write_program(&e, path, err, sizeof err);
    if (rc == 0)
        snprintf(path, sizeof path, "%s/run.sh", dir), rc = write_script(&e, path, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "metis-replay: emit-c: %s\n", err);
    else
        printf("emit-c: %s/repro.c and %s/run.sh: %zu operations on fs %s (run: sudo %s/run.sh)\n",
               dir, dir, rl.trace.nops, cfg.fs[e.fut].name, dir);
    runlog_free(&rl);
    return rc < 0 ? EXIT_INFRA : 0;
}
