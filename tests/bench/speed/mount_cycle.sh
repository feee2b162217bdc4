#!/usr/bin/env bash
# What a kept fs's checkpoint waits on in the kernel: times the unmount and mount of one 16-MiB image on a loop device, and their I/O requests.
# Usage: tests/bench/speed/mount_cycle.sh FSTYPE [CYCLES] [DIO on|off] [SECTOR 512|4096] [MKFS_OPT...]
# Prints one line: the loop device's direct I/O (0/1), then per cycle the unmount's and the
# mount's milliseconds and the read (r) and write (w) requests each sent to the device. Each
# cycle first changes the tree a little (16 appends, mkdirs or rmdirs), as a checkpoint's 16
# steps would, and drops the device's page cache before the mount, as Metis does.
. "$(dirname "$0")/../../lib/common.sh"
fs=${1:-} cycles=${2:-20} dio=${3:-off} sector=${4:-512}
[ -n "$fs" ] || { echo "usage: tests/bench/speed/mount_cycle.sh FSTYPE [CYCLES] [DIO] [SECTOR] [MKFS_OPT...]" >&2; exit 2; }
shift $(( $# < 4 ? $# : 4 ))
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mount)"
img=$T/image mnt=$T/mnt dev=
mkdir -p "$mnt" && truncate -s 16M "$img" || fail "cannot make $img"
# mkfs.xfs refuses file systems below 300 MB unless told it makes one for tests (as Metis does)
TEST_DIR=/tmp TEST_DEV=/dev/null QA_CHECK_FS=$fs "mkfs.$fs" -q "$@" "$img" >/dev/null 2>&1 ||
  "mkfs.$fs" "$@" "$img" >/dev/null || fail "mkfs.$fs $* failed"
dev=$(losetup -f --show --direct-io="$dio" --sector-size "$sector" "$img") ||
  fail "losetup --direct-io=$dio --sector-size $sector failed"
on_exit "umount '$mnt' 2>/dev/null; losetup -d '$dev'"
printf 'dio=%s ' "$(cat "/sys/block/${dev#/dev/}/loop/dio")"
python3 - "$dev" "$mnt" "$fs" "$cycles" <<'EOF'
import ctypes, fcntl, os, sys, time
dev, mnt, fs, cycles = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
libc = ctypes.CDLL(None, use_errno=True)
BLKFLSBUF = 0x1261

def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        sys.exit(f"{what} {dev} on {mnt}: {os.strerror(e)}")

def requests():   # reads and writes completed by the device (its stat file, fields 1 and 5)
    f = open(f"/sys/block/{os.path.basename(dev)}/stat").read().split()
    return int(f[0]), int(f[4])

def timed(call):
    r0, w0 = requests()
    t = time.monotonic()
    call()
    dt = time.monotonic() - t
    r1, w1 = requests()
    return dt, r1 - r0, w1 - w0

def mount():
    fd = os.open(dev, os.O_RDONLY)
    fcntl.ioctl(fd, BLKFLSBUF)
    os.close(fd)
    check(libc.mount(dev.encode(), mnt.encode(), fs.encode(), 0, None), "mount")

def unmount():
    check(libc.umount2(mnt.encode(), 0), "umount")

def change(k):
    for j in range(16):
        with open(f"{mnt}/f{j % 4}", "ab") as f:
            f.write(os.urandom(3000))
        d = f"{mnt}/d{(k + j) % 3}"
        os.rmdir(d) if os.path.isdir(d) else os.mkdir(d)

mount()
tot = [0.0, 0, 0, 0.0, 0, 0]
for k in range(cycles):
    change(k)
    u = timed(unmount)
    m = timed(mount)
    tot = [a + b for a, b in zip(tot, u + m)]
unmount()
n = cycles
print(f"unmount {tot[0] / n * 1e3:.2f} ms r{tot[1] / n:.1f} w{tot[2] / n:.1f}  "
      f"mount {tot[3] / n * 1e3:.2f} ms r{tot[4] / n:.1f} w{tot[5] / n:.1f}")
EOF
