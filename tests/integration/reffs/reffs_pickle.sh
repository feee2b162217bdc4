#!/usr/bin/env bash
# Integration test: RefFS pickles survive an unmount into a fresh mount; hundreds of damaged pickles are refused and change nothing.
set -eu
. "$(dirname "$0")/../../lib/reffs-mount.sh" pk
# expect_fail MESSAGE CMD...: exit 1 and exactly MESSAGE on stderr.
expect_fail() {
  local want=$1; shift
  set +e
  "$@" >/dev/null 2>"$WORK/err"; local rc=$?
  set -e
  [ $rc -eq 1 ] || fail "$*: exit $rc, want 1"
  [ "$(cat "$WORK/err")" = "$want" ] || fail "$*: message '$(cat "$WORK/err")', want '$want'"
  echo "ok: $want"
}

# 1. Pickle one key and the whole pool, then carry them to a fresh mount.
"$BIN/reffs" "$MNT"
$TREE build "$MNT"
$TREE dump "$MNT" >"$WORK/state1"
$CTL save "$MNT" 1
$CTL pickle "$MNT" 1 "$WORK/one.pk"
$TREE mutate "$MNT"
$TREE dump "$MNT" >"$WORK/state2"
$CTL save "$MNT" 2
(cd "$WORK" && $CTL pickle "$MNT" all all.pk)   # a relative FILE is made absolute
[ -s "$WORK/one.pk" ] && [ -s "$WORK/all.pk" ] || fail "pickle files missing"
expect_fail "reffsctl: pickle: $MNT: no snapshot with key 5" $CTL pickle "$MNT" 5 "$WORK/five.pk"
[ ! -e "$WORK/five.pk" ] || fail "failed pickle left a file"
ls "$WORK" | grep -q tmp && fail "failed pickle left a temporary file"
expect_fail "reffsctl: pickle: $MNT/in-mount.pk: file lies inside the RefFS mount (EDEADLK)" \
  $CTL pickle "$MNT" 1 "$MNT/in-mount.pk"
expect_fail "reffsctl: pickle: $WORK/no/dir.pk: No such file or directory (ENOENT)" \
  $CTL pickle "$MNT" 1 "$WORK/no/dir.pk"
fusermount3 -u "$MNT"

"$BIN/reffs" "$MNT"
first=$($CTL load --restore "$MNT" "$WORK/one.pk")
[ "$first" = 1 ] || fail "load printed '$first', want 1"
$TREE dump "$MNT" | diff "$WORK/state1" - || fail "tree after load --restore differs (< pickled, > loaded)"
echo "ok: load --restore of one key into a fresh mount"
$CTL load "$MNT" "$WORK/all.pk" >/dev/null
case $($CTL stats "$MNT") in snapshots=2\ *) ;; *) fail "stats after load all: $($CTL stats "$MNT")";; esac
$TREE dump "$MNT" | diff "$WORK/state1" - || fail "load without --restore changed the tree"
$CTL restore "$MNT" 2
$TREE dump "$MNT" | diff "$WORK/state2" - || fail "key 2 from the pool pickle differs"
$CTL restore "$MNT" 1
$TREE dump "$MNT" | diff "$WORK/state1" - || fail "key 1 from the pool pickle differs"
echo "ok: pool pickle loaded, both keys restore"
expect_fail "reffsctl: load: $WORK/missing.pk: No such file or directory (ENOENT)" $CTL load "$MNT" "$WORK/missing.pk"

# 2. Damaged pickles: each refused with exit 1 and one line; tree and stats unchanged.
$CTL stats "$MNT" >"$WORK/stats-before"
python3 - "$MNT" "$CTL" "$WORK" <<'PY' || fail "damaged pickles"
import os, random, struct, subprocess, sys
mnt, ctl, work = sys.argv[1:4]
good = open(os.path.join(work, "all.pk"), "rb").read()
one = open(os.path.join(work, "one.pk"), "rb").read()
rng = random.Random(1234)
def damage(kind, src):
    b = bytearray(src)
    if kind == "truncate":
        return bytes(b[:rng.randrange(0, len(b))])
    if kind == "flip":
        for _ in range(rng.choice([1, 1, 2, 8])):
            i = rng.randrange(len(b)); b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == "version":
        b[8:12] = struct.pack("<I", rng.choice([0, 2, 3, 255, 0xFFFFFFFF]))
        return bytes(b)
    if kind == "magic":
        b[rng.randrange(8)] ^= 0x20
        return bytes(b)
    if kind == "append":
        return bytes(b) + rng.randbytes(rng.randrange(1, 100))
    if kind == "header-junk":
        i = rng.randrange(8, 104); b[i:i + 4] = rng.randbytes(4)
        return bytes(b)
    return rng.randbytes(rng.randrange(0, 5000))
kinds = ["truncate", "flip", "version", "magic", "append", "header-junk", "junk"]
path = os.path.join(work, "damaged.pk")
seen = {}
for n in range(300):
    kind = kinds[n % len(kinds)]
    data = damage(kind, good if n % 2 else one)
    if data == good or data == one:
        continue
    open(path, "wb").write(data)
    args = [ctl, "load"] + (["--restore"] if n % 3 == 0 else []) + [mnt, path]
    r = subprocess.run(args, capture_output=True, text=True)
    err = r.stderr.strip()
    if r.returncode != 1 or r.stdout or "\n" in err:
        sys.exit("%s damage #%d: exit %d, stdout %r, stderr %r" % (kind, n, r.returncode, r.stdout, err))
    ok_msgs = ("damaged pickle (EBADMSG)", "not a RefFS pickle or wrong version (EINVAL)")
    if not err.startswith("reffsctl: load: %s: " % path) or not err.endswith(ok_msgs):
        sys.exit("%s damage #%d: message %r" % (kind, n, err))
    if kind in ("version", "magic", "junk") and not err.endswith(ok_msgs[1]):
        sys.exit("%s damage #%d: want EINVAL, got %r" % (kind, n, err))
    seen[err[len(path) + 17:]] = seen.get(err[len(path) + 17:], 0) + 1
print("refused:", seen)
PY
$CTL stats "$MNT" | diff "$WORK/stats-before" - || fail "stats changed by damaged pickles"
$TREE dump "$MNT" | diff "$WORK/state1" - || fail "tree changed by damaged pickles"
$CTL restore "$MNT" 2
$TREE dump "$MNT" | diff "$WORK/state2" - || fail "pool damaged by damaged pickles"
echo "PASS reffs_pickle"
