#!/usr/bin/env bash
# Every manual page renders without a groff warning, reads with man -l, has a NAME line for whatis, names every option its program's --help prints, and is installed.
. "$(dirname "$0")/../../lib/common.sh"
for tool in groff man lexgrog; do
  command -v $tool >/dev/null || { echo "skip: $tool missing (scripts/deps.sh installs groff-base, man-db)"; exit 77; }
done

pages=(man/metis.1 man/metis-replay.1 man/metis.ini.5 man/reffs.8 man/reffsctl.8)
for p in "${pages[@]}"; do
  [ -f "$p" ] || fail "$p is missing"
done
for p in man/*; do
  head -n1 "$p" | grep -q '^\.\\" [^ ].*' || fail "$p: the first line is not a .\\\" comment saying what it is"
  # -ww: every warning; -z: format, print nothing. Anything on stdout or stderr is a problem.
  out=$(groff -man -ww -z "$p" 2>&1) || fail "$p: groff failed: $out"
  [ -z "$out" ] || fail "$p: groff warns: $out"
  LC_ALL=C MANWIDTH=80 MANPAGER=cat PAGER=cat man -l "$p" >"$T/page" 2>"$T/err" || fail "$p: man -l failed: $(cat "$T/err")"
  [ -s "$T/err" ] && fail "$p: man -l complains: $(cat "$T/err")"
  grep -q '^NAME' "$T/page" && grep -q '^SYNOPSIS' "$T/page" || fail "$p: no NAME or SYNOPSIS section"
  lexgrog "$p" >/dev/null 2>&1 || fail "$p: man-db cannot read its NAME line (lexgrog)"
done

# Every long option a program's help prints appears in its page (roff writes - as \-).
options_in_page() {  # PAGE HELP-TEXT-FILE
  local page=$1 help=$2 o
  sed 's/\\-/-/g' "$page" >"$T/plain"
  for o in $(grep -o -- '--[a-z][a-z-]*' "$help" | sort -u); do
    grep -q -- "$o\b" "$T/plain" || fail "$page does not mention $o (from: ${help##*/})"
  done
}
"$METIS_BIN/metis" --help >"$T/metis-help"
options_in_page man/metis.1 "$T/metis-help"
for c in run check swarm known clean; do
  "$METIS_BIN/metis" $c --help >"$T/metis-$c" || fail "metis $c --help failed"
  options_in_page man/metis.1 "$T/metis-$c"
done
for c in trace check run repro shrink emit-c record recheck; do
  "$METIS_BIN/metis-replay" $c --help >"$T/replay-$c" || fail "metis-replay $c --help failed"
  options_in_page man/metis-replay.1 "$T/replay-$c"
  grep -q "^\.B $(sed 's/-/\\\\-/g' <<<"$c")\$" man/metis-replay.1 || fail "man/metis-replay.1 has no entry for $c"
done
"$METIS_BIN/reffsctl" --help >"$T/reffsctl-help"
options_in_page man/reffsctl.8 "$T/reffsctl-help"
# reffs -h ends with libfuse's own options: only RefFS's are documented one by one.
"$METIS_BIN/reffs-mutant" -h 2>&1 | sed -n '/^RefFS options/,/^unmount/p' | grep -o -- '-o [a-z]*=\?' >"$T/reffs-opts"
[ -s "$T/reffs-opts" ] || fail "reffs-mutant -h lists no RefFS options"
while read -r o; do
  grep -q -- "${o/-o /\\\\-o }" man/reffs.8 || fail "man/reffs.8 does not document $o"
done <"$T/reffs-opts"

# make install puts each page in the man section its name ends with (-n: shown, not done; the
# outer make's flags, as under make check, are not this one's).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -n install DESTDIR="$T/inst" PREFIX=/usr >"$T/install" 2>&1 || fail "make -n install failed: $(tail -n3 "$T/install")"
for s in 1 5 8; do
  grep -q -- "man/\*\.$s $T/inst/usr/share/man/man$s/" "$T/install" ||
    fail "make install does not put man/*.$s in \$(DESTDIR)\$(PREFIX)/share/man/man$s"
done
echo "PASS"
