/* emit-c's run.sh for a trace ending in a concurrent step: every try makes the fs afresh, replays the steps before it and issues the calls at once; it tells how many tries no serial order explains. */
#include "emitstep/emit.h"

#include <inttypes.h>
#include <string.h>

#include "lib/text/placeholders.h"

/* tries: REPRO_TRIES, or the trace's tries (at least 20: a race may hide in most of them). */
void emitsh_together_head(FILE *f, const struct emit *e)
{
    int tries = e->t->ops[e->t->nops - 1].tries;
    fprintf(f, "# Each try: the fs made afresh, the steps before, then the concurrent step's calls at "
            "once;\n# a try no serial order of them on the reference explains shows the defect.\n"
            "tries=${REPRO_TRIES:-%d}\n", tries > 20 ? tries : 20);
    fputs("bad=0\n"
          "one_try() {\n"
          "  fresh\n"
          "  \"$here/repro\" \"$mnt\" pre >\"$work/try.out\" 2>&1 || { cat \"$work/try.out\" >&2; exit 2; }\n"
          "  for k in $(seq 1 \"$nsteps\"); do\n"
          "    \"$here/repro\" \"$mnt\" step \"$k\" >>\"$work/try.out\" 2>&1\n"
          "    case $? in 0) ;; 1) rc=1;; *) cat \"$work/try.out\" >&2; exit 2;; esac\n"
          "  done\n"
          "  \"$here/repro\" \"$mnt\" together >>\"$work/try.out\" 2>&1\n"
          "  case $? in 0) ;; 1) bad=$((bad + 1)); cp \"$work/try.out\" \"$work/bad.out\";;\n"
          "    *) cat \"$work/try.out\" >&2; exit 2;; esac\n"
          "  gone\n"
          "}\n"
          "tries_verdict() {\n"
          "  for t in $(seq 1 \"$tries\"); do one_try; done\n"
          "  [ \"$bad\" -gt 0 ] && { cat \"$work/bad.out\"; rc=1; }\n"
          "  [ \"$bad\" -gt 0 ] || cat \"$work/try.out\"\n"
          "  echo \"repro: $bad of $tries tries matched no serial order of the calls on the reference\"\n"
          "}\n", f);
}

static void reffs_fresh(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char opts[600];
    if (c->size)
        snprintf(opts, sizeof opts, "capacity=%" PRIu64 "%s%s", c->size,
                 c->reffs_opts[0] ? "," : "", c->reffs_opts);
    else
        snprintf(opts, sizeof opts, "%s", c->reffs_opts);
    emitsh_find_reffs(f, e, strstr(c->reffs_opts, "mutation=") ? "reffs-mutant" : "reffs");
    fprintf(f, "  need fusermount3 'FUSE 3, to unmount RefFS'\n"
            "  fresh() { \"$bin\" -f %s%s \"$mnt\" >\"$work/daemon.log\" 2>&1 & pid=$!; wait_mounted; }\n"
            "  gone() { fusermount3 -u \"$mnt\"; wait \"$pid\"; pid=; }\n",
            opts[0] ? "-o " : "", opts);
}

static void kernel_fresh(FILE *f, const struct fs_config *c)
{
    fprintf(f, "  as_root 'loop devices and mounts'\n  fresh() {\n"
            "    truncate -s %" PRIu64 " \"$img\" || exit 2\n", emitsh_image_size(c));
    emitsh_mkfs(f, c, emitsh_image_size(c));
    fprintf(f, "    loop=$(losetup -f --show \"$img\") || exit 2\n"
            "    mount -t %s %s%s \"$loop\" \"$mnt\" || exit 2\n  }\n"
            "  gone() { umount \"$mnt\" || exit 2; losetup -d \"$loop\"; loop=; rm -f \"$img\"; }\n",
            c->fstype, c->mount_opts[0] ? "-o " : "", c->mount_opts);
}

static void tmpfs_fresh(FILE *f, const struct fs_config *c)
{
    fprintf(f, "  as_root 'mounts'\n  fresh() { mount -t tmpfs -o ");
    emitsh_tmpfs_opts(f, c);
    fprintf(f, "%s%s metis \"$mnt\" || exit 2; }\n  gone() { umount \"$mnt\" || exit 2; }\n",
            c->mount_opts[0] ? "," : "", c->mount_opts);
}

static void fuse_fresh(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char dir_sed[PH_MAX_DIRS * 80];
    fprintf(f, "  bindir=${METIS_BIN:-");
    emitsh_quote(f, e->bindir);
    fprintf(f, "}\n  fresh() {\n");
    emitsh_dirs(f, c, dir_sed, sizeof dir_sed);
    if (c->size && !c->dir_backed) {
        fprintf(f, "    truncate -s %" PRIu64 " \"$img\" || exit 2\n", c->size);
        if (c->fstype[0])
            emitsh_mkfs(f, c, c->size);
    }
    fprintf(f, "    cmd=");
    emitsh_quote(f, c->mount_cmd);
    fprintf(f, "\n    cmd=$(printf '%%s' \"$cmd\" | sed \"s|{mnt}|$mnt|g; s|{img}|$img|g; "
            "s|{bin}|$bindir|g%s\")\n", dir_sed);
    if (c->populate_dir[0])
        fprintf(f, "    \"$here/repro\" \"$d_%s\" pre >/dev/null || exit 2\n", c->populate_dir);
    fprintf(f, "    sh -c \"$cmd\" >\"$work/daemon.log\" 2>&1 & pid=$!\n    wait_mounted\n  }\n"
            "  gone() {\n    cmd=");
    emitsh_quote(f, c->unmount_cmd[0] ? c->unmount_cmd : "fusermount3 -u {mnt}");
    fprintf(f, "\n    sh -c \"$(printf '%%s' \"$cmd\" | sed \"s|{mnt}|$mnt|g\")\" || exit 2\n"
            "    wait \"$pid\"; pid=; rm -rf \"$work\"/dir-* \"$img\"\n  }\n");
}

void emitsh_together_case(FILE *f, const struct emit *e, const struct fs_config *c)
{
    if (c->type == FS_KERNEL && strcmp(c->fstype, "overlay") == 0)
        fprintf(f, "  echo \"run.sh: a concurrent step on overlay is not reproduced here "
                "(its layers are made once)\" >&2; exit 2\n");
    else if (c->type == FS_KERNEL && fs_format_devless(c->fstype))
        tmpfs_fresh(f, c);
    else if (c->type == FS_KERNEL)
        kernel_fresh(f, c);
    else if (c->type == FS_REFFS)
        reffs_fresh(f, e, c);
    else
        fuse_fresh(f, e, c);
    fprintf(f, "  tries_verdict\n");
}
