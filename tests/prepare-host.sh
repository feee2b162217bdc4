#!/usr/bin/env bash
# Makes this machine ready for the integration tests: FUSE and loop devices present.
set -eu
[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || true
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
[ -e /dev/fuse ] || { echo "prepare-host: /dev/fuse missing and 'modprobe fuse' failed" >&2; exit 1; }
[ -e /dev/loop-control ] || { echo "prepare-host: /dev/loop-control missing and 'modprobe loop' failed" >&2; exit 1; }
