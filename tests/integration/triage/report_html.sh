#!/usr/bin/env bash
# report.html of runs and swarms renders offline in headless Chromium with plots and the diff.
. "$(dirname "$0")/../../lib/common.sh"
command -v chromium >/dev/null || { echo "chromium is missing (scripts/deps.sh installs it)"; exit 77; }
SHOTS=${REPORT_SHOTS:-/tmp/metis-report-shots}
mkdir -p "$SHOTS"
MAX_BYTES=$((2 * 1024 * 1024))

# Renders $1 (a report.html) to $SHOTS/$2.png and its DOM to $T/$2.dom; any blocked request
# shows up as a console message in $T/$2.log.
render() {
  local page=$1 name=$2 flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars)
  timeout 120 chromium "${flags[@]}" --user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" \
    --window-size=1280,2000 --screenshot="$SHOTS/$name.png" "file://$page" >/dev/null 2>&1 ||
    fail "$name: chromium could not take the screenshot"
  [ -s "$SHOTS/$name.png" ] || fail "$name: empty screenshot"
  timeout 120 chromium "${flags[@]}" --user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" \
    --enable-logging=stderr --v=0 --dump-dom "file://$page" >"$T/$name.dom" 2>"$T/$name.log" ||
    fail "$name: chromium could not load the page"
  grep -q '</html>' "$T/$name.dom" || fail "$name: no DOM dumped"
  if grep -E 'CONSOLE|Content Security Policy' "$T/$name.log"; then
    fail "$name: the page tried to load something"
  fi
}

count() { grep -o -- "$1" "$2" | wc -l; }

# Self-contained: a policy that blocks every request, and no link or source leaving the directory.
assert_offline() {
  local page=$1
  grep -q "default-src 'none'" "$page" || fail "$page: no Content-Security-Policy"
  if grep -Eio '(src|href)="(https?:|//|/|file:)[^"]*"' "$page"; then
    fail "$page: references an external resource"
  fi
  if grep -Eio '<(script|link|iframe|object|embed)[ >]' "$page"; then
    fail "$page: has an element that loads something"
  fi
  [ "$(stat -c %s "$page")" -lt $MAX_BYTES ] || fail "$page: larger than 2 MB"
}

# A short real run: its report comes from metis run itself, plots from the log.
"$METIS_BIN/metis" run configs/ref-vs-ext4.ini --seconds 6 --out "$T/run" 2>"$T/run.err" ||
  { cat "$T/run.err"; fail "the short run failed"; }
[ -f "$T/run/report.html" ] || fail "metis run wrote no report.html"
assert_offline "$T/run/report.html"
render "$T/run/report.html" run
[ "$(count 'class="pt"' "$T/run.dom")" -ge 10 ] || fail "run: the states plot has no data points"
[ "$(count 'class="seg"' "$T/run.dom")" -ge 10 ] || fail "run: no reach bars"
[ "$(count 'class="bar drawn"' "$T/run.dom")" -ge 10 ] || fail "run: no coverage bars"
grep -q '<polyline class="series"' "$T/run.dom" || fail "run: no plotted series"
grep -q 'No discrepancy' "$T/run.dom" || fail "run: does not say there is no discrepancy"

# The same run with a 10-minute samples.csv: time plots, thinned, and the page stays small.
cp -r "$T/run" "$T/sampled"
awk 'BEGIN { print "t,ops,states,matched,restores,discrepancies"; ops = 0; st = 1;
             for (t = 0; t <= 600; t++) {
               ops += int(600 + 100 * sin(t / 40)); st += int(150 * exp(-t / 200));
               printf "%d.007,%d,%d,%d,%d,0\n", t, ops, st, ops - st, ops - st } }' \
  > "$T/sampled/samples.csv"
"$METIS_BIN/metis" report "$T/sampled" || fail "metis report failed on a run directory"
assert_offline "$T/sampled/report.html"
render "$T/sampled/report.html" sampled
pts=$(count 'class="pt"' "$T/sampled.dom")
[ "$pts" -ge 600 ] && [ "$pts" -le 900 ] || fail "sampled: $pts data points, want 3 plots of 200-300"
grep -q 'operations per second</figcaption>' "$T/sampled.dom" || fail "sampled: no ops/s plot"

# A run with a discrepancy: the diverging operation's path is highlighted in the tree diff.
"$METIS_BIN/metis" run tests/fixtures/defects/defective.ini --out "$T/disc" 2>"$T/disc.err"
[ $? -eq 1 ] || { cat "$T/disc.err"; fail "the defective run did not report its discrepancy"; }
assert_offline "$T/disc/report.html"
render "$T/disc/report.html" discrepancy
seq=$(sed -n 's/^discrepancy \([0-9]*\) fs=bad .*/\1/p' "$T/disc/log.txt" | head -n1)
path=$(sed -n "s/^op $seq .* rmdir path=\([^ ]*\).*/\1/p" "$T/disc/log.txt")
[ -n "$path" ] || fail "no rmdir found for discrepancy $seq"
grep -q "<tr class=\"diff\"><td>$path</td>" "$T/discrepancy.dom" ||
  fail "discrepancy: the removed directory $path is not a highlighted row"
grep -q '<td class="attr-diff' "$T/discrepancy.dom" || fail "discrepancy: no differing attribute"
grep -q "operation $seq: rmdir" "$T/discrepancy.dom" || fail "discrepancy: operation not named"
grep -q 'href="discrepancy-1.txt"' "$T/discrepancy.dom" || fail "discrepancy: no link to the detail"

# metis report: one line and exit 2 on a directory that is neither a run nor a swarm.
mkdir "$T/empty"
"$METIS_BIN/metis" report "$T/empty" 2>"$T/empty.err"
rc=$?
[ $rc -eq 2 ] || fail "metis report on an empty directory: exit $rc, want 2"
[ "$(wc -l < "$T/empty.err")" -eq 1 ] || fail "metis report: not one line of error"

# A local swarm (no SSH): the swarm's report has a row per VT and links to the VTs' reports.
if command -v parallel >/dev/null; then
  printf '2/:\n' > "$T/hosts"
  "$METIS_BIN/metis" swarm tests/fixtures/defects/defective.ini --hosts "$T/hosts" --vts 2 --seconds 5 \
    --out "$T/swarm" >"$T/swarm.out" 2>&1
  [ -f "$T/swarm/report.html" ] || { cat "$T/swarm.out"; fail "the swarm wrote no report.html"; }
  assert_offline "$T/swarm/report.html"
  render "$T/swarm/report.html" swarm
  [ "$(count 'href="vt-[0-9]*/report.html"' "$T/swarm.dom")" -eq 2 ] || fail "swarm: not 2 VT rows"
  [ -f "$T/swarm/vt-1/report.html" ] || fail "swarm: VT 1 has no report.html"
  grep -q '<tr class="diff">' "$T/swarm.dom" || fail "swarm: no discrepancy shown"
  grep -qE 'first found by VT [01] after [0-9.]+ s \(shape [a-z0-9]+\)' "$T/swarm.dom" ||
    fail "swarm: a class does not name the VT that found it first"
else
  skip_part swarm "GNU parallel is not installed: the swarm's report"
fi
echo "PASS: reports render offline; screenshots in $SHOTS"
