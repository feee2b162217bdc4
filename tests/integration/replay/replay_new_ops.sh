#!/usr/bin/env bash
# The replayer reproduces a discrepancy in each operation of issue 15 (fallocate's zero, collapse, insert and punch modes, copy_range, mknod, open_unlink, utimes): run and shrink show it at that operation, and the emit-c program shows it for every one but utimes, whose program compares no times and must exit 0.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis-replay reffs reffs-mutant; do
    [ -x "$B/$b" ] || { echo "skip: $B/$b is not built"; exit 77; }
done
for m in mkfs.ext2 mkfs.ext4; do
    PATH=$PATH:/sbin:/usr/sbin command -v $m >/dev/null || { echo "skip: no $m"; exit 77; }
done
[ -e /dev/loop-control ] && [ -w /dev/fuse ] || { echo "skip: no loop devices or /dev/fuse"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler for emit-c"; exit 77; }

work=$(mktemp -d /tmp/metis-replay-newops.XXXXXX)
rid=rn$$
cleanup() {
    # /metis-ID and a separator: run rm1's clean-up must not take run rm12's mounts
    awk -v w="/metis-$rid([/.]|$)" -v d="$work/" '$5 ~ w || index($5, d) == 1 { print $5 }' \
        /proc/self/mountinfo | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    rm -rf "$work" "/tmp/metis-$rid" "/dev/shm/metis-$rid"
}
on_exit cleanup
FAIL_LOG=$work/out   # what fail shows
export METIS_RUN_ID=$rid
R=$B/metis-replay
mutants=$("$B/reffs-mutant" -o mutation=list | cut -f1)

# Pairs whose behaviour differs on purpose. A kernel pair differs by design (ext2 has no
# ZERO_RANGE, 16 GiB is past ext2's largest file with 1 KiB blocks, collapse and insert need
# whole blocks, 128-byte inodes keep no nanoseconds); a RefFS pair differs by a planted bug.
kernel() {  # NAME FSTYPE [MKFS_OPTS]
    printf '[fs %s]\ntype = kernel\nfstype = %s\nsize = 256K\n%s\n' "$1" "$2" "${3:+mkfs_opts = $3}"
}
fsrec() {   # INDEX NAME TYPE FSTYPE
    printf 'fs %s name=%s type=%s fstype=%s size=262144\n' "$1" "$2" "$3" "$4"
}
ext2_ext4() { kernel a ext2; kernel b ext4; }
ext2_ext4_fs() { fsrec 0 a kernel ext2; fsrec 1 b kernel ext4; }
blocks() { kernel a ext4 "-b 1024"; kernel b ext4 "-b 4096"; }
blocks_fs() { fsrec 0 a kernel ext4; fsrec 1 b kernel ext4; }
inodes() { printf '[run]\ncompare_mtime = 1\n'; kernel a ext4 "-I 128"; kernel b ext4 "-I 256"; }
mutant() {  # MUTATION
    printf '[fs a]\ntype = reffs\nsize = 256K\n[fs b]\ntype = reffs\nsize = 256K\nreffs_opts = mutation=%s\n' "$1"
}
mutant_fs() { fsrec 0 a reffs -; fsrec 1 b reffs -; }

BIG=18253611008   # 17 GiB: a file ext4 can have and ext2 with 1 KiB blocks cannot

# The trace's record of what the last operation showed: which of ret, errno, state differ.
disc_line() {  # SEQ DIFFERS
    local w out="discrepancy $1 fs=b"
    for w in ret errno state; do
        case ",$2," in *",$w,"*) out+=" $w=differs" ;; *) out+=" $w=same" ;; esac
    done
    echo "$out"
}

# check NAME OPERATION DIFFERS CONFIG FSRECORDS OPS...: the last op makes fs b differ from a in
# DIFFERS (e.g. "ret,errno,state"); run, shrink and emit-c must all show it there.
check() {
    local name=$1 op=$2 differs=$3 cfg=$4 fsrecs=$5
    shift 5
    local d=$work/$name n=$#
    mkdir -p "$d"
    $cfg >"$d/c.ini"
    {
        printf 'metis-trace 1\nrun seed=1 hash=md5\nconfig %s\n' "$d/c.ini"
        $fsrecs
        local k=0
        for o in "$@"; do k=$((k + 1)); echo "op $k $o"; done
        disc_line "$n" "$differs"
        echo "end ops=$n"
    } >"$d/t.trace"
    REFFS_BIN=$B/reffs-mutant "$R" run "$d/t.trace" --tries 1 >"$work/out" 2>&1
    local rc=$?
    [ $rc = 1 ] || fail "$name: run exited $rc, want 1 (reproduced)"
    grep -q "at the end: fs b differs from a in $differs\$" "$work/out" || fail "$name: run does not show b differing in $differs"
    "$R" shrink "$d/t.trace" -o "$d/min.trace" >"$work/out" 2>&1
    rc=$?
    [ $rc = 1 ] || fail "$name: shrink exited $rc, want 1"
    grep '^op ' "$d/min.trace" | tail -1 | grep -q " $op " || fail "$name: the shrunk trace does not end with $op"
    "$R" emit-c "$d/min.trace" -o "$d/emit" >"$work/out" 2>&1 || fail "$name: emit-c failed"
    emitted "$name" "$op" "$differs" "$d/emit"
    echo "ok: $name ($op, b differs in $differs)"
}

# The emitted program compares each step's result and the final tree with the reference's: a
# ret or errno difference shows at the step, a state difference in the final tree (exit 1 on b,
# 0 on a); it lists no times, so an mtime difference shows in neither.
emitted() {  # NAME OPERATION DIFFERS DIR
    REFFS_BIN=$B/reffs-mutant "$4/run.sh" b >"$work/out" 2>&1
    local rc=$?
    case ",$3," in
    *,ret,*|*,errno,*)
        [ $rc = 1 ] || fail "$1: the emitted program exited $rc, want 1"
        grep -q "^step [0-9]*: $2 .*DIFFERS FROM THE REFERENCE" "$work/out" ||
            fail "$1: the emitted program does not show the defect at $2" ;;
    *)
        if [ "$2" = utimes ]; then
            [ $rc = 0 ] || fail "$1: the emitted program exited $rc on b, want 0 (it lists no times)"
            return 0
        fi
        [ $rc = 1 ] || fail "$1: the emitted program exited $rc on b, want 1 (a state difference)"
        grep -q 'first difference: the final tree' "$work/out" ||
            fail "$1: the emitted program does not name the differing tree entry"
        REFFS_BIN=$B/reffs-mutant "$4/run.sh" a >"$work/out" 2>&1 || fail "$1: the emitted program failed on a" ;;
    esac
    return 0
}

# needs MUTATION NAME: the case's planted bug; a mutant without it fails the test, as the
# case would otherwise drop out unseen.
needs() {
    grep -qx "$1" <<<"$mutants" || fail "$2: reffs-mutant has no $1 (renamed or gone?)"
}

check zero_range fallocate_file ret,errno,state ext2_ext4 ext2_ext4_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "write_file path=/f0 flags=0x1 off=0 size=4000 seed=0x1" \
    "fallocate_file path=/f0 flags=0x10 off=100 size=200"
check collapse fallocate_file ret,errno,state blocks blocks_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "write_file path=/f0 flags=0x1 off=0 size=8192 seed=0x2" \
    "fallocate_file path=/f0 flags=0x8 off=1024 size=1024"
check insert fallocate_file ret,errno,state blocks blocks_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "write_file path=/f0 flags=0x1 off=0 size=8192 seed=0x3" \
    "fallocate_file path=/f0 flags=0x20 off=1024 size=1024"
needs MUT_PUNCH_PARTIAL_KEEPS_DATA punch_hole
check punch_hole fallocate_file state "mutant MUT_PUNCH_PARTIAL_KEEPS_DATA" mutant_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "write_file path=/f0 flags=0x1 off=0 size=8192 seed=0x4" \
    "fallocate_file path=/f0 flags=0x3 off=100 size=5000"
check copy_range copy_range ret,errno,state ext2_ext4 ext2_ext4_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "write_file path=/f0 flags=0x1 off=0 size=4000 seed=0x5" \
    "create_file path=/f1 flags=0x42 mode=0644" \
    "copy_range path=/f0 path2=/f1 off=0 size=10 off2=$BIG"
check open_unlink open_unlink ret,errno,state ext2_ext4 ext2_ext4_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "link path=/f0 path2=/f1" \
    "open_unlink path=/f0 flags=0x1 off=0 size=$BIG seed=0x0"
needs MUT_MKNOD_SPECIAL_MODE mknod
check mknod mknod state "mutant MUT_MKNOD_SPECIAL_MODE" mutant_fs \
    "mknod path=/f0 flags=0x1000 mode=0666 rdev=0x0"
check utimes utimes state inodes blocks_fs \
    "create_file path=/f0 flags=0x42 mode=0644" \
    "utimes path=/f0 mtime=1234567890.000000001"
echo "PASS"
