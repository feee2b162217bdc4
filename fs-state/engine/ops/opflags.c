/* Flag arguments decoded by name for human-facing text; the log and traces keep the numbers. */
#include "engine/ops/opflags.h"
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

struct flag_name {
    unsigned bit;
    const char *name;
};

static const struct flag_name open_bits[] = {
    { O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
    { O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
    { O_SYNC, "O_SYNC" }, { O_DSYNC, "O_DSYNC" }, { O_DIRECT, "O_DIRECT" },
    { O_LARGEFILE, "O_LARGEFILE" }, { O_DIRECTORY, "O_DIRECTORY" },
    { O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" },
    { O_PATH, "O_PATH" }, { 0, NULL },
};
static const struct flag_name rename_bits[] = {
    { RENAME_NOREPLACE, "RENAME_NOREPLACE" }, { RENAME_EXCHANGE, "RENAME_EXCHANGE" },
    { RENAME_WHITEOUT, "RENAME_WHITEOUT" }, { 0, NULL },
};
static const struct flag_name xattr_bits[] = {
    { XATTR_CREATE, "XATTR_CREATE" }, { XATTR_REPLACE, "XATTR_REPLACE" }, { 0, NULL },
};
static const struct flag_name falloc_bits[] = {
    { FALLOC_FL_PUNCH_HOLE, "FALLOC_FL_PUNCH_HOLE" },
    { FALLOC_FL_COLLAPSE_RANGE, "FALLOC_FL_COLLAPSE_RANGE" },
    { FALLOC_FL_ZERO_RANGE, "FALLOC_FL_ZERO_RANGE" },
    { FALLOC_FL_INSERT_RANGE, "FALLOC_FL_INSERT_RANGE" },
    { FALLOC_FL_UNSHARE_RANGE, "FALLOC_FL_UNSHARE_RANGE" },
    { FALLOC_FL_KEEP_SIZE, "FALLOC_FL_KEEP_SIZE" }, { 0, NULL },
};

/* Appends "|name" (or "name" first) to out at *used. */
static void put(char *out, size_t len, size_t *used, const char *name)
{
    if (*used < len)
        *used += (size_t)snprintf(out + *used, len - *used, "%s%s", *used ? "|" : "", name);
}

/* The named bits of v (multi-bit names first as listed), what is left in hex, "0" for none. */
static void bits_text(unsigned v, const struct flag_name *t, char *out, size_t len, size_t used)
{
    char rest[16];
    for (; t->name; t++)
        if (t->bit && (v & t->bit) == t->bit) {     /* O_LARGEFILE is 0 on 64-bit */
            put(out, len, &used, t->name);
            v &= ~t->bit;
        }
    if (v || !used) {
        snprintf(rest, sizeof rest, v ? "0x%x" : "0", v);
        put(out, len, &used, rest);
    }
}

static void open_text(unsigned v, char *out, size_t len)
{
    static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
    size_t used = 0;
    put(out, len, &used, acc[v & O_ACCMODE]);
    if ((v & __O_TMPFILE) == __O_TMPFILE) {
        put(out, len, &used, "O_TMPFILE");
        v &= ~(unsigned)__O_TMPFILE;
    }
    bits_text(v & ~(unsigned)O_ACCMODE, open_bits, out, len, used);
    size_t n = strlen(out);     /* bits_text wrote "0" for no further bits */
    if (n > 2 && !strcmp(out + n - 2, "|0"))
        out[n - 2] = '\0';
}

static void mknod_text(unsigned v, char *out, size_t len)
{
    const char *n = S_ISFIFO(v) ? "S_IFIFO" : S_ISSOCK(v) ? "S_IFSOCK" : S_ISCHR(v) ? "S_IFCHR" :
                    S_ISBLK(v) ? "S_IFBLK" : S_ISREG(v) ? "S_IFREG" : NULL;
    if (n)
        snprintf(out, len, "%s", n);
    else
        snprintf(out, len, "0x%x", v);
}

int op_flags_name(const struct op_args *a, char *out, size_t len)
{
    unsigned v = (unsigned)a->flags;
    out[0] = '\0';
    switch (a->op) {
    case OP_create_file: case OP_write_file: open_text(v, out, len); return 0;
    case OP_rename: bits_text(v, rename_bits, out, len, 0); return 0;
    case OP_setxattr: bits_text(v, xattr_bits, out, len, 0); return 0;
    case OP_fallocate_file: bits_text(v, falloc_bits, out, len, 0); return 0;
    case OP_mknod: mknod_text(v, out, len); return 0;
    case OP_open_unlink: snprintf(out, len, "%s", v == OU_TRUNCATE ? "fd_truncate" : "fd_write");
        return 0;
    default: return -1;
    }
}

int op_format_named(const struct op_args *a, char *buf, size_t len)
{
    char names[200];
    if (op_format(a, buf, len) < 0)
        return -1;
    char *at = strstr(buf, " flags=");
    if (!at || op_flags_name(a, names, sizeof names) < 0)
        return 0;
    at += 7;
    size_t num = strcspn(at, " ");
    size_t tail = strlen(at + num), nl = strlen(names);
    if ((size_t)(at - buf) + nl + tail + 1 > len)
        return 0;               /* no room: the numbers stand */
    memmove(at + nl, at + num, tail + 1);
    memcpy(at, names, nl);
    return 0;
}

void op_print_flag_names(FILE *f, const struct op_args *a)
{
    char names[200];
    if (op_flags_name(a, names, sizeof names) == 0)
        fprintf(f, " (flags=%s)", names);
}
