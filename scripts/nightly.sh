#!/usr/bin/env bash
# A nightly Metis job to copy: a swarm with a known-classes file, its reports in a dated directory, the fixed-since list, and one line for a mail or chat hook.
#
# usage: scripts/nightly.sh CONFIG --hosts HOSTS --known FILE [--reports DIR] [--reproducers DIR]
#                           [--seconds S] [-- MORE SWARM OPTIONS]
#   --reports DIR      where the dated directories go (default: runs/nightly)
#   --reproducers DIR  kept reproducers: tonight's new classes' are copied in (one directory per
#                      signature), and recheck looks there for the known classes not seen tonight
#   --seconds S        each VT's search time (default: the config's)
# Writes DIR/DATE/: swarm/ (metis swarm's output, report.html), junit.xml, recheck.txt,
# swarm.txt and swarm.err (what the swarm printed), line.txt (the line below). Prints one line:
#   metis nightly DATE CONFIG: N new (SIGNATURES), M known, F fixed, OPS ops, U/H hosts, report PATH
# and exits as metis swarm did: 1 a new class, 0 none, 3 a VT failed, 130 interrupted; 2 bad
# usage. METIS_BIN names the directory of metis and metis-replay (default: this tree's bin/,
# else PATH).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bindir=${METIS_BIN:-$here/../bin}
metis=$bindir/metis replay=$bindir/metis-replay
[ -x "$metis" ] || metis=metis
[ -x "$replay" ] || replay=metis-replay

usage() { sed -n '4,10s/^# \{0,1\}//p' "$0" >&2; exit 2; }
config= hosts= known= reports=runs/nightly repros= seconds=
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=${2:-}; shift 2 ;;
    --known) known=${2:-}; shift 2 ;;
    --reports) reports=${2:-}; shift 2 ;;
    --reproducers) repros=${2:-}; shift 2 ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '4,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "nightly: unknown option $1" >&2; usage ;;
    *) [ -z "$config" ] || usage; config=$1; shift ;;
  esac
done
[ -n "$config" ] && [ -n "$hosts" ] && [ -n "$known" ] || usage
[ -f "$known" ] || { echo "nightly: $known: no such known-classes file (metis known add makes one)" >&2; exit 2; }

day=$(date +%Y-%m-%d)
dir=$reports/$day
[ -e "$dir" ] && dir=$reports/$day-$(date +%H%M%S)
mkdir -p "$dir" || exit 2
dir=$(cd "$dir" && pwd)
[ -z "$repros" ] || mkdir -p "$repros" || exit 2

extra=()
[ -z "$seconds" ] || extra=(--seconds "$seconds")
"$metis" swarm "$config" --hosts "$hosts" --known "$known" --keep-going --junit "$dir/junit.xml" \
  --out "$dir/swarm" "${extra[@]}" "$@" >"$dir/swarm.txt" 2>"$dir/swarm.err"
rc=$?

# Tonight's new classes keep their reproducers, named by signature, for later nights' recheck.
if [ -n "$repros" ] && [ -f "$dir/swarm/summary.json" ]; then
  python3 - "$dir/swarm/summary.json" "$repros" <<'PY'
import json, os, re, shutil, sys
s = json.load(open(sys.argv[1]))
for c in s.get("classes", []):
    first = c.get("first", {})
    src = os.path.join(first.get("run_dir", ""), os.path.dirname(first.get("repro", "")))
    dst = os.path.join(sys.argv[2], re.sub(r"[^A-Za-z0-9.-]+", "_", c["signature"]))
    if not c.get("known") and first.get("repro") and os.path.isdir(src) and not os.path.exists(dst):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("repro", "recheck.log"))
PY
fi

# The fixed-since list: every known class's reproducer, run as the target is installed today.
"$replay" recheck "$known" ${repros:+"$repros"} "$dir/swarm" >"$dir/recheck.txt" 2>&1

python3 - "$dir" "$day" "$config" "$rc" <<'PY' | tee "$dir/line.txt"
import json, os, sys
d, day, rc = sys.argv[1], sys.argv[2], sys.argv[4]
config = os.path.splitext(os.path.basename(sys.argv[3]))[0]
try:
    s = json.load(open(os.path.join(d, "swarm", "summary.json")))
except (OSError, ValueError):
    print("metis nightly %s %s: no swarm summary (metis swarm exit %s), see %s/swarm.err" % (day, config, rc, d))
    sys.exit(0)
new = [c["signature"] for c in s.get("classes", []) if not c.get("known")]
fixed = sum(1 for l in open(os.path.join(d, "recheck.txt")) if l.startswith("fixed: "))
hosts = s.get("hosts", [])
used = sum(1 for h in hosts if h.get("state") == "ready" and h.get("collected"))
print("metis nightly %s %s: %d new%s, %d known, %d fixed, %d ops, %d/%d hosts, report %s" % (
    day, config, len(new), " (%s)" % "; ".join(new) if new else "", s.get("known_classes", 0),
    fixed, s.get("totals", {}).get("ops", 0), used, len(hosts),
    os.path.join(d, "swarm", "report.html")))
PY
exit $rc
