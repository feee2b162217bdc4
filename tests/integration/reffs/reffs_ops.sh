#!/usr/bin/env bash
# Integration test: every file operation through a real RefFS mount, checked against expectations and against tmpfs.
set -eu
. "$(dirname "$0")/../../lib/common.sh"
BIN=$METIS_BIN
[ -x "$BIN/reffs" ] || skip "$BIN/reffs not built"
[ -e /dev/fuse ] || skip "/dev/fuse missing"
need_tools python3

WORK=$(mktemp -d /tmp/reffs-ops.$$.XXXXXX)
MNT=$WORK/reffs TMPFS=$WORK/tmpfs
mkdir "$MNT" "$TMPFS"
cleanup() {
  mountpoint -q "$MNT" && { fusermount3 -u "$MNT" || umount -l "$MNT"; }
  mountpoint -q "$TMPFS" && umount "$TMPFS"
  mountpoint -q "$MNT" || mountpoint -q "$TMPFS" || rm -rf "$WORK"
}
on_exit cleanup

# 4 MiB and 200 inodes keep the ENOSPC checks quick.
"$BIN/reffs" -o capacity=4M,inodes=200 "$MNT"
mountpoint -q "$MNT" || fail "reffs did not mount"
mount -t tmpfs -o mode=0755,size=64m "tmpfs-ops-$$" "$TMPFS"

cat >"$WORK/ops.py" <<'PY'
# Runs each operation in DIR and prints "label: result"; lines starting with '=' must match tmpfs.
import ctypes, errno, os, socket, stat, subprocess, sys
root, kind = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
libc.getxattr.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.getxattr.restype = ctypes.c_ssize_t
libc.listxattr.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.listxattr.restype = ctypes.c_ssize_t
AT_FDCWD, NOREPLACE, EXCHANGE, KEEP_SIZE, PUNCH = -100, 1, 2, 1, 2
failures = []

def P(*names): return os.path.join(root, *names)

def res(fn):
    try:
        r = fn()
        return "ok" if r is None else r
    except OSError as e:
        return errno.errorcode[e.errno]

def cres(ret):
    return errno.errorcode[ctypes.get_errno()] if ret < 0 else ret

def out(label, value, expect=None, compare=True):
    print(("=" if compare else " ") + f"{label}: {value}")
    if expect is not None and value != expect:
        failures.append(f"{label}: got {value!r}, want {expect!r}")

def rd(path): 
    with open(path, "rb") as f: return f.read()

def wr(path, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC):
    fd = os.open(path, flags, 0o644)
    try: os.write(fd, data)
    finally: os.close(fd)

def mode(path): return oct(os.lstat(path).st_mode)

def renameat2(a, b, flags):
    return cres(libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags))

# --- open flags ---
f = P("f")
out("creat excl new", res(lambda: os.close(os.open(f, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))), "ok")
out("creat excl existing", res(lambda: os.open(f, os.O_CREAT | os.O_EXCL | os.O_WRONLY)), "EEXIST")
out("open missing", res(lambda: os.open(P("nope"), os.O_RDONLY)), "ENOENT")
out("open missing dir comp", res(lambda: os.open(P("nope", "x"), os.O_RDONLY)), "ENOENT")
out("open file as dir", res(lambda: os.open(P("f", "x"), os.O_RDONLY)), "ENOTDIR")
wr(f, b"hello world")
out("read back", rd(f), b"hello world")
out("size", os.stat(f).st_size, 11)
wr(f, b"abc", os.O_WRONLY | os.O_TRUNC)
out("O_TRUNC", rd(f), b"abc")
os.close(os.open(f, os.O_RDONLY | os.O_TRUNC))
out("O_RDONLY|O_TRUNC truncates", os.stat(f).st_size, 0)
wr(f, b"abc")
fd = os.open(f, os.O_WRONLY | os.O_APPEND)
os.write(fd, b"def"); os.pwrite(fd, b"ghi", 0); os.close(fd)
out("O_APPEND (pwrite too)", rd(f), b"abcdefghi")
fd = os.open(f, os.O_RDWR)
os.pwrite(fd, b"XY", 2)
out("pwrite middle", os.pread(fd, 100, 0), b"abXYefghi")
out("pread past end", os.pread(fd, 10, 100), b"")
os.close(fd)
big = bytes(range(256)) * 1024
wr(P("big"), big)
out("256 KiB round trip", rd(P("big")) == big, True)
out("blocks 256 KiB", os.stat(P("big")).st_blocks, 512)

# --- sparse files and truncate ---
s = P("sparse")
fd = os.open(s, os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"Z", 1 << 20)
st = os.fstat(fd)
out("sparse size", st.st_size, (1 << 20) + 1)
out("sparse hole zeros", os.pread(fd, 4096, 4096) == bytes(4096), True)
out("sparse blocks small", st.st_blocks <= 16, True)
os.ftruncate(fd, 10)
out("ftruncate shrink", os.fstat(fd).st_size, 10)
os.close(fd)
wr(P("t"), b"0123456789")
os.truncate(P("t"), 3)
out("truncate shrink", rd(P("t")), b"012")
os.truncate(P("t"), 8)
out("truncate grow zeros", rd(P("t")), b"012" + bytes(5))
os.truncate(P("t"), 0)
out("truncate zero blocks", os.stat(P("t")).st_blocks, 0)
out("truncate dir", res(lambda: os.truncate(root, 0)), "EISDIR")

# --- fallocate ---
fd = os.open(P("fa"), os.O_RDWR | os.O_CREAT, 0o644)
out("fallocate 0", cres(libc.fallocate(fd, 0, 0, 8192)), 0)
st = os.fstat(fd)
out("fallocate 0 size/blocks", (st.st_size, st.st_blocks), (8192, 16))
out("fallocate keep_size", cres(libc.fallocate(fd, KEEP_SIZE, 8192, 8192)), 0)
st = os.fstat(fd)
out("keep_size size/blocks", (st.st_size, st.st_blocks), (8192, 32))
out("fallocated reads zeros", os.pread(fd, 8192, 0) == bytes(8192), True)
os.pwrite(fd, b"x" * 8192, 0)
out("fallocate punch", cres(libc.fallocate(fd, PUNCH | KEEP_SIZE, 1000, 4096)), 0)
st = os.fstat(fd)
out("punch size/blocks", (st.st_size, st.st_blocks), (8192, 32))
out("punch zeroes the range", os.pread(fd, 8192, 0) == b"x" * 1000 + bytes(4096) + b"x" * 3096, True)
out("punch whole block", cres(libc.fallocate(fd, PUNCH | KEEP_SIZE, 4096, 4096)), 0)
out("punch whole block frees it", os.fstat(fd).st_blocks, 24)
out("punch without keep_size", cres(libc.fallocate(fd, PUNCH, 0, 4096)), "ENOTSUP")
out("collapse range (the FUSE module refuses it)", cres(libc.fallocate(fd, 8, 0, 4096)), "ENOTSUP")
os.close(fd)
src = os.open(P("cf"), os.O_RDWR | os.O_CREAT, 0o644)
os.write(src, b"0123456789")
out("copy_file_range", os.copy_file_range(src, src, 4, 2, 12), 4)
out("copy_file_range data", os.pread(src, 64, 0), b"0123456789" + bytes(2) + b"2345")
out("copy_file_range overlap", res(lambda: os.copy_file_range(src, src, 4, 0, 2)), "EINVAL")
out("copy_file_range past eof", os.copy_file_range(src, src, 4, 100, 0), 0)
app = os.open(P("cf"), os.O_WRONLY | os.O_APPEND)
out("copy_file_range O_APPEND", res(lambda: os.copy_file_range(src, app, 4, 0, 20)), "EBADF")
os.close(app)
os.close(src)

# --- unlink, mkdir, rmdir ---
out("unlink", res(lambda: os.unlink(P("fa"))), "ok")
out("unlink missing", res(lambda: os.unlink(P("fa"))), "ENOENT")
out("mkdir", res(lambda: os.mkdir(P("d"), 0o755)), "ok")
out("mkdir existing", res(lambda: os.mkdir(P("d"))), "EEXIST")
out("mkdir over file", res(lambda: os.mkdir(P("f"))), "EEXIST")
out("unlink dir", res(lambda: os.unlink(P("d"))), "EISDIR")
wr(P("d", "inner"), b"x")
out("rmdir nonempty", res(lambda: os.rmdir(P("d"))), "ENOTEMPTY")
out("rmdir file", res(lambda: os.rmdir(P("f"))), "ENOTDIR")
os.mkdir(P("e"))
out("rmdir empty", res(lambda: os.rmdir(P("e"))), "ok")
out("rmdir gone", res(lambda: os.stat(P("e"))), "ENOENT")
fd = os.open(P("open-unlinked"), os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b"still here"); os.unlink(P("open-unlinked"))
# With -o noopen RefFS does not see the open, but the kernel still holds the inode (a lookup
# not forgotten): it stays readable, only no longer counted in free space and inodes.
out("read unlinked open file", os.pread(fd, 100, 0), b"still here")
out("fstat unlinked nlink", os.fstat(fd).st_nlink, 0)
os.close(fd)

# --- nlink and readdir ---
os.mkdir(P("d", "sub1")); os.mkdir(P("d", "sub2"))
out("dir nlink", os.stat(P("d")).st_nlink, 4)
out("file nlink", os.stat(P("f")).st_nlink, 1)
ls = subprocess.run(["ls", "-a", P("d")], capture_output=True, text=True).stdout.split()
out("readdir with dots", ls, [".", "..", "inner", "sub1", "sub2"])
out("root nlink", os.stat(root).st_nlink, 3)
for i in range(60): wr(P("d", "sub1", "n%02d" % i), b"")
out("readdir 60", sorted(os.listdir(P("d", "sub1"))), ["n%02d" % i for i in range(60)])
out("dir size", os.stat(P("d")).st_size, None, compare=True)

# --- rename ---
wr(P("r1"), b"one"); wr(P("r2"), b"two")
out("rename replace", res(lambda: os.rename(P("r1"), P("r2"))), "ok")
out("rename replaced content", (rd(P("r2")), os.path.exists(P("r1"))), (b"one", False))
wr(P("r1"), b"uno")
out("rename noreplace existing", renameat2(P("r1"), P("r2"), NOREPLACE), "EEXIST")
out("noreplace kept both", (rd(P("r1")), rd(P("r2"))), (b"uno", b"one"))
out("rename noreplace new", renameat2(P("r1"), P("r3"), NOREPLACE), 0)
out("rename exchange file/dir", renameat2(P("r3"), P("d"), EXCHANGE), 0)
out("exchanged", (os.path.isdir(P("r3")), rd(P("d"))), (True, b"uno"))
out("exchanged child", rd(P("r3", "inner")), b"x")
out("exchange missing", renameat2(P("r3"), P("missing"), EXCHANGE), "ENOENT")
out("rename missing", res(lambda: os.rename(P("missing"), P("x"))), "ENOENT")
os.mkdir(P("emptydir"))
out("rename dir onto nonempty dir", res(lambda: os.rename(P("emptydir"), P("r3"))), "ENOTEMPTY")
out("rename file onto dir", res(lambda: os.rename(P("r2"), P("emptydir"))), "EISDIR")
out("rename dir onto file", res(lambda: os.rename(P("emptydir"), P("r2"))), "ENOTDIR")
out("rename into own subtree", res(lambda: os.rename(P("r3"), P("r3", "sub1", "x"))), "EINVAL")
os.mkdir(P("ed2"))
out("rename dir onto empty dir", res(lambda: os.rename(P("emptydir"), P("ed2"))), "ok")
out("rename dir across", res(lambda: os.rename(P("ed2"), P("r3", "moved"))), "ok")
out("nlink after dir move", (os.stat(root).st_nlink, os.stat(P("r3")).st_nlink), (3, 5))
out("rename self", res(lambda: os.rename(P("r2"), P("r2"))), "ok")

# --- link, symlink ---
out("link", res(lambda: os.link(P("r2"), P("r2-link"))), "ok")
out("link nlink", (os.stat(P("r2")).st_nlink, os.stat(P("r2-link")).st_ino == os.stat(P("r2")).st_ino), (2, True))
out("link dir", res(lambda: os.link(P("r3"), P("r3-link"))), "EPERM")
out("link existing name", res(lambda: os.link(P("r2"), P("f"))), "EEXIST")
os.unlink(P("r2"))
out("nlink after unlink", os.stat(P("r2-link")).st_nlink, 1)
out("symlink", res(lambda: os.symlink("down/target", P("sl"))), "ok")
out("readlink", os.readlink(P("sl")), "down/target")
st = os.lstat(P("sl"))
out("symlink lstat", (stat.S_ISLNK(st.st_mode), st.st_size), (True, 11))
out("symlink dangling stat", res(lambda: os.stat(P("sl"))), "ENOENT")
out("symlink existing", res(lambda: os.symlink("x", P("f"))), "EEXIST")
out("readlink file", res(lambda: os.readlink(P("f"))), "EINVAL")
os.symlink("f", P("sl2"))
out("follow symlink", rd(P("sl2")), b"abXYefghi")
longt = "a/" * 1000 + "b"
out("long symlink", res(lambda: os.symlink(longt, P("sl3"))), "ok")
out("long readlink", os.readlink(P("sl3")) == longt, True)
os.mkfifo(P("fifo"), 0o600)
out("mkfifo", stat.S_ISFIFO(os.lstat(P("fifo")).st_mode), True)
pfd = os.open(P("fifo"), os.O_RDWR)
os.write(pfd, b"through the fifo")
out("fifo carries data", os.read(pfd, 64), b"through the fifo")
os.close(pfd)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(P("sock"))
srv.listen(1)
out("bind makes a socket", stat.S_ISSOCK(os.lstat(P("sock")).st_mode), True)
cli = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
cli.connect(P("sock"))
conn, _ = srv.accept()
cli.sendall(b"hello")
out("socket carries data", conn.recv(16), b"hello")
for so in (conn, cli, srv):
    so.close()
out("unlink socket", res(lambda: os.unlink(P("sock"))), "ok")

# --- chmod, chown, utimens ---
os.chmod(P("f"), 0o1777)
out("chmod sticky file", mode(P("f")), "0o101777")
os.mkdir(P("sd")); os.chmod(P("sd"), 0o1777)
out("chmod sticky dir", mode(P("sd")), "0o41777")
os.chown(P("sd"), -1, -1)
out("sticky survives chown -1 -1", mode(P("sd")), "0o41777")
os.chmod(P("f"), 0o6755)
out("chmod setuid setgid", mode(P("f")), "0o106755")
os.chown(P("f"), -1, -1)
out("chown -1 -1 clears set-id", mode(P("f")), "0o100755")
os.chown(P("f"), 1000, -1)
st = os.stat(P("f"))
out("chown uid only", (st.st_uid, st.st_gid), (1000, 0))
os.chown(P("f"), -1, 2000)
st = os.stat(P("f"))
out("chgrp only", (st.st_uid, st.st_gid), (1000, 2000))
os.mkdir(P("sg")); os.chown(P("sg"), 0, 1234); os.chmod(P("sg"), 0o2775)
out("setgid dir", mode(P("sg")), "0o42775")
os.mkdir(P("sg", "child"), 0o755)
st = os.stat(P("sg", "child"))
out("setgid inherited by dir", (oct(st.st_mode), st.st_gid), ("0o42755", 1234))
wr(P("sg", "file"), b"")
st = os.stat(P("sg", "file"))
out("setgid group for file", (oct(st.st_mode), st.st_gid), ("0o100644", 1234))
os.lchown(P("sl"), 5, 6)
out("lchown symlink", (os.lstat(P("sl")).st_uid, os.lstat(P("sl")).st_gid), (5, 6))
os.utime(P("f"), ns=(1_000_000_123, 2_000_000_456))
st = os.stat(P("f"))
out("utimens", (st.st_atime_ns, st.st_mtime_ns), (1_000_000_123, 2_000_000_456))
os.utime(P("f"))
out("utimens now", os.stat(P("f")).st_mtime_ns > 2_000_000_456, True)
before = os.stat(P("t")).st_mtime_ns
wr(P("t"), b"new", os.O_WRONLY)
out("write updates mtime", os.stat(P("t")).st_mtime_ns >= before, True)

# --- xattrs ---
x = P("f")
out("setxattr create", res(lambda: os.setxattr(x, "user.a", b"va", os.XATTR_CREATE)), "ok")
out("setxattr create existing", res(lambda: os.setxattr(x, "user.a", b"vb", os.XATTR_CREATE)), "EEXIST")
out("setxattr replace", res(lambda: os.setxattr(x, "user.a", b"value-2", os.XATTR_REPLACE)), "ok")
out("setxattr replace missing", res(lambda: os.setxattr(x, "user.b", b"v", os.XATTR_REPLACE)), "ENODATA")
out("getxattr", os.getxattr(x, "user.a"), b"value-2")
out("getxattr missing", res(lambda: os.getxattr(x, "user.zz")), "ENODATA")
os.setxattr(x, "user.empty", b"")
out("empty xattr", os.getxattr(x, "user.empty"), b"")
buf = ctypes.create_string_buffer(64)
out("getxattr size query", cres(libc.getxattr(x.encode(), b"user.a", None, 0)), 7)
out("getxattr ERANGE", cres(libc.getxattr(x.encode(), b"user.a", buf, 3)), "ERANGE")
out("listxattr ERANGE", cres(libc.listxattr(x.encode(), buf, 3)), "ERANGE")
out("listxattr", sorted(os.listxattr(x)), ["user.a", "user.empty"])
out("removexattr", res(lambda: os.removexattr(x, "user.a")), "ok")
out("removexattr missing", res(lambda: os.removexattr(x, "user.a")), "ENODATA")
os.setxattr(P("r3"), "user.dir", b"on a dir")
out("dir xattr", os.getxattr(P("r3"), "user.dir"), b"on a dir")
out("big xattr", res(lambda: os.setxattr(x, "user.big", b"v" * 4000)), "ok")
out("big xattr back", os.getxattr(x, "user.big") == b"v" * 4000, True)

if failures:
    print("FAILURES:\n  " + "\n  ".join(failures))
    sys.exit(1)
PY

status=0
python3 "$WORK/ops.py" "$MNT" reffs >"$WORK/reffs.out" 2>&1 || { echo "FAIL: expectations on RefFS"; status=1; }
python3 "$WORK/ops.py" "$TMPFS" tmpfs >"$WORK/tmpfs.out" 2>&1 || { echo "FAIL: expectations on tmpfs (test bug?)"; status=1; }
cat "$WORK/reffs.out"
if ! diff <(grep '^=' "$WORK/tmpfs.out") <(grep '^=' "$WORK/reffs.out"); then
  echo "FAIL: RefFS differs from tmpfs (< tmpfs, > RefFS)"; status=1
fi
[ $status -eq 0 ] || exit 1

# The same with -o noopen (opens skip the daemon) on a fresh mount.
fusermount3 -u "$MNT"
"$BIN/reffs" -o capacity=4M,inodes=200,noopen "$MNT"
python3 "$WORK/ops.py" "$MNT" noopen >"$WORK/noopen.out" 2>&1 || { cat "$WORK/noopen.out"; fail "expectations with noopen"; }
if ! diff <(grep '^=' "$WORK/tmpfs.out") <(grep '^=' "$WORK/noopen.out"); then
  fail "RefFS with noopen differs from tmpfs (< tmpfs, > RefFS)"
fi
echo "ok: noopen behaves as tmpfs"

# --- statfs and ENOSPC, against capacity=4M and inodes=200 ---
cat >"$WORK/space.py" <<'PY'
# Checks statfs numbers against the mount options, then fills data and inodes to ENOSPC.
import errno, os, sys
root = sys.argv[1]
bad = []
def check(label, got, want):
    print(f"{label}: {got}")
    if got != want: bad.append(f"{label}: got {got}, want {want}")
for n in os.listdir(root):
    p = os.path.join(root, n)
    if os.path.isdir(p) and not os.path.islink(p):
        for dp, dns, fns in os.walk(p, topdown=False):
            for f in fns: os.unlink(os.path.join(dp, f))
            for d in dns: os.rmdir(os.path.join(dp, d))
        os.rmdir(p)
    else:
        os.unlink(p)
sv = os.statvfs(root)
check("bsize", sv.f_frsize, 4096)
check("blocks", sv.f_blocks * sv.f_frsize, 4 << 20)
check("free when empty", sv.f_bfree, sv.f_blocks)
check("files", sv.f_files, 200)
check("ffree when empty", sv.f_ffree, 199)
fd = os.open(os.path.join(root, "fill"), os.O_WRONLY | os.O_CREAT, 0o644)
written, err = 0, None
try:
    while True:
        written += os.write(fd, bytes(65536))
except OSError as e:
    err = errno.errorcode[e.errno]
check("data full error", err, "ENOSPC")
check("data written near capacity", (4 << 20) - 65536 <= written <= (4 << 20), True)
check("bfree when full", os.statvfs(root).f_bfree, 0)
os.close(fd)
os.unlink(os.path.join(root, "fill"))
check("bfree after unlink", os.statvfs(root).f_bfree, sv.f_blocks)
made, err = 0, None
try:
    while True:
        os.close(os.open(os.path.join(root, "i%d" % made), os.O_WRONLY | os.O_CREAT, 0o644))
        made += 1
except OSError as e:
    err = errno.errorcode[e.errno]
check("inodes full error", err, "ENOSPC")
check("inodes made", made, 199)
check("ffree when full", os.statvfs(root).f_ffree, 0)
try:
    os.mkdir(os.path.join(root, "dd")); r = "ok"
except OSError as e:
    r = errno.errorcode[e.errno]
check("mkdir when full", r, "ENOSPC")
for i in range(made): os.unlink(os.path.join(root, "i%d" % i))
check("ffree after cleanup", os.statvfs(root).f_ffree, 199)
if bad:
    print("FAILURES:\n  " + "\n  ".join(bad)); sys.exit(1)
PY
python3 "$WORK/space.py" "$MNT" || fail "statfs/ENOSPC"
stat "$MNT" >/dev/null || fail "daemon died"
echo "PASS reffs_ops"
