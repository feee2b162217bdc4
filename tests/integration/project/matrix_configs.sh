#!/usr/bin/env bash
# Every feature-matrix config (configs/matrix/*.ini) names its features and why in its header, is in configs/matrix/README.md's table, mounts and runs a few operations clean; an option the kernel refuses fails the run in one line.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 mkfs.xfs mkfs.btrfs losetup
for fs in ext4 xfs btrfs; do kernel_has_fs $fs || skip "kernel has no $fs"; done
OPS=${MATRIX_OPS:-8}
configs=(configs/matrix/*.ini)
[ ${#configs[@]} -ge 12 ] || fail "only ${#configs[@]} matrix configs"

for ini in "${configs[@]}"; do
  name=$(basename "$ini")
  grep -q '^; Why: ' "$ini" || fail "$name: its header does not say why (a '; Why: ' line)"
  grep -qF "\`$name\`" configs/matrix/README.md || fail "configs/matrix/README.md's table does not name $name"
done

# Each config's sections: the reference [fs] section (the first) and the rest, its feature's.
ref_section() { awk '/^\[/ { infs = /^\[fs /; n += infs } infs && n == 1' "$1"; }
feature_sections() { awk '/^\[/ { infs = /^\[fs /; n += infs } infs && n >= 2' "$1"; }

# Configs with the same reference run as one: the first config whole, the others' feature file
# systems added to it (a pan is built per run, most of a short run's time on a loaded host).
declare -A group
for ini in "${configs[@]}"; do
  key=$(ref_section "$ini" | md5sum | cut -c1-8)
  group[$key]="${group[$key]:-} $ini"
done

# run_group NAME INI...: OPS operations of the merged configs; fails unless the run is clean,
# did them all, compared every fs and left nothing behind.
run_group() {
  local name=$1 first=$2 rc ini nfs fs
  shift 2
  { cat "$first"; for ini in "$@"; do echo; feature_sections "$ini"; done; } > "$T/$name.ini"
  nfs=$(grep -c '^\[fs ' "$T/$name.ini")
  "$METIS_BIN/metis" run "$T/$name.ini" --out "$T/$name" --ops "$OPS" --seconds 0 2> "$T/$name.err"
  rc=$?
  assert_no_leftovers "$(run_id_of "$T/$name.err")"
  FAIL_LOG=$T/$name.err
  [ $rc = 0 ] || fail "$name ($first $*): exit $rc, want 0"
  [ "$(json_field "$T/$name/summary.json" ops)" = "$OPS" ] || fail "$name: not $OPS operations"
  for fs in $(sed -n 's/^\[fs \(.*\)\]$/\1/p' "$T/$name.ini"); do
    grep -q "^res [0-9]* $fs " "$T/$name/log.txt" || fail "$name: $fs answered no operation"
  done
  echo "$name: $nfs file systems ($(basename "$first") $(for ini in "$@"; do basename "$ini"; done | tr '\n' ' ')), $OPS operations, clean"
}

# refused_run: space_cache=v1 on a btrfs made with its free-space tree (mkfs's default) is
# refused by the kernel ("cannot disable free-space-tree"): the options reach mkfs and mount,
# and the run says so in one line and leaves nothing.
refused_run() {
  local rc
  sed 's/^mkfs_opts = -M -R ^free-space-tree$/mkfs_opts = -M/' configs/matrix/btrfs-space-cache-v1.ini > "$T/refused.ini"
  ! cmp -s "$T/refused.ini" configs/matrix/btrfs-space-cache-v1.ini || fail "the v1 config no longer makes its fs without the tree"
  "$METIS_BIN/metis" run "$T/refused.ini" --out "$T/refused" --ops "$OPS" 2> "$T/refused.err"
  rc=$?
  assert_no_leftovers "$(run_id_of "$T/refused.err")"
  [ $rc != 0 ] || fail "a btrfs with its free-space tree mounted space_cache=v1: exit 0"
  grep -q 'mount' "$T/refused.err" || { cat "$T/refused.err"; fail "the refusal does not name the mount"; }
  echo "refused: $(grep -m1 mount "$T/refused.err")"
}

# All at once: each run spends most of its time building its pan and making its file systems,
# waiting on a loaded host's CPU more than using it.
pids=()
for key in "${!group[@]}"; do
  # shellcheck disable=SC2086
  run_group "group-$key" ${group[$key]} & pids+=($!)
done
refused_run & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || exit 1; done
echo PASS
