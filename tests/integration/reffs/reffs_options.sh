#!/usr/bin/env bash
# Integration test: bad command lines of reffs, reffs-mutant and reffsctl give exit 2 and one line, and leave nothing mounted.
set -eu
. "$(dirname "$0")/../../lib/reffs-mount.sh" opt

# expect_usage_error CMD...: exit 2, exactly one line on stderr, nothing mounted.
expect_usage_error() {
  set +e
  "$@" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$*: exit $rc, want 2 ($(cat "$WORK/err"))"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "$*: want one line on stderr, got: $(cat "$WORK/err")"
  mountpoint -q "$MNT" && fail "$*: left $MNT mounted"
  echo "ok: $* -> $(cat "$WORK/err")"
}

R=$BIN/reffs
expect_usage_error "$R"
expect_usage_error "$R" -f
expect_usage_error "$R" -o capacity=abc "$MNT"
expect_usage_error "$R" -o capacity=0 "$MNT"
expect_usage_error "$R" -o capacity=10X "$MNT"
expect_usage_error "$R" -o capacity=1MB "$MNT"
expect_usage_error "$R" -o capacity=-5 "$MNT"
expect_usage_error "$R" -o capacity=99999999999999999999 "$MNT"
expect_usage_error "$R" -o capacity=17179869184G "$MNT"
expect_usage_error "$R" -o capacity= "$MNT"
expect_usage_error "$R" -o inodes=-1 "$MNT"
expect_usage_error "$R" -o inodes=1.5 "$MNT"
expect_usage_error "$R" -o inodes=10K "$MNT"
expect_usage_error "$R" -o mutation=MUT_RMDIR_NONEMPTY "$MNT"
expect_usage_error "$R" -o no_such_option "$MNT"
expect_usage_error "$R" --bogus "$MNT"
expect_usage_error "$R" "$WORK/does-not-exist"
expect_usage_error "$R" "$MNT" "$WORK/second"
"$R" -h >/dev/null 2>&1 || fail "reffs -h failed"

# Good options are taken: statfs shows them.
"$R" -o capacity=512K,inodes=77 "$MNT"
[ "$(stat -f -c '%b %S %c' "$MNT")" = "128 4096 77" ] || fail "statfs: $(stat -f -c '%b %S %c' "$MNT")"
[ "$(stat -f -c %T "$MNT")" = fuseblk ] || [ "$(stat -f -c %T "$MNT")" = fuse ] || fail "not a fuse mount"
grep -q " $MNT fuse.reffs " /proc/mounts || fail "fsname/subtype not reffs: $(grep " $MNT " /proc/mounts)"
grep " $MNT " /proc/mounts | grep -q default_permissions || fail "default_permissions missing"
fusermount3 -u "$MNT"
mountpoint -q "$MNT" && fail "still mounted after fusermount3 -u"
"$R" -o capacity=2G "$MNT"
[ "$(stat -f -c %b "$MNT")" = 524288 ] || fail "capacity=2G: $(stat -f -c %b "$MNT") blocks"
fusermount3 -u "$MNT"
echo "ok: capacity and inodes reach statfs"

# The mutant build: list, unknown names, and a mount with a mutation.
if [ -x "$BIN/reffs-mutant" ]; then
  M=$BIN/reffs-mutant
  "$M" -o mutation=list >"$WORK/list" || fail "mutation=list failed"
  [ -s "$WORK/list" ] || fail "mutation=list printed nothing"
  first=$(head -n1 "$WORK/list" | cut -f1)
  expect_usage_error "$M" -o mutation=no_such_mutation "$MNT"
  expect_usage_error "$M" -o capacity=x "$MNT"
  "$M" -o "mutation=$first" "$MNT"
  mountpoint -q "$MNT" || fail "reffs-mutant with $first did not mount"
  fusermount3 -u "$MNT"
  second=$(sed -n 2p "$WORK/list" | cut -f1)
  expect_usage_error "$M" -o "mutation=$first+" "$MNT"
  expect_usage_error "$M" -o "mutation=$first+no_such_mutation" "$MNT"
  "$M" -o "mutation=$first+${second#MUT_}" "$MNT"
  mountpoint -q "$MNT" || fail "reffs-mutant with $first+$second did not mount"
  fusermount3 -u "$MNT"
  echo "ok: reffs-mutant lists $(wc -l <"$WORK/list") mutations, mounts with $first, and with two"
else
  skip_part reffs-mutant "$BIN/reffs-mutant is not built"
fi

C=$BIN/reffsctl
expect_usage_error "$C"
expect_usage_error "$C" frobnicate "$MNT"
expect_usage_error "$C" save "$MNT"
expect_usage_error "$C" save "$MNT" -1
expect_usage_error "$C" save "$MNT" 12abc
expect_usage_error "$C" save "$MNT" 18446744073709551616
expect_usage_error "$C" restore "$MNT" " 1"
expect_usage_error "$C" pickle "$MNT" allx "$WORK/p"
expect_usage_error "$C" load --restore "$MNT"
expect_usage_error "$C" stats
# Not a RefFS mount: operation failed, exit 1, one line.
set +e
msg=$("$C" save "$WORK" 1 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && [ "$msg" = "reffsctl: save: $WORK: not a RefFS mount (ENOTTY)" ] || fail "non-RefFS: rc=$rc $msg"
echo "ok: $msg"
echo "PASS reffs_options"
