#!/usr/bin/env bash
# The kernel's own trace of the ext4 inline_data finding: which function puts a converted file's bytes in its block, and who writes that block when (the report's "Trace" section).
# usage: tests/findings/kernel/ext4-inline-punch/trace.sh   (root; tracefs, mkfs.ext4, xfs_io, losetup)
# Two runs on a 2-MiB ext4 with -O inline_data and a 12-byte file, under ext4, jbd2 and block
# trace events (stack traces on the block ones) in a tracefs instance of its own, filtered on
# its loop device: warm (`fpunch 2 5` and fsync, then unmount) and cold (remount,
# `falloc -k 0 256`, read, unmount). Prints the excerpts; exits 0 when the trace shows the
# path the report states (the block mapped under ext4_convert_inline_data_nolock; the commit
# dirtying the block device's buffer of that block; warm: fsync writing the block, then the
# unmount writing it again; cold: the read of the block before anything wrote it), 1 when it
# does not, 77 when root, tracefs or a tool is missing.
set -u
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
for t in mkfs.ext4 xfs_io losetup; do
  command -v $t > /dev/null || { echo "skip: needs $t"; exit 77; }
done
top=/sys/kernel/tracing
[ -d $top/instances ] || { echo "skip: needs tracefs at $top"; exit 77; }
inst=$top/instances/metis-inline-$$
work=$(mktemp -d /dev/shm/ext4-inline-trace.XXXXXX)
loop=""
EVENTS="ext4/ext4_ext_map_blocks_exit ext4/ext4_punch_hole ext4/ext4_fallocate_enter
  ext4/ext4_sync_file_enter block/block_dirty_buffer block/block_bio_queue jbd2/jbd2_start_commit
  jbd2/jbd2_end_commit"
STACKED="ext4/ext4_ext_map_blocks_exit block/block_dirty_buffer block/block_bio_queue"
cleanup() {
  mountpoint -q "$work/mnt" && umount "$work/mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  [ -d "$inst" ] && rmdir "$inst"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir "$work/mnt" "$inst" || { echo "skip: cannot make a tracefs instance"; exit 77; }

# arm DEV: the events on, filtered on DEV (tracefs's dev_t), stack traces where they say who
arm() {
  local e
  for e in $EVENTS; do
    echo "dev == $1" > "$inst/events/$e/filter" && echo 1 > "$inst/events/$e/enable" || return 1
  done
  for e in $STACKED; do echo "stacktrace if dev == $1" > "$inst/events/$e/trigger" || return 1; done
  echo 1 > "$inst/tracing_on"
}

# disarm DEV: everything off again, the trace kept in $work/trace
disarm() {
  local e
  echo 0 > "$inst/tracing_on"
  for e in $STACKED; do echo "!stacktrace if dev == $1" > "$inst/events/$e/trigger"; done
  for e in $EVENTS; do echo 0 > "$inst/events/$e/enable"; done
  grep -v '^#' "$inst/trace" > "$work/trace"; echo > "$inst/trace"
}

# one KIND: the fs made and /f written; the traced op; prints the trace's excerpt
one() {
  local kind=$1 maj min dev
  truncate -s 2M "$work/img" && mkfs.ext4 -q -F -O inline_data "$work/img" || return 2
  loop=$(losetup -f --show "$work/img") && mount "$loop" "$work/mnt" || return 2
  printf ABCDEFGHIJKL > "$work/mnt/f" && sync
  [ "$kind" = cold ] && { umount "$work/mnt" && mount "$loop" "$work/mnt" || return 2; }
  read -r maj min < <(stat -c '%t %T' "$loop")
  dev=$(( (0x$maj << 20) | 0x$min ))
  arm $dev || { disarm $dev; return 3; }
  echo "== $kind" > "$inst/trace_marker"
  if [ "$kind" = warm ]; then
    xfs_io -c "fpunch 2 5" -c fsync "$work/mnt/f"
  else
    xfs_io -c "falloc -k 0 256" "$work/mnt/f"
    head -c 12 "$work/mnt/f" > /dev/null
  fi
  umount "$work/mnt"
  disarm $dev
  losetup -d "$loop"; loop=""; rm -f "$work/img"
  # the events and the frames that name ext4's and jbd2's functions and the unmount
  grep -E ': (ext4_|jbd2_|block_)|=> (ext4_convert_inline_data_nolock|ext4_fallocate|ext4_block_zero_page_range|ext4_writepages|ext4_mpage_readpages|__jbd2_journal_refile_buffer|generic_shutdown_super|jbd2_journal_commit_transaction)$' \
    "$work/trace" > "$work/$kind"
}

# has KIND PATTERN...: whether the excerpt holds the lines, in that order
has() {
  local kind=$1; shift
  awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) p[i] = ARGV[i]; ARGC = 1; k = 1 }
    k <= n && $0 ~ p[k] { k++ } END { exit (k <= n) }' "$@" < "$work/$kind"
}

holds=1
for kind in warm cold; do
  one $kind; rc=$?
  [ $rc = 2 ] && { echo "setup failed"; exit 1; }
  [ $rc = 3 ] && { echo "skip: the trace events cannot be armed here"; exit 77; }
  echo "--- $kind"; grep -v 'WSM [0-9]* + 2 \[jbd2' "$work/$kind" | cut -c1-150
done
blk=$(awk '/ext4_ext_map_blocks_exit/ && /flags CREATE/ { for (i = 1; i <= NF; i++) if ($i == "pblk") print $(i + 1); exit }' "$work/warm")
[ -n "$blk" ] || { echo "no block allocated under the conversion"; exit 1; }
sec=$((blk * 2))
has warm "flags CREATE lblk 0 pblk $blk" "=> ext4_convert_inline_data_nolock" "=> ext4_fallocate" \
  "ext4_sync_file_enter" "block_bio_queue: .* W[A-Z]* $sec \\+ 2" "=> ext4_writepages" \
  "block_dirty_buffer: .* sector=$blk " "=> __jbd2_journal_refile_buffer" \
  "block_bio_queue: .* W[A-Z]* $sec \\+ 2 \\[umount\\]" "=> generic_shutdown_super" ||
  { echo "warm: the trace does not show fsync writing block $blk and the unmount writing it again"; holds=0; }
has cold "flags CREATE lblk 0 pblk $blk" "=> ext4_convert_inline_data_nolock" \
  "block_bio_queue: .* R[A-Z]* $sec \\+ 2" "block_dirty_buffer: .* sector=$blk " \
  "=> __jbd2_journal_refile_buffer" "block_bio_queue: .* W[A-Z]* $sec \\+ 2 \\[umount\\]" ||
  { echo "cold: the trace does not show the read of block $blk before its first write"; holds=0; }
[ $holds = 1 ] && { echo "holds: the conversion maps block $blk and journals it as metadata; warm, fsync writes the zeros and the unmount writes the older copy over them; cold, the read comes before any write"; exit 0; }
echo "does not hold"; exit 1
