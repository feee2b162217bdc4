#!/usr/bin/env bash
# `make run`: the default check, RefFS against ext4 for 60 seconds, and its summary.
set -u
cd "$(dirname "$0")/.."
tests/prepare-host.sh || exit 3
config=${METIS_CONFIG_FILE:-configs/ref-vs-ext4.ini}
seconds=${SECONDS_LIMIT:-60}
bin=${METIS_BIN:-bin}
"$bin/metis" run "$config" --seconds "$seconds"
rc=$?
case $rc in
  0) echo "make run: no discrepancy in ${seconds}s of $config";;
  1) echo "make run: discrepancy found (see the run directory above; bin/metis-replay repro DIR)";;
  *) echo "make run: metis exited with status $rc";;
esac
exit $rc
