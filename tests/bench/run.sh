#!/usr/bin/env bash
# `make bench`: runs each shipped config for a fixed time, prints operations/s and states, and holds CPU time per operation to tests/bench/guard/baseline.tsv.
. "$(dirname "$0")/../lib/common.sh"
. tests/lib/bench_cpu.sh
tests/prepare-host.sh || exit 1
bin=$METIS_BIN
secs=${BENCH_SECONDS:-20}
out=$T
printf '%-22s %10s %10s %10s %10s %12s %10s\n' config ops ops/s states matched peak_rss_MB cpu_us/op
# The tools a target profile's "; needs:" line names that are not installed (empty: none).
missing_tools() {
  local t miss=
  for t in $(sed -n 's/^; needs: *//p' "$1" | head -n1); do
    command -v "$t" >/dev/null || miss="$miss $t"
  done
  echo "${miss# }"
}
for cfg in configs/*.ini configs/targets/*.ini; do
  name=$(basename "$cfg" .ini)
  case $cfg in configs/targets/*)
    name=target-$name
    miss=$(missing_tools "$cfg")
    if [ -n "$miss" ]; then
      printf '%-22s skipped: %s not installed (package %s)\n' "$name" "$miss" \
        "$(sed -n 's/^; package: *//p' "$cfg" | head -n1)"
      continue
    fi
  esac
  read -r _ ops_s cpu <<<"$(bench_cpu_of "$bin" "$cfg" "$secs" "$out/$name")"
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$secs" "$cpu" "$ops_s" "$cfg" >>"$out/measured.tsv"
  s="$out/$name/summary.json"
  if [ -f "$s" ]; then
    python3 - "$s" "$name" "$cpu" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("%-22s %10d %10.1f %10d %10d %12.1f %10s" % (sys.argv[2], s["ops"], s["ops_per_s"], s["states"],
      s["matched"], s["peak_rss_kib"] / 1024.0, sys.argv[3]))
for fs, t in s.get("time_per_op_us", {}).items():
    print("    %-18s us/op: restore+mount %.0f  op %.0f  abstract %.0f  unmount+save %.0f%s" %
          (fs, t["restore_mount"], t["operation"], t["abstract"], t["unmount_save"],
           "  crash %.0f" % t["crash"] if t.get("crash", 0) >= 1 else ""))
for fs, b in s.get("backends", {}).items():
    if b.get("restore") in ("snapshot", "logical", "replay"):
        keys = ("restore", "readback", "replays", "mounts", "snapshot_restores",
                "logical_restores", "verified", "fallbacks", "already_there")
        print("    %-18s %s" % (fs, " ".join("%s=%s" % (k, b[k]) for k in keys if k in b)))
        if "kept" in b:
            print("    %-18s kept: %s" % (fs, " ".join("%s=%s" % kv for kv in b["kept"].items())))
PY
  else
    echo "$name: no summary ($(tail -n1 "$out/$name.log"))"
  fi
done
# The guard: a config whose CPU time per operation grew by more than BENCH_GUARD_LIMIT percent
# (default 20) against the baseline, in its first run and twice more, fails make bench, after the
# benchmarks below have run.
bench_recheck "$bin" "$out/measured.tsv" "${BENCH_BASELINE:-tests/bench/guard/baseline.tsv}" \
  "${BENCH_GUARD_LIMIT:-20}"
tests/bench/guard/guard_compare.py "$out/measured.tsv" "${BENCH_BASELINE:-tests/bench/guard/baseline.tsv}" \
  "${BENCH_GUARD_LIMIT:-20}"
guard=$?
for extra in tests/bench/reffs/reffs.sh tests/bench/speed/swarm_scaling.sh tests/bench/speed/bounded_swarm.sh \
  tests/bench/guard/guard_check.sh; do
  [ -x "$extra" ] && "$extra"
done
# Crash states of the default crash configs, BENCH_CRASH_SECONDS (60) per format: no class wanted.
CRASH_SECONDS=${BENCH_CRASH_SECONDS:-60} CRASH_OUT=$out/crash-states tests/bench/checks/crash_states.sh
# A million seeded calls per pairing (RefFS mount vs tmpfs, mount vs ext4, library vs ext4).
tests/bench/reffs/reffs_vs_kernel.sh "${VS_KERNEL_CALLS:-1000000}"
[ "$guard" -eq 0 ] || echo "make bench: FAIL: a config is more than ${BENCH_GUARD_LIMIT:-20}% slower than tests/bench/guard/baseline.tsv (guard lines above)"
exit "$guard"
