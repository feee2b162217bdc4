#!/usr/bin/env bash
# Confirms outside Metis what open(O_RDONLY|O_TRUNC) does to a securefs file (EBADF, unreadable) and that an open for writing, then a remount, read it again; tmpfs as the control.
# usage: tests/findings/fuse/securefs-rdonly-trunc/run.sh   (root)
# Exit 0 when securefs showed the EBADF and the file was readable again after a writing open
# and after a remount (what the finding now says), 1 otherwise, 77 when securefs is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
cc -O2 -o "$W/trunc" "$here/trunc.c" || exit 2
mount_target securefs "$W/s" 2>/dev/null || exit 77
echo "securefs $(version_of securefs):"
out=$("$W/trunc" "$W/s" 2>&1); rc=$?
echo "$out"
status=0
[ $rc -eq 1 ] || status=1
[ "$(echo "$out" | grep -c 'read: ok "again"')" -eq 2 ] || status=1
umount "$W/s" && securefs mount -b --pass metis "$W/securefs-data" "$W/s" >/dev/null 2>&1 && sleep 1
after="$(cat "$W/s/f" 2>&1) $(cat "$W/s/g" 2>&1)"
echo "after a remount: f and g read \"$after\""
[ "$after" = "again again" ] || status=1
mount_target tmpfs "$W/t" || exit 2
echo "tmpfs (control):"
"$W/trunc" "$W/t" || status=1
exit $status
