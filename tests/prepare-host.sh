#!/usr/bin/env bash
# Makes this machine ready for Metis's runs and tests: FUSE (with fusectl) and loop devices present.
set -eu
[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || true
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
[ -e /dev/fuse ] || { echo "prepare-host: /dev/fuse missing and 'modprobe fuse' failed" >&2; exit 1; }
[ -e /dev/loop-control ] || { echo "prepare-host: /dev/loop-control missing and 'modprobe loop' failed" >&2; exit 1; }
# fusectl is how Metis aborts the connection of a hung FUSE daemon whose kill cannot end it
# (a daemon blocked on its own mount); systemd mounts it at boot, a bare container does not.
if [ -d /sys/fs/fuse/connections ] && ! mountpoint -q /sys/fs/fuse/connections; then
  mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null ||
    echo "prepare-host: warning: could not mount fusectl on /sys/fs/fuse/connections" >&2
fi
