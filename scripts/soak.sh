#!/usr/bin/env bash
# The soak: every shipped config and installed target profile run in chunks toward a number of operations each, over the machine's cores, resuming from its ledgers.
#
# usage: scripts/soak.sh [CONFIG...]        (default: configs/*.ini and configs/targets/*.ini)
#        scripts/soak.sh --table            the README's table from the ledgers
# env:   SOAK_DIR      ledgers and kept runs (default runs/soak)
#        SOAK_OPS      operations wanted per config (default 1000000)
#        SOAK_SLOW_OPS for the slow pairs, ext4-vs-xfs and ext4-vs-btrfs (default 200000)
#        SOAK_CHUNK_S  seconds of one chunk (default 600)
#        SOAK_HOURS    stop starting chunks after this many hours (default: none)
#        SOAK_JOBS     chunks at once (default: the number of cores)
# A chunk is one `metis run CONFIG --seed N --ops 0 --keep-going` for SOAK_CHUNK_S seconds; its seed is
# its number, so chunk N of a config is the same run wherever and whenever it runs. When a chunk
# ends, one line goes to SOAK_DIR/NAME.ledger (flock'd); a chunk cut short leaves none and is
# run again. A clean chunk's run directory is removed (its summary.json kept); one with a
# discrepancy or a failure is kept whole for triage. Exit: 0 every config reached its count
# with no discrepancy, 1 a discrepancy (a new class, for a profile with its known file), 3 a
# chunk failed, 2 bad usage, 130 interrupted.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
metis=${METIS_BIN:-$top/bin}/metis
dir=${SOAK_DIR:-$top/runs/soak}
want=${SOAK_OPS:-1000000} slow=${SOAK_SLOW_OPS:-200000} chunk_s=${SOAK_CHUNK_S:-600}
jobs=${SOAK_JOBS:-$(nproc)} hours=${SOAK_HOURS:-}

die() { echo "soak: $*" >&2; exit 2; }
positive() { [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] || die "$1 must be a positive whole number, not '$2'"; }
positive SOAK_OPS "$want"; positive SOAK_SLOW_OPS "$slow"
positive SOAK_CHUNK_S "$chunk_s"; positive SOAK_JOBS "$jobs"
[ -z "$hours" ] || [[ $hours =~ ^[0-9]+([.][0-9]+)?$ ]] || die "SOAK_HOURS must be a number, not '$hours'"

name_of() { local n=${1%.ini}; [[ $1 == */targets/* ]] && echo "target-${n##*/}" || echo "${n##*/}"; }
wanted() { case $(name_of "$1") in ext4-vs-xfs|ext4-vs-btrfs) echo "$slow" ;; *) echo "$want" ;; esac; }
ledger_sum() {   # $1 ledger, $2 field: the sum of field=N over its lines
  [ -f "$1" ] || { echo 0; return; }
  awk -v f="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) s += kv[2] } }
                 END { printf "%d\n", s }' "$1"
}

table() {
  # A chunk's states are the distinct states its own search stored; chunks have their own seeds,
  # so the sum counts a state each chunk met again once per chunk.
  echo "| config | operations | chunks | hours | states (sum over chunks) | discrepancies | failed chunks |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  local l
  for l in "$dir"/*.ledger; do
    [ -f "$l" ] || continue
    awk -v n="$(basename "$l" .ledger)" '
      { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] }
        c++; if ($0 !~ / status=(0|1) /) bad++ }
      END { printf "| %s | %d | %d | %.1f | %d | %d | %d |\n", n, v["ops"], c, v["seconds"] / 3600,
            v["states"], v["new"], bad }' "$l"
  done
}

[ "${1:-}" = --table ] && { table; exit 0; }
[ -x "$metis" ] || die "$metis not built (run make)"
command -v parallel >/dev/null || die "GNU parallel is missing (make deps)"
mkdir -p "$dir" || exit 2

installed() {   # a target profile's "; needs:" commands are all in PATH
  local c
  for c in $(sed -n 's/^; needs: *//p' "$1" | head -1); do command -v "$c" >/dev/null || return 1; done
}

# One chunk: $1 config, $2 chunk number. Appends its ledger line when it ends.
chunk() {
  local cfg=$1 n=$2 name out known args rc
  name=$(name_of "$cfg")
  out=$dir/$name/chunk-$n
  rm -rf "$out"
  mkdir -p "$dir/$name" || return 1
  known=${cfg%.ini}.known
  args=(run "$cfg" --seed "$n" --seconds "$chunk_s" --ops 0 --keep-going --out "$out")
  [ -f "$known" ] && args+=(--known "$known")
  "$metis" "${args[@]}" >"$out.log" 2>&1
  rc=$?
  [ $rc -ge 128 ] && return $rc          # interrupted: no ledger line, run again next time
  python3 - "$out/summary.json" "$n" "$rc" <<'PY' >"$out.line" || echo "chunk=$n status=$rc ops=0 seconds=0 new=0 states=0" >"$out.line"
import json, sys
s = json.load(open(sys.argv[1]))
new = sum(1 for c in s.get("classes", []) if not c.get("known"))
print("chunk=%s status=%s ops=%d seconds=%.0f new=%d states=%d classes=%d" % (
    sys.argv[2], sys.argv[3], s.get("ops", 0), s.get("seconds", 0), new, s.get("states", 0),
    len(s.get("classes", []))))
PY
  flock "$dir/$name.ledger" -c "cat '$out.line' >>'$dir/$name.ledger'"
  if [ $rc -eq 0 ]; then
    cp "$out/summary.json" "$out.summary.json" 2>/dev/null
    rm -rf "$out" "$out.line"
  fi
  return 0
}
export -f chunk name_of
export metis dir chunk_s
export SHELL=${BASH:-/bin/bash}

configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("$top"/configs/*.ini "$top"/configs/targets/*.ini)
for c in "${configs[@]}"; do [ -f "$c" ] || die "no config $c"; done
start=$(date +%s)
trap 'echo "soak: interrupted; the ledgers in $dir keep what finished" >&2; exit 130' INT TERM

# Rounds: one chunk per config still short of its count, all configs of a round at once.
while :; do
  todo=()
  for c in "${configs[@]}"; do
    if [[ $c == */targets/* ]] && ! installed "$c"; then continue; fi
    l=$dir/$(name_of "$c").ledger
    [ "$(ledger_sum "$l" ops)" -lt "$(wanted "$c")" ] || continue
    next=$(( $( [ -f "$l" ] && wc -l <"$l" || echo 0) + 1 ))
    todo+=("$c $next")
  done
  [ ${#todo[@]} -gt 0 ] || break
  if [ -n "$hours" ] && awk -v e=$(( $(date +%s) - start )) -v h="$hours" 'BEGIN { exit !(e >= h * 3600) }'; then
    echo "soak: $hours h spent; ${#todo[@]} configs still short (run again to resume)"
    break
  fi
  echo "soak: round of ${#todo[@]} chunks, ${chunk_s} s each, $jobs at once"
  before=$(cat "$dir"/*.ledger 2>/dev/null | wc -l)
  printf '%s\n' "${todo[@]}" | parallel -j "$jobs" --colsep ' ' chunk {1} {2} || exit 130
  # A round that recorded nothing would be run again forever.
  [ "$(cat "$dir"/*.ledger 2>/dev/null | wc -l)" -gt "$before" ] ||
    { echo "soak: no chunk of the round finished (see $dir/*/chunk-*.log)" >&2; exit 3; }
done
table
status=0
for l in "$dir"/*.ledger; do
  [ -f "$l" ] || continue
  [ "$(ledger_sum "$l" new)" -eq 0 ] || status=1
  grep -qv ' status=[01] ' "$l" && status=3
done
exit $status
