# The CPU time a config's run spends per operation, for make bench and its guard (sourced after common.sh).
# bench_cpu_of BIN_DIR CONFIG SECONDS DIR [metis run options...]: runs CONFIG for SECONDS into DIR
# and prints "OPS OPS_PER_S CPU_US_PER_OP", or "nan nan nan" when the run left no summary; the
# CPU time is "-" when the run spent less than 3 s of CPU beyond the set-up (a config with an
# operation limit, such as smoke's 300): too little against the set-up's own spread.
# CPU time is user + sys of `metis run` and every process it waited for (pan, its daemons);
# a first run of one operation into DIR.setup measures what does not grow with the run (pan's
# build, the set-up, the teardown), and is taken off. CPU time moves far less with other load
# on the machine than operations per second do, which is why the guard holds it.
bench_cpu_of() {
  local bin=$1 cfg=$2 secs=$3 dir=$4 TIMEFORMAT='%U %S'
  shift 4
  { time METIS_BIN="$bin" "$bin/metis" run "$cfg" --ops 1 --out "$dir.setup" "$@" \
      >"$dir.setup.log" 2>&1; } 2>"$dir.setup.cpu"
  { time METIS_BIN="$bin" "$bin/metis" run "$cfg" --seconds "$secs" --out "$dir" "$@" \
      >"$dir.log" 2>&1; } 2>"$dir.cpu"
  python3 - "$dir/summary.json" "$dir.cpu" "$dir.setup.cpu" <<'PY' 2>/dev/null || echo nan nan nan
import json, sys
s = json.load(open(sys.argv[1]))
cpu = lambda f: sum(map(float, open(f).read().split()[-2:]))
ops, net = s["ops"], cpu(sys.argv[2]) - cpu(sys.argv[3])
if ops < 2:
    raise SystemExit(1)
print(ops, s["ops_per_s"], "%.1f" % (net * 1e6 / (ops - 1)) if net >= 3 else "-")
PY
}

# bench_recheck BIN_DIR MEASURED_TSV BASELINE_TSV LIMIT: each config the guard would fail (its
# row's fifth field names its file) is measured twice more and keeps its lowest CPU time per
# operation. Other load on the machine only ever adds to it (shared caches and cores: the same
# build measured 65 and 84 us an operation at load averages of 6 and 9), so one dear run alone
# is no finding; a slower step is slower in every run.
bench_recheck() {
  local bin=$1 measured=$2 baseline=$3 limit=$4 name secs cpu ops_s cfg r o c
  for name in $(tests/bench/guard/guard_compare.py "$measured" "$baseline" "$limit" |
                  sed -n 's/^FAIL: \([^:]*\):.*/\1/p'); do
    IFS=$'\t' read -r _ secs cpu ops_s cfg < <(awk -F'\t' -v n="$name" '$1 == n' "$measured")
    for r in 2 3; do
      read -r _ o c <<<"$(bench_cpu_of "$bin" "$cfg" "$secs" "$T/$name-recheck-$r")"
      if awk -v a="$cpu" -v b="$c" 'BEGIN { exit !(b != "nan" && (a == "nan" || b + 0 < a + 0)) }'; then
        cpu=$c ops_s=$o
      fi
    done
    awk -F'\t' -v OFS='\t' -v n="$name" -v c="$cpu" -v o="$ops_s" '$1 == n { $3 = c; $4 = o } 1' \
      "$measured" >"$measured.new" && mv "$measured.new" "$measured"
  done
}
