/* emit-c's run.sh: makes a file system of the trace's config from scratch, runs the program on it, removes everything. */
#include "emitstep/emit.h"
#include "emitstep/emitc_crash.h"
#include "emitstep/emitc_fault.h"
#include "emitstep/emitc_stream.h"
#include "lib/text/placeholders.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>


static const char script_head[] =
    "set -u\n"
    "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
    "need() {  # TOOL WHAT: say what is missing and stop\n"
    "  command -v \"$1\" >/dev/null 2>&1 || { echo \"run.sh: needs $1 ($2) in PATH\" >&2; exit 2; }\n"
    "}\n"
    "need cc 'a C compiler, to build repro.c'\n"
    "cc -O1 -g -pthread -o \"$here/repro\" \"$here/repro.c\" || { echo \"run.sh: cannot build repro.c\" >&2; exit 2; }\n"
    "# REPRO_TMP: where the image and mount point go (default /dev/shm).\n"
    "work=$(mktemp -d \"${REPRO_TMP:-/dev/shm}/metis-repro.XXXXXX\") || exit 2\n"
    "mnt=$work/mnt img=$work/fs.img loop= pid= layers= floop= fpid= fdm=\n"
    "mkdir -p \"$mnt\"\n"
    "cleanup() {\n"
    "  # A signal now would end the clean-up where it is, leaving the daemon and $work: the\n"
    "  # triage's TERM at its time limit reaches the whole group, also while run.sh cleans up.\n"
    "  trap '' INT TERM HUP\n"
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
    "  # A mount command may attach a loop device of its own to the image (exfat-fuse's does).\n"
    "  for d in $(losetup -n -O NAME -j \"$img\" 2>/dev/null); do losetup -d \"$d\" 2>/dev/null; done\n"
    "  # A daemon that forks goes on writing under $work after its unmount returns (cryfs\n"
    "  # flushes its blocks): removing it then fails on a directory that filled again.\n"
    "  for _ in $(seq 1 200); do\n"
    "    find /proc/[0-9]*/fd -lname \"$work/*\" 2>/dev/null | grep -q . || break; sleep 0.05\n"
    "  done\n"
    "  # One still there after 10 s runs on for good (archivemount was seen spinning for an hour),\n"
    "  # and so does a daemon in a session of its own that holds nothing open here but was given\n"
    "  # a path of it (archivemount again, after a hung step's mount went).\n"
    "  for p in $(find /proc/[0-9]*/fd -lname \"$work/*\" 2>/dev/null | cut -d/ -f3 | sort -u) \\\n"
    "           $(pgrep -f -- \"$work/\" 2>/dev/null); do\n"
    "    [ \"$p\" != $$ ] && kill -9 \"$p\" 2>/dev/null\n"
    "  done\n"
    "  for _ in 1 2 3 4 5; do rm -rf \"$work\" 2>/dev/null && break; sleep 0.2; done\n"
    "  [ ! -e \"$work\" ] || echo \"run.sh: could not remove $work\" >&2\n"
    "}\n"
    "trap cleanup EXIT\ntrap 'exit 130' INT TERM HUP\n"
    "# The FUSE mount on top counts: a mount command may mount something else there first\n"
    "# (loggedfs over a bind mount of its directory).\n"
    "fuse_on_top() {\n"
    "  case $(awk -v m=\"$mnt\" '$5 == m { t = $0 } END { sub(/.* - /, \"\", t); split(t, a, \" \"); print a[1] }' /proc/self/mountinfo) in\n"
    "    fuse*) return 0;;\n  esac\n  return 1\n"
    "}\n"
    "# A daemon's root is set to the reference's ($root_mode, $root_owner), as Metis's set-up does.\n"
    "# It has as long to mount as Metis gives it: the fs's op_timeout ($mount_wait seconds).\n"
    "wait_mounted() {\n"
    "  for _ in $(seq 1 $((${mount_wait:-10} * 20))); do\n"
    "    fuse_on_top && { chmod \"$root_mode\" \"$mnt\"; chown \"$root_owner\" \"$mnt\"; return 0; } 2>/dev/null\n"
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
    "# A file system that hangs (a daemon deadlocked) would hold the program for ever: REPRO_TIMEOUT.\n"
    "repro() {\n"
    "  timeout -k 5 \"${REPRO_TIMEOUT:-300}\" \"$here/repro\" \"$mnt\" \"$@\" >\"$work/last.out\" 2>&1\n"
    "  r=$?\n"
    "  case $r in 124|137) echo \"run.sh: the program did not finish in ${REPRO_TIMEOUT:-300} s: the file system hangs\" >&2; exit 2;; esac\n"
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
    fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", emitsh_image_size(c));
    emitsh_mkfs(f, c, emitsh_image_size(c));
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
    if (c->remount && crash && emitc_stream_mode(e->cfg, c))
        emitc_stream_script(f, e, c, crash);
    else if (c->remount && crash)
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


/* overlay: mktemp'd lower, upper and work directories on a tmpfs of the fs's size; the lower
 * one gets the initial state before the first mount when the config populates it. */
static void emit_overlay_layers(FILE *f, const struct fs_config *c)
{
    fprintf(f, "  layers=$work/layers; mkdir -p \"$layers\"\n"
            "  mount -t tmpfs -o ");
    emitsh_tmpfs_opts(f, c);
    fprintf(f, " metis-layers \"$layers\" || { layers=; exit 2; }\n"
            "  lower=$(mktemp -d \"$layers/lower.XXXXXX\") && upper=$(mktemp -d "
            "\"$layers/upper.XXXXXX\") &&\n    wdir=$(mktemp -d \"$layers/work.XXXXXX\") "
            "|| exit 2\n  chmod 0755 \"$lower\"; chmod \"$root_mode\" \"$upper\"; "
            "chown \"$root_owner\" \"$upper\"\n");
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
        emitsh_tmpfs_opts(f, c);
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


static void emit_reffs(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char opts[512];
    if (c->size)
        snprintf(opts, sizeof opts, "capacity=%" PRIu64 "%s%s", c->size, c->reffs_opts[0] ? "," : "",
                 c->reffs_opts);
    else
        snprintf(opts, sizeof opts, "%s", c->reffs_opts);
    fprintf(f, "  # RefFS keeps its state in memory: one mount for all steps.\n");
    emitsh_find_reffs(f, e, strstr(c->reffs_opts, "mutation=") ? "reffs-mutant" : "reffs");
    fprintf(f, "  need fusermount3 'FUSE 3, to unmount RefFS'\n");
    fprintf(f, "  \"$bin\" -f %s%s \"$mnt\" >\"$work/daemon.log\" 2>&1 &\n  pid=$!\n  wait_mounted\n",
            opts[0] ? "-o " : "", opts);
    fprintf(f, "  repro; [ $rc = 0 ] || true\n");
}


/* An image-backed FUSE fs whose last step is a fault step: the daemon started on an image file
 * given to fmount (the plain one, or the faulty device's), stopped around every step as Metis
 * remounts it, then Metis's fault check of the last step (emitc_fault.c). */
static void emit_fuse_fault(FILE *f, const struct emit *e, const struct fs_config *c)
{
    /* Set-up gives a root the reference's mode and owner; a fs alone is its own reference.
     * Either way the root is looked up before a fault is armed, as Metis opens it first. */
    const char *root = e->cfg->nfs > 1 ? "chmod \"$root_mode\" \"$mnt\"; chown \"$root_owner\" \"$mnt\"; "
                                       : "[ -d \"$mnt/.\" ]; ";
    fprintf(f, "  fmount() {  # IMG: the daemon on that image; 1 if it does not mount\n"
            "    fimg=$1\n"
            "    sh -c \"$(printf '%%s' \"$cmd\" | sed \"s|{img}|$1|g\")\" >\"$work/daemon.log\" 2>&1 &\n"
            "    pid=$!\n"
            "    for _ in $(seq 1 200); do\n"
            "      fuse_on_top && { %sreturn 0; } 2>/dev/null\n"
            "      kill -0 \"$pid\" 2>/dev/null || break; sleep 0.05\n"
            "    done\n    kill \"$pid\" 2>/dev/null; wait \"$pid\" 2>/dev/null; pid=; return 1\n  }\n"
            "  ucmd=", root);
    emitsh_quote(f, c->unmount_cmd[0] ? c->unmount_cmd : "fusermount3 -u {mnt}");
    fprintf(f, "\n  ucmd=$(printf '%%s' \"$ucmd\" | sed \"s|{mnt}|$mnt|g\")\n"
            "  do_mount() { fmount \"$img\" || { tail -n 5 \"$work/daemon.log\" >&2; exit 2; }; }\n"
            "  # A daemon that forks writes its image after the unmount returns: wait until no\n"
            "  # process but the faulty device's has the image it was given open, as Metis does.\n"
            "  held() { find /proc/[0-9]*/fd -lname \"$1\" 2>/dev/null | grep -qv \"^/proc/${fpid:-none}/\"; }\n"
            "  do_umount() {\n    sh -c \"$(printf '%%s' \"$ucmd\" | sed \"s|{img}|$fimg|g\")\" || exit 2; wait \"$pid\"; pid=\n"
            "    for _ in $(seq 1 600); do held \"$fimg\" || return 0; sleep 0.05; done\n"
            "    echo \"run.sh: the daemon still has $fimg open after the unmount\" >&2; exit 2\n  }\n"
            "  # Metis starts the daemon again around every operation: so does this.\n"
            "  do_mount; repro pre; do_umount\n"
            "  for k in $(seq 1 $((nsteps - 1))); do do_mount; repro step \"$k\"; do_umount; done\n");
    emitc_fault_script(f, e, c);
    fprintf(f, "  do_mount; repro tree; do_umount\n  verdict\n");
}

static void emit_fuse(FILE *f, const struct emit *e, const struct fs_config *c)
{
    char dir_sed[PH_MAX_DIRS * 80];
    emitsh_dirs(f, c, dir_sed, sizeof dir_sed);
    if (c->size && !c->dir_backed) {
        fprintf(f, "  truncate -s %" PRIu64 " \"$img\" || exit 2\n", c->size);
        if (c->fstype[0])
            emitsh_mkfs(f, c, c->size);
    }
    fprintf(f, "  # The config's mount command, with {mnt}, {img}, {dir} and {bin} (the Metis that wrote "
            "this, or $METIS_BIN) filled in.\n  bindir=${METIS_BIN:-");
    emitsh_quote(f, e->bindir);
    fprintf(f, "}\n  cmd=");
    emitsh_quote(f, c->mount_cmd);
    /* A fault step's case fills {img} at each mount: the plain image or the faulty device's. */
    int fault = emitc_fault_last(e, c) != NULL;
    fprintf(f, "\n  cmd=$(printf '%%s' \"$cmd\" | sed \"s|{mnt}|$mnt|g; %ss|{bin}|$bindir|g%s\")\n",
            fault ? "" : "s|{img}|$img|g; ", dir_sed);
    if (fault) {
        emit_fuse_fault(f, e, c);
        return;
    }
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

/* Metis waits op_timeout for a mount; run.sh waits as long, rounded up, and never under 10 s
 * (a mount of scrypt-keyed CryFS alone takes 6-20 s). */
static int mount_wait_seconds(const struct fs_config *c)
{
    double t = c->op_timeout;
    return t < 10 ? 10 : (int)t + (t > (int)t);
}

static void emit_cases(FILE *f, const struct emit *e)
{
    for (int i = 0; i < e->cfg->nfs; i++) {
        const struct fs_config *c = &e->cfg->fs[i];
        fprintf(f, "%s)\n  mount_wait=%d\n", c->name, mount_wait_seconds(c));
        if (e->at_once)
            emitsh_together_case(f, e, c);
        else if (c->type == FS_KERNEL && fs_format_devless(c->fstype))
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
    fprintf(f, "# Every root starts as set-up left the reference's.\nroot_mode=%04o root_owner=%u:%u\n"
            "root_uid=%u root_gid=%u\n", e->root_mode, e->root_uid, e->root_gid, e->root_uid,
            e->root_gid);
    if (e->at_once)
        emitsh_together_head(f, e);
    /* the program makes the restore calls of the fs it runs on (call_here) */
    fprintf(f, "REPRO_FS=${1:-%s}; export REPRO_FS\n", e->cfg->fs[e->fut].name);
    fprintf(f, "nsteps=%zu\ncase \"${1:-%s}\" in\n", e->t->nops - e->t->start - (e->at_once ? 1 : 0),
            e->cfg->fs[e->fut].name);
    emit_cases(f, e);
    fprintf(f, "*) echo \"run.sh: no fs '$1'\" >&2; exit 2;;\nesac\nexit $rc\n");
    if (fclose(f) != 0)
        return snprintf(err, errlen, "%s: write failed", path), -1;
    chmod(path, 0755);
    return 0;
}
