#!/usr/bin/env bash
# metis-replay run on hostile traces: fixed worst cases and 500 randomly damaged ones are refused
# with file:line and exit 2 (or replayed if still valid), never crash or hang, and a refused one
# starts no file system (the reffs binary and mkfs are wrapped to leave a mark when run).
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis-replay reffs; do
    [ -x "$B/$b" ] || { echo "skip: $B/$b is not built"; exit 77; }
done
[ -w /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
command -v mkfs.ext2 >/dev/null || [ -x /sbin/mkfs.ext2 ] || { echo "skip: no mkfs.ext2"; exit 77; }

work=$(mktemp -d /tmp/metis-replay-hostile.XXXXXX)
rid=rh$$
cleanup() {
    # its run ids are $rid-SUFFIX: run rh1's clean-up must not take run rh12's mounts or files
    awk -v w="/metis-$rid-" 'index($5, w) { print $5 }' /proc/self/mountinfo | sort -r |
        while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    [ -n "${KEEP:-}" ] || rm -rf "$work" "/tmp/metis-$rid-"* "/dev/shm/metis-$rid-"*
}
on_exit cleanup

# Anything that makes a file system leaves a line in $work/touched.
mkdir -p "$work/wrap"
real_mkfs=$(PATH=$PATH:/sbin:/usr/sbin command -v mkfs.ext2)
printf '#!/bin/sh\necho reffs >>%s/touched\nexec %s "$@"\n' "$work" "$B/reffs" >"$work/wrap/reffs"
printf '#!/bin/sh\necho mkfs >>%s/touched\nexec %s "$@"\n' "$work" "$real_mkfs" >"$work/wrap/mkfs.ext2"
chmod +x "$work/wrap/reffs" "$work/wrap/mkfs.ext2"
export PATH="$work/wrap:$PATH" METIS_REFFS_BIN="$work/wrap/reffs"
: >"$work/touched"

cat >"$work/cfg.ini" <<'EOF'
[fs ref]
type = reffs
size = 256K

[fs ext2]
type = kernel
fstype = ext2
size = 256K

[pool]
dirs = 1
files = 2
depth = 1
xattr_names = 1
EOF
"$B/metis-replay" record "$work/cfg.ini" --ops 8 --seed 5 -o "$work/base.trace" 2>/dev/null ||
    fail "record of the base trace failed"
: >"$work/touched"

# The detector detects: a valid trace does start both file systems.
METIS_RUN_ID=$rid-ok "$B/metis-replay" run "$work/base.trace" >/dev/null; rc=$?
[ $rc = 0 ] || fail "the base trace does not replay (exit $rc)"
grep -q reffs "$work/touched" && grep -q mkfs "$work/touched" || fail "the wrappers were not run"
: >"$work/touched"

# run_refused FILE WHAT: exit 2, a one-line message naming FILE (and a line), nothing started.
run_refused() {
    local f=$1 what=$2 rc
    METIS_RUN_ID=$rid-x timeout -k 5 20 "$B/metis-replay" run "$f" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, want 2 ($(head -c 300 "$work/err"))"
    grep -q "^metis-replay: $f\(:[0-9][0-9]*: \|: \)." "$work/err" ||
        fail "$what: message is not 'file:line: ...': $(head -c 300 "$work/err")"
    [ "$(wc -l <"$work/err")" -le 2 ] || fail "$what: more than a short message"
    [ -s "$work/touched" ] && fail "$what: a file system was started for a refused trace"
    return 0
}

# with_line N TEXT: the base trace with line N replaced by TEXT.
with_line() {
    awk -v n="$1" -v t="$2" 'NR == n { print t; next } { print }' "$work/base.trace"
}
op_line=$(grep -n '^op ' "$work/base.trace" | head -1 | cut -d: -f1)
res_line=$((op_line + 1))
fix=$work/fixed
mkdir -p "$fix"
with_line "$op_line" "op 1 frobnicate path=/f0" >"$fix/unknown-op.trace"
with_line "$op_line" "op 1 mkdir path=/d0 mode=09" >"$fix/bad-argument.trace"
with_line "$op_line" "op 1 unlink path=/etc/passwd" >"$fix/outside-pool.trace"
with_line "$op_line" "op 1 symlink path=/f0 path2=/etc/shadow" >"$fix/absolute-target.trace"
with_line "$op_line" "op 1 mkdir path=/../../etc mode=0755" >"$fix/dotdot.trace"
with_line "$op_line" "op 1 mkdir path=/d0" >"$fix/missing-field.trace"
with_line "$res_line" "res 1 ref ret=0" >"$fix/missing-res-fields.trace"
with_line "$op_line" "op 1 mkdir path=/$(head -c 20000 /dev/zero | tr '\0' a) mode=0755" >"$fix/long-line.trace"
{ head -n 3 "$work/base.trace"; head -c 300 /dev/urandom; printf '\n'; tail -n +4 "$work/base.trace"; } >"$fix/garbage.trace"
{ head -n 3 "$work/base.trace"; printf 'fs 0 name=r\0ef type=reffs fstype=- size=1\n'; } >"$fix/nul.trace"
head -c $(( $(wc -c <"$work/base.trace") / 2 )) "$work/base.trace" >"$fix/truncated.trace"
: >"$fix/empty.trace"
sed 's/^cfg type = reffs$/cfg type = fuse\ncfg mount_cmd = touch '"${work//\//\\/}"'\/pwned {mnt}/' \
    "$work/base.trace" >"$fix/embedded-fuse.trace"
for f in "$fix"/*.trace; do
    run_refused "$f" "$(basename "$f" .trace)"
done
run_refused "$work/no-such.trace" "missing file"
[ -e "$work/pwned" ] && fail "the embedded mount_cmd ran"
grep -q "not in the pool" <(METIS_RUN_ID=$rid-x "$B/metis-replay" run "$fix/outside-pool.trace" 2>&1) ||
    fail "outside-pool: not refused for the pool"

# 500 randomly damaged traces.
damage='
BEGIN { srand(seed); }
{ line[NR] = $0 }
END {
    for (r = 0; r < 1 + int(rand() * 3); r++) {
        k = 1 + int(rand() * NR); m = int(rand() * 7); s = line[k]; p = 1 + int(rand() * (length(s) + 1))
        if (m == 0) line[k] = ""
        else if (m == 1) line[k] = substr(s, 1, p - 1) sprintf("%c", int(rand() * 256)) substr(s, p + 1)
        else if (m == 2) line[k] = substr(s, 1, p - 1)
        else if (m == 3) line[k] = substr(s, 1, p - 1) substr("0123456789-x= /.", 1 + int(rand() * 16), 1) substr(s, p + 1)
        else if (m == 4 && k < NR) { t = line[k]; line[k] = line[k + 1]; line[k + 1] = t }
        else if (m == 5) line[k] = s "\n" s
        else line[k] = substr(s, 1, p - 1) "99999999999999999999" substr(s, p)
    }
    for (i = 1; i <= NR; i++) if (line[i] != "" || rand() < 0.5) print line[i]
}'
refused=0 replayed=0
for i in $(seq 1 500); do
    f=$work/d.trace
    awk -v seed="$i" "$damage" "$work/base.trace" >"$f"
    : >"$work/touched"
    METIS_RUN_ID=$rid-$i timeout -k 5 30 "$B/metis-replay" run "$f" >/dev/null 2>"$work/err"
    rc=$?
    case $rc in
    2)
        refused=$((refused + 1))
        grep -q "^metis-replay: $f:[0-9][0-9]*: ." "$work/err" ||
            fail "damaged trace $i: message is not 'file:line: ...': $(head -c 300 "$work/err")"
        [ -s "$work/touched" ] && fail "damaged trace $i: refused after starting a file system"
        ;;
    0 | 1 | 4) replayed=$((replayed + 1)) ;;
    124 | 137) cp "$f" "$work/../hang-$i.trace" 2>/dev/null; fail "damaged trace $i: hung" ;;
    *) fail "damaged trace $i: exit $rc: $(head -c 300 "$work/err")" ;;
    esac
done
echo "damaged traces: $refused refused, $replayed still valid and replayed"
[ $refused -ge 250 ] || fail "only $refused of 500 damaged traces were refused"
leaked=$(awk -v w="/metis-$rid-" 'index($5, w)' /proc/self/mountinfo | wc -l)
[ "$leaked" = 0 ] || fail "$leaked mounts left behind"
echo "PASS"
