#!/usr/bin/env bash
# emit-c of a {dir}-backed FUSE target with populate_dir: run.sh makes the initial state in that
# directory before the daemon starts, as Metis does, so a defect of the target's copy-up shows
# (fuse-overlayfs 1.10 brings a removed lower directory back when an opaque one is renamed away).
. "$(dirname "$0")/../../lib/common.sh"
need_tools fuse-overlayfs fusermount3
FAIL_LOG=$T/err
profile=$METIS_ROOT/configs/targets/fuse-overlayfs.ini
cat >"$T/t.trace" <<'TRACE'
metis-trace 1
run seed=1 hash=md5
fs 0 name=overlay type=kernel fstype=overlay size=1048576
fs 1 name=fuse-overlayfs type=fuse fstype=- size=1048576
op 1 unlink path=/d0/f0
op 2 rmdir path=/d0
op 3 mkdir path=/d0 mode=0755
op 4 rename path=/d0 path2=/d1 flags=0x0
end ops=4
TRACE
"$METIS_BIN/metis-replay" emit-c "$T/t.trace" --config "$profile" --fs fuse-overlayfs -o "$T/emit" \
  >"$T/err" 2>&1 || fail "emit-c failed"
grep -q '"$here/repro" "$d_lower" pre' "$T/emit/run.sh" || fail "run.sh does not fill {dir:lower} first"
"$T/emit/run.sh" >"$T/err" 2>&1
rc=$?; [ $rc -eq 1 ] || fail "run.sh on fuse-overlayfs: exit status $rc, want 1"
grep -q '^repro: the defect shows: first difference: tree: /d0: extra' "$T/err" ||
  fail "run.sh: not the resurrected /d0"
"$T/emit/run.sh" overlay >"$T/err" 2>&1
rc=$?; [ $rc -eq 0 ] || fail "run.sh on the kernel overlay: exit status $rc, want 0"
exit 0
