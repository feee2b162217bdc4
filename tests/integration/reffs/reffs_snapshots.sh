#!/usr/bin/env bash
# Integration test: RefFS snapshots through a mount with long cache timeouts: save, change everything, restore, compare.
set -eu
. "$(dirname "$0")/../../lib/reffs-mount.sh" snap

"$BIN/reffs" "$MNT"
mountpoint -q "$MNT" || fail "reffs did not mount"

# 1. Whole-tree restore; every dump also loads the kernel's caches with the state being replaced.
$TREE build "$MNT"
$TREE dump "$MNT" >"$WORK/before"
$CTL save "$MNT" 1
$TREE mutate "$MNT"
$TREE dump "$MNT" >"$WORK/changed"
cmp -s "$WORK/before" "$WORK/changed" && fail "mutate changed nothing"
# Names the kernel now holds as negative entries must come back.
for n in fifo a/b a/hardlink; do [ ! -e "$MNT/$n" ] || fail "$n still exists"; done
$CTL restore "$MNT" 1
$TREE dump "$MNT" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "restored tree differs from the saved one (< saved, > restored)"
echo "ok: whole tree restored ($(wc -l <"$WORK/before") entries)"

# 2. Restore forward to the changed state (a second key) and back again.
$TREE mutate "$MNT"
$TREE dump "$MNT" >"$WORK/changed2"
$CTL save "$MNT" 2
$CTL restore "$MNT" 1
$CTL restore "$MNT" 2
$TREE dump "$MNT" | diff "$WORK/changed2" - || fail "restore of key 2 differs"
$CTL restore "$MNT" 1
$TREE dump "$MNT" | diff "$WORK/before" - || fail "restore 1 after 2 differs"
echo "ok: forward and back"

# 3. Data written through open files, appends and truncation right after a restore.
printf AAAA >"$MNT/app"
$CTL save "$MNT" 3
printf BBBBBBBB >>"$MNT/app"
cat "$MNT/app" >/dev/null
$CTL restore "$MNT" 3
printf C >>"$MNT/app"
[ "$(cat "$MNT/app")" = AAAAC ] || fail "append after restore: got '$(cat "$MNT/app")', want AAAAC"
$CTL restore "$MNT" 3
[ "$(stat -c %s "$MNT/app")" = 4 ] || fail "size after restore"
echo "ok: append after restore"

# 4. A missing key fails clearly and changes nothing.
$TREE dump "$MNT" >"$WORK/pre-missing"
stats_before=$($CTL stats "$MNT")
set +e
msg=$($CTL restore "$MNT" 777777 2>&1); rc=$?
set -e
[ $rc -eq 1 ] || fail "restore of a missing key: exit $rc, want 1"
[ "$msg" = "reffsctl: restore: $MNT: no snapshot with key 777777" ] || fail "message: $msg"
$TREE dump "$MNT" | diff "$WORK/pre-missing" - || fail "failed restore changed the tree"
[ "$($CTL stats "$MNT")" = "$stats_before" ] || fail "failed restore changed the stats"
echo "ok: missing key: $msg"

# 5. Discard and stats.
case $stats_before in snapshots=3\ bytes=*) ;; *) fail "stats: $stats_before, want 3 snapshots";; esac
$CTL discard "$MNT" 2
case $($CTL stats "$MNT") in snapshots=2\ bytes=*) ;; *) fail "stats after discard: $($CTL stats "$MNT")";; esac
if $CTL restore "$MNT" 2 2>/dev/null; then fail "restore of a discarded key succeeded"; fi
if $CTL discard "$MNT" 2 2>/dev/null; then fail "discard of a discarded key succeeded"; fi
$CTL save "$MNT" 18446744073709551615
$CTL restore "$MNT" 18446744073709551615
echo "ok: discard, stats, largest key"

# 6. Many keys: each state differs in data, names, modes and xattrs; restore them in random order.
python3 - "$MNT" "$CTL" <<'PY' || fail "many keys"
import os, random, subprocess, sys
mnt, ctl = sys.argv[1], sys.argv[2]
d = os.path.join(mnt, "loop")
os.mkdir(d)
def state(i):
    names = sorted(os.listdir(d))
    with open(os.path.join(d, "counter"), "rb") as f:
        data = f.read()
    return (names, data, oct(os.stat(os.path.join(d, "counter")).st_mode),
            os.getxattr(os.path.join(d, "counter"), "user.i"))
def run(*args):
    r = subprocess.run([ctl, args[0], mnt, *args[1:]], capture_output=True, text=True)
    if r.returncode: sys.exit("%s: %s" % (args, r.stderr.strip()))
    return r.stdout
expect = {}
N = 200
for i in range(1, N + 1):
    with open(os.path.join(d, "counter"), "wb") as f:
        f.write(b"c" * i)
    open(os.path.join(d, "f%03d" % i), "w").close()
    if i % 7 == 0:
        os.unlink(os.path.join(d, "f%03d" % (i - 3)))
    os.chmod(os.path.join(d, "counter"), 0o600 + (i % 64))
    os.setxattr(os.path.join(d, "counter"), "user.i", str(i).encode())
    run("save", str(1000 + i))
    expect[i] = state(i)
order = list(range(1, N + 1))
random.seed(7)
random.shuffle(order)
for i in order:
    run("restore", str(1000 + i))
    got = state(i)
    if got != expect[i]:
        sys.exit("key %d: got %r, want %r" % (1000 + i, got[1:], expect[i][1:]))
print("ok: %d keys saved and restored in random order" % N)
PY
stat "$MNT" >/dev/null || fail "daemon died"
echo "PASS reffs_snapshots"
