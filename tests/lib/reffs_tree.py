# Helper of the reffs_*.sh integration tests: builds, changes and dumps a file tree (python3 reffs_tree.py build|mutate|dump ROOT).
import hashlib
import os
import stat
import sys


def write(path, data, mode=0o644):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def build(root):
    """A tree with every kind of object and attribute a snapshot must keep."""
    j = lambda *p: os.path.join(root, *p)
    os.makedirs(j("a", "b", "c"))
    os.mkdir(j("empty"))
    os.mkdir(j("sticky"), 0o755)
    os.chmod(j("sticky"), 0o1777)
    write(j("small"), b"small file\n")
    write(j("a", "data"), bytes(range(256)) * 300)
    write(j("a", "b", "c", "deep"), b"deep")
    fd = os.open(j("sparse"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.pwrite(fd, b"end", 300000)
    os.close(fd)
    write(j("setid"), b"#!/bin/sh\n", 0o755)
    os.chmod(j("setid"), 0o6755)
    os.chown(j("a", "data"), 1000, 1001)
    os.link(j("small"), j("a", "hardlink"))
    os.symlink("a/b/c/deep", j("link"))
    os.mkfifo(j("fifo"), 0o640)
    os.setxattr(j("small"), "user.one", b"1")
    os.setxattr(j("small"), "user.two", b"\x00binary\xff")
    os.setxattr(j("a"), "user.dir", b"dir attr")
    os.utime(j("a", "b", "c", "deep"), ns=(1_111_111_111_000_000_001, 1_222_222_222_000_000_002))
    for i in range(30):
        write(j("a", "b", "many%02d" % i), b"%d" % i)


def mutate(root):
    """Changes data, names, modes, owners, times, xattrs; adds and removes files and dirs."""
    j = lambda *p: os.path.join(root, *p)
    write(j("small"), b"different contents, longer than before\n")
    with open(j("a", "data"), "r+b") as f:
        f.seek(1000)
        f.write(b"X" * 5000)
    os.truncate(j("sparse"), 10)
    os.rename(j("a", "b"), j("renamed"))
    os.rename(j("link"), j("link2"))
    os.chmod(j("sticky"), 0o700)
    os.chmod(j("setid"), 0o600)
    os.chown(j("a", "data"), 0, 0)
    os.utime(j("renamed", "c", "deep"), ns=(5, 6))
    os.setxattr(j("small"), "user.one", b"changed")
    os.removexattr(j("small"), "user.two")
    os.setxattr(j("small"), "user.three", b"new")
    os.removexattr(j("a"), "user.dir")
    os.unlink(j("a", "hardlink"))
    os.unlink(j("fifo"))
    os.rmdir(j("empty"))
    os.mkdir(j("newdir"))
    write(j("newdir", "newfile"), b"new")
    write(j("empty"), b"a file where a dir was")
    os.symlink("renamed", j("a", "newlink"))
    for i in range(0, 30, 3):
        os.unlink(j("renamed", "many%02d" % i))


def xattrs(path):
    try:
        names = sorted(os.listxattr(path, follow_symlinks=False))
    except OSError:
        return "-"
    return ",".join("%s=%s" % (n, os.getxattr(path, n, follow_symlinks=False).hex()) for n in names)


def content(path, st):
    if stat.S_ISLNK(st.st_mode):
        return "->" + os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            return hashlib.md5(f.read()).hexdigest()
    return "-"


def dump_one(root, rel):
    path = os.path.join(root, rel) if rel else root
    st = os.lstat(path)
    fields = [rel or ".", oct(st.st_mode), st.st_uid, st.st_gid, st.st_size, st.st_nlink,
              st.st_ino, st.st_blocks, st.st_mtime_ns, st.st_ctime_ns,
              content(path, st), xattrs(path)]
    if stat.S_ISDIR(st.st_mode):
        fields.append("[" + " ".join(sorted(os.listdir(path))) + "]")
    return " ".join(str(f) for f in fields)


def dump(root):
    lines = [dump_one(root, "")]
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            lines.append(dump_one(root, os.path.relpath(os.path.join(dirpath, name), root)))
    print("\n".join(lines))


if __name__ == "__main__":
    {"build": build, "mutate": mutate, "dump": dump}[sys.argv[1]](sys.argv[2])
