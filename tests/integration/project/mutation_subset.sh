#!/usr/bin/env bash
# make check's mutation check: 13 RefFS mutations of every kind must be caught by Metis, and plain RefFS must pass the same runs.
. "$(dirname "$0")/../../lib/common.sh"
command -v parallel >/dev/null || { echo "GNU parallel is not installed"; exit 77; }
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
subset=(
  MUT_HOLE_GARBAGE MUT_WRITE_BOUNDARY_BYTE MUT_FALLOC_KEEP_SIZE_GROWS   # data, size
  MUT_WRITE_ENOSPC_NOT_SHORT                                           # data, a full RefFS
  MUT_RMDIR_NONEMPTY MUT_LINK_NLINK_TWICE MUT_NAME_MAX_254             # namespace
  MUT_CHMOD_DROP_STICKY MUT_MKNOD_DROP_SUID                            # metadata
  MUT_XATTR_CREATE_IGNORED MUT_REMOVEXATTR_NOOP                        # xattrs
  MUT_REMOVEXATTR_ENOENT MUT_LOOKUP_EACCES                             # errno only
)
MUT_OUT=$T/mut MUT_OPS=1500 MUT_SEEDS=2 MUT_DSEEDS=1 MUT_JOBS=2 \
  run_grouped "$METIS_ROOT/tests/mutations/run.sh" "${subset[@]}"
rc=$?
[ $rc -eq 0 ] || fail "run.sh exited with $rc"
n=$(grep -c '^  MUT_[A-Z0-9_]* *caught by' "$T/out")
[ "$n" -eq ${#subset[@]} ] || fail "$n of ${#subset[@]} mutations caught"
grep -q '^  baseline .*: ok' "$T/out" || fail "no baseline run reported"
grep -q '^  MUT_[A-Z0-9_]* *general: ' "$T/out" || fail "no general column reported"
grep -q 'general config: [0-9]* of 13 caught' "$T/out" || fail "no general catch rate reported"
! grep -q '^  baseline .*: \(DISCREPANCY\|INFRA\)' "$T/out" || fail "a baseline run failed"
echo PASS
