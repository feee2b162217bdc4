#!/usr/bin/env python3
"""Chowns a new file and a new directory with one id as -1 (keep it), then prints the owner seen and the errno of the calls that follow (as root), one line per node."""
import errno
import os
import sys


def attempt(call):
    """'ok', or the errno name the call failed with."""
    try:
        call()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def owner(path):
    st = os.stat(path)
    return "%d:%d" % (st.st_uid, st.st_gid)


def write_open(path, flags):
    os.close(os.open(path, os.O_WRONLY | flags, 0o644))


def file_line(top, label, uid, gid):
    """A file of mode 600, chowned (uid, gid), then chmod, utime, an append and its unlink."""
    f = os.path.join(top, label + "-file")
    write_open(f, os.O_CREAT)
    os.chmod(f, 0o600)
    got = ["chown(%d,%d) %s" % (uid, gid, attempt(lambda: os.chown(f, uid, gid))), "owner " + owner(f),
           "chmod " + attempt(lambda: os.chmod(f, 0o644)),
           "utime " + attempt(lambda: os.utime(f, (1, 1))),
           "append " + attempt(lambda: write_open(f, os.O_APPEND)),
           "unlink " + attempt(lambda: os.unlink(f))]
    return "%s file: %s" % (label, " ".join(got))


def dir_line(top, label, uid, gid):
    """A directory of mode 500, chowned (uid, gid), then chmod and a create inside; then a
    chown naming both ids (which the kernel lets through) and the create again."""
    d = os.path.join(top, label + "-dir")
    os.mkdir(d, 0o500)
    inside = os.path.join(d, "x")
    got = ["chown(%d,%d) %s" % (uid, gid, attempt(lambda: os.chown(d, uid, gid))), "owner " + owner(d),
           "chmod " + attempt(lambda: os.chmod(d, 0o755)),
           "create " + attempt(lambda: write_open(inside, os.O_CREAT)),
           "| chown(0,0) " + attempt(lambda: os.chown(d, 0, 0)), "owner " + owner(d),
           "create " + attempt(lambda: write_open(inside, os.O_CREAT))]
    return "%s dir: %s" % (label, " ".join(got))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: owners.py DIR (an existing directory, as root)")
    top = sys.argv[1]
    for label, uid, gid in (("keep-uid", -1, 0), ("keep-gid", 0, -1)):
        print(file_line(top, label, uid, gid))
        print(dir_line(top, label, uid, gid))


if __name__ == "__main__":
    main()
