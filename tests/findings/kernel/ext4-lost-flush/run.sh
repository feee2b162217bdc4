#!/usr/bin/env bash
# Traces the shipped ext4 lost-write reproducer (tests/faults/faults-ext4/jbd2-tail) with kernel trace events, to show which flush failed, who dropped its error and what moved the journal tail after it; prints the excerpt.
# usage: tests/findings/kernel/ext4-lost-flush/run.sh   (root, tracefs, Metis built: bin/metis-replay)
# Events only (block, ext4_sync_fs, jbd2), with stack traces on flush bios, ext4_sync_fs and
# jbd2_update_log_tail: needs no function_graph tracer or kprobes. Exit 0 when the trace shows
# the failed flush issued by ext4_sync_fs under generic_shutdown_super, then a flush that
# succeeded in jbd2_cleanup_journal_tail and the tail update after it; 1 otherwise; 77 when
# tracefs, root or the tools are missing.
set -u
top=$(cd "$(dirname "$0")/../../../.." && pwd)
bin=${METIS_BIN:-$top/bin}
tracefs=/sys/kernel/tracing
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
[ -x "$bin/metis-replay" ] || { echo "skip: $bin/metis-replay not built (make)"; exit 77; }
command -v mkfs.ext4 >/dev/null && command -v cc >/dev/null || { echo "skip: needs mkfs.ext4 and cc"; exit 77; }
[ -e $tracefs/events/block/block_bio_queue ] || mount -t tracefs nodev $tracefs 2>/dev/null
[ -w $tracefs/events/block/block_bio_queue/enable ] || { echo "skip: no tracefs events"; exit 77; }
w=$(mktemp -d /tmp/metis-finding.XXXXXX)
# A trace instance of its own (its buffer, events and triggers): make check runs beside other
# tests, nightly runs and perhaps another copy of this runner, whose block events would crowd
# the global buffer and whose tracing switches would be ours.
tr=$tracefs/instances/metis-finding-${w##*.}
mkdir "$tr" || { rm -rf "$w"; echo "skip: cannot make a trace instance"; exit 77; }
events="ext4/ext4_sync_fs jbd2/jbd2_update_log_tail jbd2/jbd2_checkpoint jbd2/jbd2_start_commit
  jbd2/jbd2_end_commit block/block_rq_issue block/block_rq_complete block/block_bio_queue"
triggers=("block/block_bio_queue|stacktrace if rwbs ~ \"F*\"" "jbd2/jbd2_update_log_tail|stacktrace"
  "ext4/ext4_sync_fs|stacktrace")
off() {
  local t
  echo 0 > $tr/tracing_on
  for t in "${triggers[@]}"; do echo "!${t#*|}" > "$tr/events/${t%%|*}/trigger" 2>/dev/null; done
  for t in $events; do echo 0 > "$tr/events/$t/enable"; done
  rmdir "$tr"
  rm -rf "$w"
}
trap off EXIT
"$bin/metis-replay" emit-c "$top/tests/faults/faults-ext4/jbd2-tail/trace" \
  --config "$top/configs/faults-ext4.ini" -o "$w/repro" >"$w/emit.log" 2>&1 || { cat "$w/emit.log"; exit 1; }
echo 0 > $tr/tracing_on; echo > $tr/trace; echo 8192 > $tr/buffer_size_kb
for t in $events; do echo 1 > "$tr/events/$t/enable"; done
for t in "${triggers[@]}"; do echo "${t#*|}" > "$tr/events/${t%%|*}/trigger"; done
echo 1 > $tr/tracing_on
(cd "$w" && REPRO_TMP=$w METIS_FAULTDEV=$bin/metis-faultdev "$w/repro/run.sh" >"$w/run.log" 2>&1)
rc=$?
echo 0 > $tr/tracing_on
cp $tr/trace "$w/trace.txt"
echo "reproducer: exit $rc: $(grep -m1 '^repro: ' "$w/run.log")"
grep '^the faulty device saw' "$w/run.log"
# The faulty device is the one the reproducer synced: under make check another test's faulty
# device may fail flushes in the same seconds (the first failed flush once named one).
dev=$(sed -n 's/^ *repro-[0-9]* .*ext4_sync_fs: dev \([0-9]*,[0-9]*\) .*/\1/p' "$w/trace.txt" | head -1)
[ -n "$dev" ] || { echo "the reproducer synced no ext4 in the trace"; exit 1; }
grep -q "block_rq_complete: $dev FF .*\[-5\]$" "$w/trace.txt" || { echo "no flush of $dev failed in the trace"; exit 1; }
# From the syncfs of the fault step (the reproducer's last ext4_sync_fs before the unmount)
# to the journal's superblock write after the tail moved: that device's lines and the stacks
# of its flush bios, ext4_sync_fs calls and tail update, without the tracer's own frames.
awk -v dev="$dev" '
  /<stack trace>/ { keep_stack = last_kept; next }
  /^ => / { if (keep_stack && $2 !~ /^trace_event_raw|^submit_bio_noacct_nocheck|^entry_SYSCALL|^do_syscall_64|^exit_to_user_mode|^task_work_run/) print "      " $0; next }
  { last_kept = 0; keep_stack = 0 }
  index($0, " " dev " ") || index($0, "dev " dev " ") {
    sub(/^ +/, ""); sub(/ +\[[0-9]+\] [.a-zA-Z0-9]+ +/, " ");
    print; last_kept = 1
  }' "$w/trace.txt" | sed -n '/repro.*ext4_sync_fs/,$p' > "$w/excerpt.txt"
cat "$w/excerpt.txt"
ok=1
# the failed flush: issued by ext4_sync_fs under generic_shutdown_super's sync_filesystem
grep -A12 'umount.*block_bio_queue.* FWS 0 + 0' "$w/excerpt.txt" | head -12 | grep -q 'generic_shutdown_super' || ok=0
awk '/umount.*block_bio_queue.* FWS 0 \+ 0/ { q = 1 } q && /block_rq_complete: .* FF .*\[-5\]/ { print; exit }' "$w/excerpt.txt" | grep -q . || ok=0
# then jbd2_cleanup_journal_tail's flush succeeded and the tail moved
grep -B2 -A12 'block_bio_queue' "$w/excerpt.txt" | grep -q 'jbd2_cleanup_journal_tail' || ok=0
grep -q 'jbd2_update_log_tail' "$w/excerpt.txt" || ok=0
[ $rc -eq 1 ] && [ $ok -eq 1 ] && { echo "trace: as the finding says"; exit 0; }
echo "trace: not as the finding says"; exit 1
