#!/usr/bin/env bash
# `unsupported`: ext2 refusing fallocate modes ext4 has is no discrepancy once listed (ext4 skips them, reach.txt shows both), nor for a FUSE fs that restores by replaying, and one without the list.
. "$(dirname "$0")/../../lib/common.sh"
for m in mkfs.ext2 mkfs.ext4; do
  PATH=$PATH:/sbin:/usr/sbin command -v $m >/dev/null || { echo "skip: no $m"; exit 77; }
done
# Mostly fallocate over written files; a 1 KiB unit, so aligned ranges are whole ext4 blocks.
config() {
  cat <<INI
[run]
max_depth = 10
ops = ${OPS:-1500}

[fs ext2]
type = kernel
fstype = ext2
size = 256K
$1

[fs ext4]
type = kernel
fstype = ext4
size = 256K

[pool]
dirs = 0
files = 2
depth = 0
xattr_names = 0

[ops]
create_file = 2
write_file = 3
fallocate_file = 6
chmod = 0
chown_file = 0
chgrp_file = 0
mkdir = 0
rmdir = 0
rename = 0
link = 0
symlink = 0
setxattr = 0
removexattr = 0
mknod = 0
copy_range = 0
open_unlink = 0

[sizes]
write_size = uniform:12
write_offset = uniform:12
falloc_offset = uniform:12
falloc_len = uniform:12
falloc_align = 1024:0.5
INI
}
config 'unsupported = allocate,keep_size,zero_range,zero_range_keep,collapse,insert' >"$T/listed.ini"
"$METIS_BIN/metis" run "$T/listed.ini" --seed 3 --out "$T/listed" >"$T/listed.out" 2>&1
rc=$?
[ $rc = 0 ] || { tail "$T/listed.out"; fail "listed: metis run exited $rc, want 0"; }
assert_no_leftovers "$(run_id_of "$T/listed.out")"
python3 - "$T/listed/summary.json" <<'PY' || fail "the reach table does not show the refusals and skips"
import json, sys
reach = json.load(open(sys.argv[1]))['reach']
problems = []
for mode in ('allocate', 'keep_size', 'zero_range', 'zero_range_keep', 'collapse', 'insert'):
    r = reach.get(f'fallocate_file/{mode}')
    if not r:
        problems.append(f'{mode}: no row')
        continue
    ext2, ext4 = r['fs']['ext2'], r['fs']['ext4']
    if not ext2['errors'].get('EOPNOTSUPP'):
        problems.append(f'{mode}: ext2 never refused it')
    if ext4['skipped'] != ext2['errors'].get('EOPNOTSUPP', 0):
        problems.append(f'{mode}: ext4 skipped it {ext4["skipped"]} times, ext2 refused it '
                        f'{ext2["errors"].get("EOPNOTSUPP", 0)} times')
    if ext4['ok']:
        problems.append(f'{mode}: ext4 ran it ({ext4["ok"]} successes)')
punch = reach['fallocate_file/punch_hole']
if not (punch['fs']['ext2']['ok'] and punch['fs']['ext4']['ok'] and not punch['fs']['ext4']['skipped']):
    problems.append(f'punch_hole, not listed, was not run and compared on both: {punch["fs"]}')
for p in problems:
    print('FAIL:', p)
sys.exit(1 if problems else 0)
PY
grep -q '^fallocate_file/collapse .* skipped=' "$T/listed/reach.txt" || fail "reach.txt shows no skips"

# A FUSE RefFS without an image restores by replaying the search path, and skipped steps must
# not come back there (mode 0 would extend a file that ext2 left as it was). A refused step
# leaves every state as it was, so SPIN never goes on from it; step.c drops it from the
# history all the same.
sed -e '/^\[fs ext4\]/,/^$/d' -e 's/^ops = .*/ops = 800/' "$T/listed.ini" >"$T/replay.ini"
printf '[fs fuse]\ntype = fuse\nmount_cmd = {bin}/reffs -o capacity=256K {mnt}\n\n[bits]\nfalloc_mode = allocate:1 keep_size:1\n' >>"$T/replay.ini"
"$METIS_BIN/metis" run "$T/replay.ini" --seed 5 --out "$T/replay" >"$T/replay.out" 2>&1
rc=$?
[ $rc = 0 ] || { tail "$T/replay.out"; fail "replay: metis run exited $rc, want 0"; }
[ "$(json_field "$T/replay/summary.json" restores)" -gt 0 ] || fail "replay: no restore happened"
grep -q '^fallocate_file/allocate .* skipped=' "$T/replay/reach.txt" || fail "replay: no allocation was skipped"
assert_no_leftovers "$(run_id_of "$T/replay.out")"

# A file system that does support what it lists, before one that refuses it: it has run the
# operation by the time the other refuses, and must be taken back to the state before it
# (else its changed state is a discrepancy against the refusal's unchanged one).
LIST='unsupported = allocate,keep_size,zero_range,zero_range_keep,collapse,insert'
python3 - "$T/listed.ini" "$LIST" >"$T/first.ini" <<'PY'
import re, sys
text, listed = open(sys.argv[1]).read(), sys.argv[2]
ext2 = re.search(r"\[fs ext2\].*?\n\n", text, re.S).group(0)
ext4 = re.search(r"\[fs ext4\].*?\n\n", text, re.S).group(0)
print(text.replace(ext2, "\0").replace(ext4, ext2).replace("\0", ext4.rstrip("\n") + "\n" + listed + "\n\n"), end="")
PY
grep -A5 '^\[fs ext4\]' "$T/first.ini" | grep -q '^unsupported' || fail "first.ini: ext4 does not list the modes"
"$METIS_BIN/metis" run "$T/first.ini" --seed 3 --out "$T/first" >"$T/first.out" 2>&1
rc=$?
[ $rc = 0 ] || { tail "$T/first.out"; fail "supporting fs first: metis run exited $rc, want 0"; }
grep -q '^fallocate_file/zero_range .* skipped=' "$T/first/reach.txt" || fail "supporting fs first: no skips"
assert_no_leftovers "$(run_id_of "$T/first.out")"

# The same with RefFS (which saves a state only once a step goes on from it) as the one that
# supports ZERO_RANGE, before ext2, which refuses it: RefFS goes back to a state it saved lazily.
python3 - "$T/listed.ini" >"$T/lazy.ini" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ext4 = re.search(r"\[fs ext4\].*?\n\n", text, re.S).group(0)
ext2 = re.search(r"\[fs ext2\].*?\n\n", text, re.S).group(0)
ref = "[fs ref]\ntype = reffs\nsize = 256K\nunsupported = zero_range,zero_range_keep\n\n"
text = text.replace(ext2, "\0").replace(ext4, "").replace("\0", ref + ext2.replace(
    "unsupported = allocate,keep_size,zero_range,zero_range_keep,collapse,insert",
    "unsupported = zero_range,zero_range_keep"))
print(text.replace("[bits]", "[bits]"), end="")
PY
printf '[bits]\nfalloc_mode = allocate:0 keep_size:0 punch_hole:1 zero_range:3 zero_range_keep:3 collapse:0 insert:0\n' >>"$T/lazy.ini"
"$METIS_BIN/metis" run "$T/lazy.ini" --seed 4 --out "$T/lazy" >"$T/lazy.out" 2>&1
rc=$?
[ $rc = 0 ] || { tail "$T/lazy.out"; fail "RefFS first: metis run exited $rc, want 0"; }
grep -q '^fallocate_file/zero_range .* skipped=' "$T/lazy/reach.txt" || fail "RefFS first: no skips"
assert_no_leftovers "$(run_id_of "$T/lazy.out")"

config '' >"$T/unlisted.ini"
OPS=3000 "$METIS_BIN/metis" run "$T/unlisted.ini" --seed 3 --out "$T/unlisted" >"$T/unlisted.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "unlisted: metis run exited $rc, want 1 (ext2's EOPNOTSUPP is a discrepancy)"
grep -q 'errno=EOPNOTSUPP' "$T/unlisted/discrepancy-1.txt" || fail "unlisted: the discrepancy is not ext2's refusal"
assert_no_leftovers "$(run_id_of "$T/unlisted.out")"
echo PASS
