#!/usr/bin/env bash
# Confirms outside Metis the mergerfs and sshfs ESTALE classes: chmod or truncate racing an unlink of the name, by path (the kernel retries ESTALE), through an O_PATH descriptor resolved before both (as Metis issues them), and through one after the unlink with no race; prints each rate.
# usage: tests/findings/fuse/fuse-estale-unlink/run.sh [ROUNDS]   (root; default 5000 by path, a tenth through a descriptor)
# Exit 0 when, on every installed target, no path call gave ESTALE and every one of 200 calls
# through a descriptor after the unlink did (what the findings now say), 1 otherwise, 77
# when neither target is installed. tmpfs is run alike as the control.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5000}
. "$here/../../lib/mounts.sh"
cc -O2 -pthread -o "$W/race" "$here/../../lib/race.c" || exit 2
ran=0 status=0
for t in mergerfs sshfs tmpfs; do
  mount_target "$t" "$W/$t" || continue
  [ "$t" = tmpfs ] || ran=$((ran + 1))
  for call in chmod truncate; do
    out=$("$W/race" "$call" "$W/$t" "$rounds"); rc=$?
    echo "$t $(version_of "$t"): $out"
    # by path: some serial order explains every answer (an errno other than ESTALE, such as
    # mergerfs's rare EINVAL of a truncate, is printed and does not count against this)
    case $out in *ESTALE*) status=1 ;; esac
    # through a descriptor, racing: printed, not required (on sshfs with the profile's
    # options about 1 % of rounds, the unlink seldom finishes first)
    out=$("$W/race" "$call" "$W/$t" $((rounds / 10)) fd); rc=$?
    echo "$t $(version_of "$t"): $out"
    [ "$t" != tmpfs ] || [ $rc -eq 0 ] || status=1
    out=$("$W/race" "$call" "$W/$t" 200 fd-serial); rc=$?
    echo "$t $(version_of "$t"): $out"
    if [ "$t" = tmpfs ]; then [ $rc -eq 0 ] || status=1
    else case $out in *"200 not serializable"*ESTALE\ 200*) ;; *) status=1 ;; esac; fi
  done
done
[ $ran -gt 0 ] || exit 77
exit $status
