#!/usr/bin/env bash
# Triage at length (not part of make check): keep-going runs of BENCH_TRIAGE_SECONDS (default 120)
# against the two planted defects; prints the classes, their hits, the shrunk lengths and the
# exit codes of each reproducer on the mutant, on plain RefFS and on the reference.
. "$(dirname "$0")/../../lib/common.sh"
bin=$METIS_BIN
secs=${BENCH_TRIAGE_SECONDS:-120}
out=$T
fixture=tests/fixtures/defects/two-defects.ini

# The fixture as is (the reference is plain RefFS), and with ext4 as the reference and plain
# RefFS as a third file system, so that "the reference" and "plain RefFS" are two answers.
cp "$fixture" "$out/ref-reffs.ini"
awk '/^\[fs ref\]/ { print "[fs ext4]\ntype = kernel\nfstype = ext4\nsize = 256K\n\n[fs plain]"; next } { print }' \
  "$fixture" > "$out/ref-ext4.ini"

report() {  # NAME RUN_DIR FS...: one line per class, then the reproducer's exit on each FS
  local name=$1 run=$2; shift 2
  python3 - "$run/summary.json" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("%s: %d operations in %.0f s, %d discrepancies in %d classes" %
      (sys.argv[2], s["ops"], s["seconds"], s["discrepancies"], s["discrepancy_classes"]))
for c in s["classes"]:
    print("  class %d %-28s %6d hits, first at op %-6d trace %s ops (%s)" %
          (c["class"], c["signature"], c["hits"], c["first_op"], c.get("trace_ops", "-"),
           c.get("triage", "not triaged")))
PY
  for repro in "$run"/class-*-repro/run.sh; do
    [ -x "$repro" ] || continue
    local line="  $(basename "$(dirname "$repro")"):"
    for fs in "$@"; do
      "$repro" "$fs" > "$out/repro.log" 2>&1
      line="$line $fs=$?"
    done
    echo "$line"
  done
}

for cfg in ref-reffs ref-ext4; do
  start=$(date +%s.%N)
  "$bin/metis" run "$out/$cfg.ini" --seconds "$secs" --out "$out/$cfg" > "$out/$cfg.log" 2>&1
  rc=$?
  took=$(echo "$(date +%s.%N) - $start" | bc)
  printf 'triage bench %s: metis run exit %d after %.0f s (search %d s, then pan build, teardown and triage)\n' \
    "$cfg" "$rc" "$took" "$secs"
  if [ "$cfg" = ref-reffs ]; then report "$cfg" "$out/$cfg" bad ref; else report "$cfg" "$out/$cfg" bad plain ext4; fi
done
