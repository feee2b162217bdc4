#!/usr/bin/env bash
# RefFS backend: bin/reffs started and mounted, states saved/restored/pickled by ioctl, no leftovers.
set -u
. "$(dirname "$0")/../../lib/backend_driver.sh"
BIN=$METIS_BIN
[ -x "$BIN/reffs" ] || { echo "no $BIN/reffs (build it first)"; exit 77; }
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
build_driver
export METIS_REFFS_BIN=$BIN/reffs

drive "reffs round trip + 1000 timed steps" --type reffs --size 16777216 --bench 1000 roundtrip
drive "reffs default capacity" --type reffs roundtrip
expect_fail "bad reffs option" '^setup failed as expected: fs reffs: setup: .*reffs -f -o .*no_such_option.*exited without mounting' \
  --type reffs --reffs-opts no_such_option=1
METIS_REFFS_BIN=/nonexistent/reffs expect_fail "missing daemon" '^setup failed as expected: fs reffs: setup: cannot start /nonexistent/reffs' \
  --type reffs

echo "== crash, then sweep"
"$DRV" --run-id "$RUN" --type reffs crash || fail "crash: setup"
grep -q "/metis-$RUN/mnt-reffs" /proc/self/mountinfo || fail "crash: nothing was mounted"
"$DRV" --run-id "$RUN" sweep
wait_for 60 eval '! pgrep -f "metis-$RUN/mnt-" >/dev/null'
check_clean "sweep after a crash"
finish
