#!/usr/bin/env bash
# Set-up that checks itself: a target whose root keeps mode 0700 and answers a chmod of it with success (a planted RefFS mutant, as cryfs does) is read back after the set-up's chmod; the run says the root was kept and gives the reference the target's root instead of claiming it set it, and 300 operations then find no difference.
. "$(dirname "$0")/../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
cat >"$T/root.ini" <<'INI'
[fs ref]
type = reffs
size = 256K

[fs kept]
type = reffs
size = 256K
reffs_opts = mutation=MUT_ROOT_KEEPS_0700
INI
run_mutant "$T/root.ini" 1 --ops 300
rc=$?
[ $rc -eq 0 ] || fail "metis run exited with $rc, not 0"
grep -q "kept: its root kept mode 0700 and owner 0:0 after it was set to the reference's 0755 0:0 (the fs ignores it): the reference's root gets the fs's instead" "$T/out" ||
  fail "the run did not say that the target kept its root"
! grep -q "kept: root set to the reference's" "$T/out" || fail "the run claimed it set the root"
assert_no_leftovers "$(run_id_of "$T/out")"
echo PASS
