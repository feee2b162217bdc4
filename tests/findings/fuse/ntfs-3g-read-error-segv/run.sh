#!/usr/bin/env bash
# Confirms outside Metis that lowntfs-3g dies (segfault) when a device read fails while it enters a new security descriptor: an LD_PRELOAD shim fails its reads from the Nth on, and a symlink is made; prints, for each N, the symlink's answer.
# usage: tests/findings/fuse/ntfs-3g-read-error-segv/run.sh   (root)
# Exit 0 when some N makes the daemon die (the call answers ECONNABORTED, "Software caused
# connection abort": the kernel's answer once a FUSE daemon is gone) and the same N does so in
# 5 of 5 further runs; 1 otherwise; 77 when lowntfs-3g is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
command -v lowntfs-3g >/dev/null && command -v mkfs.ntfs >/dev/null || { echo "skip: ntfs-3g: not installed"; exit 77; }
cc -shared -fPIC -O2 -o "$W/failread.so" "$here/failread.c" -ldl || exit 2
opts=permissions,posix_nlink,special_files=wsl   # as configs/targets/ntfs-3g.ini
truncate -s 2M "$W/base.img" && mkfs.ntfs -q -F -f "$W/base.img" >/dev/null 2>&1 || exit 2
mkdir -p "$W/m"
lowntfs-3g -o $opts "$W/base.img" "$W/m" 2>/dev/null || exit 2
mkdir "$W/m/d0" "$W/m/d1"; touch "$W/m/f0" "$W/m/d0/f0" "$W/m/d1/f1"
mv "$W/m/d0" "$W/m/d2"; mv "$W/m/f0" "$W/m/d1/f0"; mv "$W/m/d1" "$W/m/d0"
umount "$W/m"

attempt() {   # $1 N: a fresh copy mounted under the shim, armed, then ln -s; prints the answer
  cp "$W/base.img" "$W/t.img"; rm -f "$W/arm"
  LD_PRELOAD=$W/failread.so FAILREAD_ARM=$W/arm FAILREAD_AT=$1 lowntfs-3g -o $opts "$W/t.img" "$W/m" 2>/dev/null || { echo "mount failed"; return; }
  touch "$W/arm"
  local r
  r=$(ln -s x "$W/m/d2/sl" 2>&1) && r="ok" || r=${r##*: }
  umount "$W/m" 2>/dev/null || umount -l "$W/m"
  echo "$r"
}
echo "ntfs-3g $(version_of ntfs-3g) (lowntfs-3g), ln -s in a directory, reads failing from the Nth on:"
died=
for n in $(seq 0 12); do
  r=$(attempt "$n"); echo "  N=$n: $r"
  [ -z "$died" ] && [ "$r" = "Software caused connection abort" ] && died=$n
done
[ -n "$died" ] || { echo "the daemon never died"; exit 1; }
hits=0
for i in 1 2 3 4 5; do [ "$(attempt "$died")" = "Software caused connection abort" ] && hits=$((hits + 1)); done
echo "N=$died again: the daemon died in $hits of 5 runs"
echo "kernel log: $(dmesg 2>/dev/null | grep 'lowntfs-3g.*segfault.*libntfs-3g' | tail -n 1 | sed 's/^\[[^]]*\] //')"
[ $hits -eq 5 ]
