# Helper of the backend_*.sh tests (sourced): builds tests/lib/backend_driver.c, drives it, checks leftovers.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
RUN=bt$$
DRV=$T/backend-driver

cleanup() {
  [ -x "$DRV" ] && "$DRV" --run-id "$RUN" sweep
  # belt and braces, in case the sweep itself is what is broken: only this run's names
  grep -o " [^ ]*/metis-$RUN/mnt-[^ ]*" /proc/self/mountinfo | while read -r m; do umount -l "$m"; done
  for f in /sys/block/loop*/loop/backing_file; do
    [ -e "$f" ] && grep -q "^/dev/shm/metis-$RUN/" "$f" && losetup -d "/dev/$(basename "$(dirname "$(dirname "$f")")")"
  done
  rm -rf "/dev/shm/metis-$RUN"
  rmdir /tmp/metis-$RUN/mnt-* /tmp/metis-$RUN 2>/dev/null
  true
}
on_exit cleanup

# From the backend sources themselves and the read-back they use (they need nothing else of
# the engine): a stale lib/metis/libmetis.a cannot then hide a change.
build_driver() {
  cc -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
     -Ifs-state -Ireffs -Ifaultdev -o "$DRV" tests/lib/backend_driver.c \
     fs-state/backend/*.c fs-state/backend/*/*.c fs-state/backend/*/*/*.c fs-state/tree/*.c fs-state/lib/*/*.c fs-state/engine/vocab/fsinfo.c \
     -lcrypto -lpthread 2>"$T/cc.log" ||
    { cat "$T/cc.log"; fail "cannot build the backend driver"; }
}

# Nothing of this run may remain: mounts, loop devices, images, mount points.
check_clean() {
  local what=$1
  grep -q "/metis-$RUN/mnt-" /proc/self/mountinfo && fail "$what: a mount is left"
  if losetup -a 2>/dev/null | grep -q "/dev/shm/metis-$RUN/"; then fail "$what: a loop device is left"; fi
  [ -e "/dev/shm/metis-$RUN" ] && fail "$what: /dev/shm/metis-$RUN is left"
  [ -e "/tmp/metis-$RUN" ] && fail "$what: /tmp/metis-$RUN is left"
  pgrep -f "metis-$RUN/mnt-" >/dev/null && fail "$what: a daemon of this run is still running"
  true
}

# drive NAME ARGS...: runs the driver, shows its output, fails on a non-zero exit.
drive() {
  local what=$1; shift
  echo "== $what"
  if ! "$DRV" --run-id "$RUN" "$@" >"$T/out" 2>&1; then
    cat "$T/out"; fail "$what"
  else
    cat "$T/out"
  fi
  check_clean "$what"
}

# expect_fail NAME PATTERN ARGS...: setup must fail with a message matching PATTERN.
expect_fail() {
  local what=$1 pat=$2; shift 2
  echo "== $what"
  "$DRV" --run-id "$RUN" "$@" setup-fail >"$T/out" 2>&1 || fail "$what: driver exit $?"
  cat "$T/out"
  grep -Eq "$pat" "$T/out" || fail "$what: message does not match /$pat/"
  [ "$(grep -c . "$T/out")" -eq 1 ] || fail "$what: message is not one line"
  check_clean "$what"
}

# (fail ends the test at the first failed check.)
finish() { echo "all checks passed"; }
