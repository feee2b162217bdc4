/* emit-c for crash checks: the reproducer's sync of each step, and the run.sh part that copies the device, recovers the copy and compares. */
#include "emitc_crash.h"
#include "emit.h"
#include "engine/vocab/crash_modes.h"
#include "engine/config/crash_config.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

/* ---- repro.c: "sync K" does what the crash check did after step K ---- */

static const char sync_head[] =
    "/* What Metis's crash check synced after a step: each object the step changed and its\n"
    " * parent directories (crash = fsync), or the whole fs (crash = syncfs). Prints each fsynced\n"
    " * object as \"PATH TYPE\" (its path below the mount point, symlinks resolved): the promise. */\n"
    "static void crash_fsync(const char *path, int dir, int skip)\n{\n"
    "    char root[4096], link[64], full[8192];\n    struct stat st;\n"
    "    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK | O_NOCTTY);\n"
    "    if (fd < 0 || !getcwd(root, sizeof root) || fstat(fd, &st) < 0 ||\n"
    "        (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {\n"
    "        if (fd >= 0)\n            close(fd);\n        return;\n    }\n"
    "    if (!skip && fsync(fd) < 0)\n        fprintf(stderr, \"repro: fsync %s: %s\\n\", path, strerror(errno));\n"
    "    snprintf(link, sizeof link, \"/proc/self/fd/%d\", fd);\n"
    "    ssize_t n = readlink(link, full, sizeof full - 1);\n    size_t m = strlen(root);\n"
    "    if (n >= (ssize_t)m && fstat(fd, &st) == 0) {\n        full[n] = 0;\n"
    "        printf(\"%s %c\\n\", n == (ssize_t)m ? \"/\" : full + m, S_ISDIR(st.st_mode) ? 'd' : 'f');\n    }\n"
    "    close(fd);\n}\n\n";

/* "d0/f0" for "/d0/f0"; the parent "." for "/f0". */
static void rel_parent(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        snprintf(out, len, ".");
    else
        snprintf(out, len, "%.*s", (int)(slash - path - 1), path + 1);
}

/* A new symlink, FIFO, socket or device node: on a journal-less format crash_check.c gives
 * it a syncfs instead of its directory's fsync (see syncfs_instead there), and so does this. */
static int unsyncable_new_inode(const struct op_args *a)
{
    return a->op == OP_symlink || (a->op == OP_mknod && (a->flags & S_IFMT) != S_IFREG);
}

/* The same objects as crash_check.c's sync_touched. */
static void emit_fsync_step(FILE *f, const struct op_args *a, int skip, int journal)
{
    int whole = unsyncable_new_inode(a) && !journal;
    char p1[METIS_PATH_MAX], p2[METIS_PATH_MAX];
    int two = a->op == OP_rename || a->op == OP_link;
    const char *obj = two ? a->path2
                    : a->op != OP_unlink && a->op != OP_rmdir && a->op != OP_symlink ? a->path : NULL;
    if (obj)
        fprintf(f, "        crash_fsync(\"%s\", 0, %d);\n", obj + 1, skip);
    if (a->op == OP_rename && (a->flags & RENAME_EXCHANGE))
        fprintf(f, "        crash_fsync(\"%s\", 0, %d);\n", a->path + 1, skip);
    rel_parent(a->path, p1, sizeof p1);
    fprintf(f, "        crash_fsync(\"%s\", 1, %d);\n", p1, skip || whole);
    rel_parent(a->path2, p2, sizeof p2);
    if (two)
        fprintf(f, "        crash_fsync(\"%s\", 1, %d);\n", p2, skip);
    if (whole && !skip)
        fprintf(f, "        { int fd = open(\".\", O_RDONLY | O_DIRECTORY); if (fd >= 0) { syncfs(fd); close(fd); } }\n");
}

void emitc_crash_sync(FILE *f, const struct trace *t, const struct metis_config *cfg,
                      const struct fs_config *fut)
{
    int mode = crash_mode_parse(cfg->run.crash);
    int journal = crash_format_journals(fut->fstype, fut->size ? fut->size
                                                     : fs_format_default_size(fut->fstype));
    int hook = cfg->run.crash_test_skip[0] ? op_lookup(cfg->run.crash_test_skip) : -1;
    fputs(sync_head, f);
    fprintf(f, "static void crash_sync(int k)\n{\n    switch (k) {\n");
    for (size_t k = 0; mode != CRASH_ANY && k < t->nops; k++) {
        const struct op_args *a = &t->ops[k].args;
        if (t->ops[k].is_call)
            continue;           /* a restore call is no step Metis crash-checked */
        if (mode == CRASH_SYNCFS && (int)a->op != hook)
            continue;           /* the default: one syncfs */
        fprintf(f, "    case %zu:\n", k + 1);
        if ((int)a->op == hook)
            fprintf(f, "        /* test hook crash_test_skip = %s: Metis left this sync out */\n",
                    op_name(a->op));
        if (mode == CRASH_FSYNC)
            emit_fsync_step(f, a, (int)a->op == hook, journal);
        fprintf(f, "        break;\n");
    }
    fprintf(f, "    default:\n        %s\n    }\n}\n\n", mode == CRASH_SYNCFS
            ? "{ int fd = open(\".\", O_RDONLY | O_DIRECTORY); if (fd >= 0) { syncfs(fd); close(fd); } }"
            : "(void)k;");
}

/* ---- run.sh: the last step with its crash check ---- */

int emitc_crash_mode(const struct metis_config *cfg, const struct fs_config *c)
{
    return crash_applies(cfg, c) ? crash_mode_parse(cfg->run.crash) : CRASH_OFF;
}

/* awk over promised.txt ("PATH TYPE"), live.txt and rec.txt (repro's tree lines "T PATH ..."):
 * each promised entry's line, and each promised directory's names with their types, equal. */
static const char compare_fsync[] =
    "  awk -v P=\"$work/promised.txt\" -v L=\"$work/live.txt\" -v R=\"$work/rec.txt\" '\n"
    "    function load(file, a,   line, w) { while ((getline line < file) > 0) { split(line, w, \" \"); a[w[2]] = line } }\n"
    "    function names(from, to, dir, what,   q, pre) {\n"
    "      pre = dir == \"/\" ? \"/\" : dir \"/\"\n"
    "      for (q in from) if (index(q, pre) == 1 && index(substr(q, length(pre) + 1), \"/\") == 0 &&\n"
    "                          substr(from[q], 1, 1) != substr(to[q], 1, 1)) {\n"
    "        print \"repro: \" q \" \" what \" in the fsynced directory \" dir; bad = 1 } }\n"
    "    BEGIN { load(L, live); load(R, rec)\n"
    "      while ((getline line < P) > 0) { split(line, w, \" \")\n"
    "        if (w[1] != \"/\" && live[w[1]] != rec[w[1]]) { bad = 1\n"
    "          print \"repro: \" w[1] \" live: \" live[w[1]]; print \"repro: \" w[1] \" recovered: \" rec[w[1]] }\n"
    "        if (w[2] == \"d\") { names(live, rec, w[1], \"is lost\"); names(rec, live, w[1], \"appeared\") } }\n"
    "      exit bad }' || crash=1\n";

static void emit_recover(FILE *f, const struct fs_config *c, int mode)
{
    const char *checker = crash_checker(c->fstype);
    fprintf(f, "  cloop=$(losetup -f --show \"$work/crash.img\") || exit 2\n  mkdir -p \"$work/cmnt\"\n");
    fprintf(f, "  if ");
    emit_mount_cmd(f, c, "$cloop", "$work/cmnt");
    fprintf(f, "; then\n");
    fprintf(f, "    \"$here/repro\" \"$work/cmnt\" list >\"$work/rec.txt\"; umount \"$work/cmnt\"\n"
            "  else\n    echo \"repro: the crash copy does not mount\"; crash=1\n  fi\n"
            "  losetup -d \"$cloop\"; cloop=\n");
    if (mode == CRASH_ANY && checker)
        fprintf(f, "  [ $crash = 0 ] && { %s \"$work/crash.img\" || { echo \"repro: '%s' finds the recovered copy damaged\"; crash=1; }; }\n",
                checker, checker);
}

void emitc_crash_script(FILE *f, const struct fs_config *c, int mode)
{
    fprintf(f, "  # Metis's crash check (crash = %s) after the last step: sync, copy the device while\n"
            "  # mounted (a power cut right then), unmount, mount the copy on a second loop device so\n"
            "  # that its journal is recovered, and compare it with the live tree.\n",
            crash_mode_name((enum crash_mode)mode));
    fprintf(f, "  cloop= crash=0\n  trap '[ -n \"$cloop\" ] && { umount \"$work/cmnt\" 2>/dev/null; losetup -d \"$cloop\"; }; cleanup' EXIT\n");
    fprintf(f, "  do_mount; \"$here/repro\" \"$mnt\" step \"$nsteps\" || rc=1\n"
            "  \"$here/repro\" \"$mnt\" sync \"$nsteps\" >\"$work/promised.txt\"\n"
            "  cp --sparse=always \"$img\" \"$work/crash.img\" || exit 2\n"
            "  \"$here/repro\" \"$mnt\" list >\"$work/live.txt\"; do_umount\n");
    emit_recover(f, c, mode);
    if (mode == CRASH_FSYNC)
        fprintf(f, "  [ -f \"$work/rec.txt\" ] && {\n%s  }\n", compare_fsync);
    else if (mode == CRASH_SYNCFS)
        fprintf(f, "  [ -f \"$work/rec.txt\" ] && { diff \"$work/live.txt\" \"$work/rec.txt\" || crash=1; }\n");
    fprintf(f, "  [ $crash = 1 ] && { echo \"repro: the defect shows: the recovered copy is not what "
            "the sync promised\"; rc=1; }\n");
}
