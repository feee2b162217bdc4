#!/usr/bin/env bash
# Confirms outside Metis that open(O_CREAT) of an existing name racing its unlink fails with ENOENT on gocryptfs (go-fuse, not libfuse: its own cause), against tmpfs; prints the rate.
# usage: tests/findings/fuse/gocryptfs-open-unlink/run.sh [ROUNDS]   (root; default 5000 rounds)
# Exit 0 when gocryptfs showed the ENOENT and tmpfs did not, 1 otherwise, 77 when gocryptfs is
# not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5000}
. "$here/../../lib/mounts.sh"
cc -O2 -pthread -o "$W/race" "$here/../../lib/race.c" || exit 2
mount_target gocryptfs "$W/g" || exit 77
status=0
out=$("$W/race" create "$W/g" "$rounds")
echo "gocryptfs $(version_of gocryptfs): $out"
case $out in *ENOENT*) ;; *) status=1 ;; esac
mount_target tmpfs "$W/t" || exit 2
out=$("$W/race" create "$W/t" "$rounds") || status=1
echo "tmpfs (control): $out"
exit $status
