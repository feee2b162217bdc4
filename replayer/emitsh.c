/* emit-c's run.sh: makes a file system of the trace's config from scratch, runs the program on it, removes everything. */
#include "emit.h"
#include "emitc_crash.h"
#include "emitc_fault.h"
#include "lib/placeholders.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

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
    "need() {  # TOOL WHAT: say what is missing and stop\n"
    "  command -v \"$1\" >/dev/null 2>&1 || { echo \"run.sh: needs $1 ($2) in PATH\" >&2; exit 2; }\n"
    "}\n"
    "need cc 'a C compiler, to build repro.c'\n"
    "cc -O1 -g -o \"$here/repro\" \"$here/repro.c\" || { echo \"run.sh: cannot build repro.c\" >&2; exit 2; }\n"
    "# REPRO_TMP: where the image and mount point go (default /dev/shm).\n"
    "work=$(mktemp -d \"${REPRO_TMP:-/dev/shm}/metis-repro.XXXXXX\") || exit 2\n"
    "mnt=$work/mnt img=$work/fs.img loop= pid= layers= floop= fpid= fdm=\n"
    "mkdir -p \"$mnt\"\n"
    "cleanup() {\n"
    "  # A mount command may stack mounts on $mnt (loggedfs over a bind mount of its directory):\n"
    "  # unmount until nothing is mounted there.\n"
    "  for _ in 1 2 3 4; do\n"
    "    mountpoint -q \"$mnt\" 2>/dev/null || break\n"
    "    umount \"$mnt\" 2>/dev/null || fusermount3 -u \"$mnt\" 2>/dev/null || umount -l \"$mnt\"\n"
    "  done\n"
    "  [ -n \"$pid\" ] && { kill \"$pid\" 2>/dev/null; wait \"$pid\" 2>/dev/null; }\n"
    "  [ -n \"$floop\" ] && losetup -d \"$floop\" 2>/dev/null\n"
    "  [ -n \"$fdm\" ] && { fusermount3 -u \"$fdm\" 2>/dev/null || umount -l \"$fdm\" 2>/dev/null; }\n"
    "  [ -n \"$fpid\" ] && { kill \"$fpid\" 2>/dev/null; wait \"$fpid\" 2>/dev/null; }\n"
    "  [ -n \"$loop\" ] && losetup -d \"$loop\" 2>/dev/null\n"
    "  [ -n \"$layers\" ] && { umount \"$layers\" 2>/dev/null || umount -l \"$layers\"; }\n"
    "  rm -rf \"$work\"\n"
    "}\n"
    "trap cleanup EXIT\ntrap 'exit 130' INT TERM HUP\n"
    "# A daemon's root is set to what every reference's is (0755, 0:0), as Metis's set-up does.\n"
    "wait_mounted() {\n"
    "  for _ in $(seq 1 200); do\n"
    "    # The FUSE mount on top counts: a mount command may mount something else there first\n"
    "    # (loggedfs over a bind mount of its directory).\n"
    "    case $(awk -v m=\"$mnt\" '$5 == m { t = $0 } END { sub(/.* - /, \"\", t); split(t, a, \" \"); print a[1] }' /proc/self/mountinfo) in\n"
    "      fuse*) { chmod 0755 \"$mnt\"; chown 0:0 \"$mnt\"; return 0; } 2>/dev/null;;\n"
    "    esac\n"
    "    sleep 0.05\n"
    "  done\n"
    "  echo \"run.sh: $mnt did not get mounted; the file system said:\" >&2\n"
    "  tail -n 5 \"$work/daemon.log\" >&2; exit 2\n"
    "}\n"
    "as_root() {  # WHY\n"
    "  [ \"$(id -u)\" = 0 ] || { echo \"run.sh: must run as root ($1)\" >&2; exit 2; }\n"
    "}\n"
    "# One run of the program; the first line that differs is the verdict.\n"
    "rc=0\n"
    "repro() {\n"
    "  \"$here/repro\" \"$mnt\" \"$@\" >\"$work/last.out\" 2>&1\n"
    "  r=$?\n"
    "  cat \"$work/last.out\"; cat \"$work/last.out\" >>\"$work/all.out\"\n"
    "  case $r in 0) ;; 1) rc=1;; *) echo \"run.sh: repro failed (exit $r)\" >&2; exit 2;; esac\n"
    "}\n"
    "verdict() {\n"
    "  if [ $rc = 1 ]; then\n"
    "    echo \"repro: the defect shows: first difference: $(grep -m1 -e 'DIFFERS FROM THE REFERENCE' -e '^fault check: ' \"$work/all.out\" | sed 's/  DIFFERS FROM THE REFERENCE$//')\"\n"
    "  else\n"
    "    echo \"repro: every step and the final tree match the reference\"\n"
    "  fi\n"
    "}\n";

static void mkfs_line(FILE *f, const struct fs_config *c, uint64_t size)
{
    char cmd[1024];
    fs_format_mkfs_command(c->fstype, size, c->mkfs_opts, "\"$img\"", cmd, sizeof cmd);
    fprintf(f, "  need mkfs.%s 'to make the %s file system'\n", c->fstype, c->fstype);
    fprintf(f, "  %s >\"$work/mkfs.log\" 2>&1 ||\n"
            "    { cat \"$work/mkfs.log\" >&2; exit 2; }\n", cmd);
}

/* The same size the backend would pick when the config gives none. */
static uint64_t image_size(const struct fs_config *c)
{
    return c->size ? c->size : fs_format_default_size(c->fstype);
}

/* remount_test_lose took writes out of the image inside Metis: a kernel keeps them, so what the
 * run found cannot show here, and the script says why. */
static void lost_write_note(FILE *f, uint64_t least)
{
    fprintf(f, "  echo \"run.sh: the run had the test hook remount_test_lose = %" PRIu64 ": Metis "
            "took the data of writes of at least that many bytes out of the image at its "
            "checkpoints; this kernel keeps them, so a remount here finds nothing\"\n", least);
}

static void emit_kernel(FILE *f, const struct emit *e, const struct fs_config *c, int crash)
{
    int fault = emitc_fault_last(e, c) != NULL;
    fprintf(f, "  as_root 'loop devices and mounts'\n");
    fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", image_size(c));
    mkfs_line(f, c, image_size(c));
    fprintf(f, "  loop=$(losetup -f --show \"$img\") || exit 2\n");
    fprintf(f, "  do_mount() { ");
    emit_mount_cmd(f, c, "$loop", "$mnt");
    fprintf(f, " || exit 2; }\n");
    fprintf(f, "  do_umount() { umount \"$mnt\" || exit 2; }\n");
    if (c->remount)
        fprintf(f, "  # Metis unmounts and mounts again around every operation: so does this.\n"
                "  do_mount; repro pre; do_umount\n"
                "  for k in $(seq 1 %s); do do_mount; repro step \"$k\"; do_umount; done\n",
                crash || fault ? "$((nsteps - 1))" : "\"$nsteps\"");
    if (c->remount && crash)
        emitc_crash_script(f, c, crash);
    if (fault)
        emitc_fault_script(f, e, c);
    if (c->remount)
        fprintf(f, "  do_mount; repro tree; do_umount\n"
                "  verdict\n");
    else
        fprintf(f, "  # Metis keeps it mounted across operations and remounts it at checkpoints:\n"
                "  # the tree read after a remount must still be the reference's.\n"
                "  do_mount; repro; do_umount\n"
                "  do_mount; repro tree; do_umount\n");
    if (!c->remount && e->cfg->run.remount_test_lose)
        lost_write_note(f, e->cfg->run.remount_test_lose);
}

/* tmpfs: "mode=0755,size=N[,nr_inodes=M]" as the backend mounts it (devless.c). */
static void tmpfs_opts(FILE *f, const struct fs_config *c)
{
    fprintf(f, "mode=0755,size=%" PRIu64, image_size(c));
    if (c->inodes)
        fprintf(f, ",nr_inodes=%" PRIu64, c->inodes);
}

/* overlay: mktemp'd lower, upper and work directories on a tmpfs of the fs's size; the lower
 * one gets the initial state before the first mount when the config populates it. */
static void emit_overlay_layers(FILE *f, const struct fs_config *c)
{
    fprintf(f, "  layers=$work/layers; mkdir -p \"$layers\"\n"
            "  mount -t tmpfs -o ");
    tmpfs_opts(f, c);
    fprintf(f, " metis-layers \"$layers\" || { layers=; exit 2; }\n"
            "  lower=$(mktemp -d \"$layers/lower.XXXXXX\") && upper=$(mktemp -d "
            "\"$layers/upper.XXXXXX\") &&\n    wdir=$(mktemp -d \"$layers/work.XXXXXX\") "
            "|| exit 2\n  chmod 0755 \"$lower\" \"$upper\"\n");
    if (c->populate_lower)
        fprintf(f, "  # The initial state is in the lower layer before the first mount, as "
                "Metis made it.\n  \"$here/repro\" \"$lower\" pre >/dev/null || exit 2\n");
    fprintf(f, "  opts=\"lowerdir=$lower,upperdir=$upper,workdir=$wdir%s%s\"\n",
            c->mount_opts[0] ? "," : "", c->mount_opts);
}

/* A kernel fs without a device (tmpfs, overlay): mount -t, no image or loop device. */
static void emit_devless(FILE *f, const struct fs_config *c)
{
    int overlay = strcmp(c->fstype, "overlay") == 0;
    fprintf(f, "  as_root 'mounts'\n");
    if (overlay) {
        emit_overlay_layers(f, c);
    } else {
        fprintf(f, "  opts=");
        tmpfs_opts(f, c);
        fprintf(f, "%s%s\n", c->mount_opts[0] ? "," : "", c->mount_opts);
    }
    fprintf(f, "  do_mount() { mount -t %s -o \"$opts\" metis \"$mnt\" || exit 2; }\n"
            "  do_umount() { umount \"$mnt\" || exit 2; }\n", c->fstype);
    const char *pre = overlay && c->populate_lower ? "" : "repro pre; ";
    if (c->remount && overlay)
        fprintf(f, "  # Metis unmounts and mounts again around every operation: so does this.\n"
                "  do_mount; %sdo_umount\n"
                "  for k in $(seq 1 \"$nsteps\"); do do_mount; repro step \"$k\"; do_umount; done\n"
                "  do_mount; repro tree; do_umount\n  verdict\n", pre);
    else if (*pre)
        fprintf(f, "  do_mount; repro; do_umount\n");
    else
        fprintf(f, "  do_mount\n  for k in $(seq 1 \"$nsteps\"); do repro step \"$k\"; done\n"
                "  repro tree; do_umount\n  verdict\n");
}

/* RefFS is looked for next to the metis-replay that wrote this script, then in PATH. */
static void find_reffs(FILE *f, const struct emit *e, const char *prog)
{
    fprintf(f, "  bin=${REFFS_BIN:-}\n  if [ -z \"$bin\" ]; then\n    for c in ");
    char next[1200];
    snprintf(next, sizeof next, "%s/%s", e->bindir, prog);
    shq(f, next);
    fprintf(f, " \"$(command -v %s 2>/dev/null)\"; do\n"
            "      [ -n \"$c\" ] && [ -x \"$c\" ] && { bin=$c; break; }\n    done\n  fi\n", prog);
    fprintf(f, "  [ -n \"$bin\" ] || { echo \"run.sh: needs %s (%s, built by make in the Metis "
            "tree): not found at %s nor in PATH; put it in PATH or set REFFS_BIN to it\" >&2; "
            "exit 2; }\n", prog, strcmp(prog, "reffs") ? "RefFS with its planted mutations"
            : "the RefFS daemon", next);
}

static void emit_reffs(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char opts[512];
    if (c->size)
        snprintf(opts, sizeof opts, "capacity=%" PRIu64 "%s%s", c->size, c->reffs_opts[0] ? "," : "",
                 c->reffs_opts);
    else
        snprintf(opts, sizeof opts, "%s", c->reffs_opts);
    fprintf(f, "  # RefFS keeps its state in memory: one mount for all steps.\n");
    find_reffs(f, e, strstr(c->reffs_opts, "mutation=") ? "reffs-mutant" : "reffs");
    fprintf(f, "  need fusermount3 'FUSE 3, to unmount RefFS'\n");
    fprintf(f, "  \"$bin\" -f %s%s \"$mnt\" >\"$work/daemon.log\" 2>&1 &\n  pid=$!\n  wait_mounted\n",
            opts[0] ? "-o " : "", opts);
    fprintf(f, "  repro; [ $rc = 0 ] || true\n");
}

/* {dir} and {dir:NAME}: a fresh directory of the work dir each, as the backend gives a fresh
 * one on its tmpfs (mode 0755 like it); their sed expressions for the mount command in sed. */
static void emit_dirs(FILE *f, const struct fs_config *c, char *sed, size_t len)
{
    struct ph_dirs d = { 0 };
    char why[200];
    size_t used = 0;
    sed[0] = 0;
    if (ph_scan(c->mount_cmd, &d, why, sizeof why) < 0 || d.n == 0)
        return;
    fprintf(f, "  # Its data lives in directories of its own, fresh and empty like Metis's.\n");
    for (int i = 0; i < d.n; i++) {
        const char *n = d.name[i];
        fprintf(f, "  d_%s=$(mktemp -d \"$work/dir-%s.XXXXXX\") && chmod 0755 \"$d_%s\" || exit 2\n",
                n, n, n);
        used += (size_t)snprintf(sed + used, used < len ? len - used : 0, "; s|{dir:%s}|$d_%s|g%s",
                                 n, n, strcmp(n, "dir") == 0 ? "; s|{dir}|$d_dir|g" : "");
    }
}

static void emit_fuse(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char dir_sed[PH_MAX_DIRS * 80];
    emit_dirs(f, c, dir_sed, sizeof dir_sed);
    if (c->size && !c->dir_backed) {
        fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", c->size);
        if (c->fstype[0])
            mkfs_line(f, c, c->size);
    }
    fprintf(f, "  # The config's mount command, with {mnt}, {img}, {dir} and {bin} (the Metis that wrote "
            "this, or $METIS_BIN) filled in.\n  bindir=${METIS_BIN:-");
    shq(f, e->bindir);
    fprintf(f, "}\n  cmd=");
    shq(f, c->mount_cmd);
    fprintf(f, "\n  cmd=$(printf '%%s' \"$cmd\" | sed \"s|{mnt}|$mnt|g; s|{img}|$img|g; "
            "s|{bin}|$bindir|g%s\")\n", dir_sed);
    if (c->populate_dir[0])
        fprintf(f, "  # The initial state is in {dir:%s} before the mount, as Metis made it "
                "(populate_dir).\n  \"$here/repro\" \"$d_%s\" pre >/dev/null || exit 2\n",
                c->populate_dir, c->populate_dir);
    fprintf(f, "  sh -c \"$cmd\" >\"$work/daemon.log\" 2>&1 &\n  pid=$!\n  wait_mounted\n");
    if (c->populate_dir[0])
        fprintf(f, "  for k in $(seq 1 \"$nsteps\"); do repro step \"$k\"; done\n"
                "  repro tree\n  verdict\n");
    else
        fprintf(f, "  repro\n");
}

static void emit_cases(FILE *f, const struct emit *e)
{
    for (int i = 0; i < e->cfg->nfs; i++) {
        const struct fs_config *c = &e->cfg->fs[i];
        fprintf(f, "%s)\n", c->name);
        if (c->type == FS_KERNEL && fs_format_devless(c->fstype))
            emit_devless(f, c);
        else if (c->type == FS_KERNEL)
            emit_kernel(f, e, c, emitc_crash_mode(e->cfg, c));
        else if (c->type == FS_REFFS)
            emit_reffs(f, e, c);
        else
            emit_fuse(f, e, c);
        fprintf(f, "  ;;\n");
    }
}

int emit_write_script(const struct emit *e, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    fprintf(f, "#!/bin/sh\n# Makes a file system of the trace from scratch (as root), runs repro.c on it, "
            "removes it.\n# usage: run.sh [FS]  (FS: ");
    for (int i = 0; i < e->cfg->nfs; i++)
        fprintf(f, "%s%s", i ? ", " : "", e->cfg->fs[i].name);
    fprintf(f, "; default %s, the one that disagreed)\n", e->cfg->fs[e->fut].name);
    fprintf(f, "# exit status: 0 every step and the final tree match the reference's, 1 the "
            "defect shows, 2 set-up failed\n");
    fputs(script_head, f);
    fprintf(f, "nsteps=%zu\ncase \"${1:-%s}\" in\n", e->t->nops - e->t->start,
            e->cfg->fs[e->fut].name);
    emit_cases(f, e);
    fprintf(f, "*) echo \"run.sh: no fs '$1'\" >&2; exit 2;;\nesac\nexit $rc\n");
    if (fclose(f) != 0)
        return snprintf(err, errlen, "%s: write failed", path), -1;
    chmod(path, 0755);
    return 0;
}
