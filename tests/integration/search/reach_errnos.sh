#!/usr/bin/env bash
# Over fixed seeds every operation succeeds, and returns every errno that RefFS's errno table (reffs/README.md) lists for the calls it makes, except the (operation, errno) pairs this pool cannot produce, each excused with its reason; a call of the table that the test does not map to operations fails it.
. "$(dirname "$0")/../../lib/common.sh"
seeds=(1 2 3 4)
ops=${REACH_OPS:-2500}
# ref-vs-ext4 with a pool two levels deep, so that parents can be missing or files (ENOENT,
# ENOTDIR) for every kind of creation, mkdir included; more renames, links and symlinks put
# files (and symlinks to files) where directory names are. Fewer paths from the reference's
# tree than by default: those go to names that can be made, and the errnos of names that
# cannot (ENOTDIR of a mkdir below a file) come from pool draws.
# The first fifteen operations run as
# they did before the four of issue 15 (whose share of every state's branches would thin their
# rare errnos out); a second config runs all of them, the new ones weighted up. A pair counts
# when either config returned it.
cat >"$T/reach.ini" <<'INI'
[run]
max_depth = 12

[fs ref]
type = reffs
size = 1M
; what RefFS does not get through FUSE: ext4 skips it (configs/README.md, unsupported)
unsupported = punch_hole,zero_range,zero_range_keep,collapse,insert

[fs ext4]
type = kernel
fstype = ext4
size = 1M

[pool]
dirs = 1
files = 2
depth = 2
xattr_names = 2
existing = 0.3

[ops]
rename = 3
link = 3
symlink = 2
copy_range = 0
mknod = 0
open_unlink = 0

[bits]
falloc_mode = allocate:1 keep_size:1

[sizes]
write_size = uniform:8
write_offset = uniform:8
trunc_size = uniform:9
falloc_offset = uniform:8
falloc_len = uniform:8
xattr_size = uniform:6
INI
sed -e '/^\[ops\]/,/^$/d' -e '/^\[bits\]/,/^$/d' "$T/reach.ini" >"$T/new.ini"
printf '[ops]\nrename = 3\nlink = 3\nsymlink = 2\ncopy_range = 3\nmknod = 2\nopen_unlink = 3\nutimes = 1\nfallocate_file = 2\n' >>"$T/new.ini"
# reach.py table: checks that every (operation, errno) of the table is required or excused;
# reach.py seen DIR SEED...: checks the runs' reach against the required ones.
cat >"$T/reach.py" <<'PY'
import json, re, sys
# Which calls of RefFS's errno table (reffs/README.md, the "call" column) each Metis operation
# makes, its path's lookup aside (every operation makes that one). A call no operation's result
# comes from maps to nothing: the abstract walk's reads, and the library's own API.
OPS = ['create_file', 'write_file', 'truncate', 'fallocate_file', 'chmod', 'chown_file',
       'chgrp_file', 'unlink', 'mkdir', 'rmdir', 'rename', 'link', 'symlink', 'setxattr',
       'removexattr', 'copy_range', 'mknod', 'open_unlink', 'utimes']
XATTR = ['setxattr', 'removexattr']
FALLOC = ['fallocate_file']
CALLS = {
    'lookup': OPS,
    'mknod': ['create_file', 'mknod'],
    'mknod, mkdir': ['create_file', 'mknod', 'mkdir'],
    'mknod, mkdir, symlink': ['create_file', 'mknod', 'mkdir', 'symlink'],
    'mkdir': ['mkdir'], 'symlink': ['symlink'], 'link': ['link'], 'rmdir': ['rmdir'],
    'rename': ['rename'], 'unlink': ['unlink', 'open_unlink'], 'open': ['open_unlink'],
    'read, write': ['write_file', 'open_unlink'], 'write': ['write_file', 'open_unlink'],
    'setattr': ['truncate', 'chmod', 'chown_file', 'chgrp_file', 'utimes', 'open_unlink'],
    'setattr (size)': ['truncate', 'open_unlink'],
    'fallocate': FALLOC, 'fallocate (COLLAPSE_RANGE, INSERT_RANGE)': FALLOC,
    'fallocate (COLLAPSE_RANGE)': FALLOC, 'fallocate (INSERT_RANGE)': FALLOC,
    'copy_range': ['copy_range'],
    'setxattr': ['setxattr'], 'removexattr': ['removexattr'], 'set/get/removexattr': XATTR,
    'setxattr, removexattr': XATTR, 'all xattr calls': XATTR,
    'getattr': [], 'readlink': [], 'readdir': [], 'getxattr': [], 'listxattr': [],
    'fsync': [], 'access': [], 'snapshot_restore': [], 'snapshot_discard': [], 'pickle': [],
    'load': [], 'reffs_create': [],
}

def readme_rows(path):
    """(call, [errno...]) of each row of the README's ERRNO TABLE section."""
    rows, inside = [], False
    for line in open(path):
        if line.startswith('## '):
            inside = line.strip() == '## ERRNO TABLE'
        elif inside and line.startswith('| ') and not line.startswith('| call |'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            rows.append((cells[0], re.findall(r'\bE[A-Z0-9]+\b', cells[1])))
    return rows

def table_of(rows, problems):
    table = {op: set() for op in OPS}
    for call, errnos in rows:
        if call not in CALLS:
            problems.append(f'reffs/README.md: call "{call}" is not mapped to operations here (CALLS)')
            continue
        for op in CALLS[call]:
            table[op].update(errnos)
    for call in sorted(set(CALLS) - {c for c, _ in rows}):
        problems.append(f'CALLS maps "{call}", which reffs/README.md\'s table no longer has')
    return table

# What this pool cannot produce, and why.
cannot = {}
def no(ops, errno, why):
    for op in ops:
        cannot[(op, errno)] = why
no(OPS, 'ENAMETOOLONG', 'pool names are at most 255 bytes (name_len <= 255)')
no(['create_file', 'write_file', 'fallocate_file', 'mkdir', 'symlink', 'setxattr', 'copy_range',
    'mknod', 'open_unlink'], 'ENOSPC',
   'the sizing rule keeps every device at most half full; 8 pool names stay below the free inodes')
no(['write_file', 'truncate', 'fallocate_file', 'copy_range', 'open_unlink'], 'EFBIG',
   'the sizing rule bounds offsets and sizes far below the maximum file size (and caps INSERT_RANGE there)')
no(['copy_range'], 'EOVERFLOW', 'the sizing rule bounds offsets and lengths far below 2^63: their sum never wraps')
no(['create_file'], 'EPERM', 'only mknod of S_IFDIR; create_file always makes regular files')
no(['create_file'], 'EINVAL', 'only mknod of other types or a name with "/", which the VFS never passes')
no(['mknod'], 'EPERM', 'only S_IFDIR, and Metis draws FIFOs, sockets and device nodes only')
no(['mknod'], 'EINVAL', 'only S_IFLNK, an unknown type or a name with "/": Metis draws FIFOs, sockets and device nodes, the VFS passes no "/"')
no(['write_file'], 'EINVAL', 'offsets and sizes are unsigned draws; a FIFO gives ESPIPE, a socket ENXIO')
no(['fallocate_file'], 'ENODEV', 'special files fail first: a socket or device node at open (ENXIO), a FIFO with ESPIPE')
no(['mkdir', 'link', 'rename'], 'EMLINK', '65000 links need 65000 names; a pool holds at most 4096')
no(['rmdir'], 'EINVAL', 'only rmdir of "."; pool paths never end in "."')
no(['rename'], 'EBUSY', 'only "." or ".." as a name; pool paths have neither')
no(['setxattr'], 'EINVAL', 'Metis draws only 0, XATTR_CREATE, XATTR_REPLACE; names are never a bare prefix')
no(['setxattr'], 'E2BIG', 'xattr_size stays below 65536 bytes')
no(['setxattr', 'removexattr'], 'ERANGE', 'pool xattr names are 1..255 bytes')
no(['setxattr', 'removexattr'], 'EOPNOTSUPP', 'pool xattr names are user.*')

def required(table, problems):
    for (op, e) in sorted(cannot):
        if e not in table[op]:
            problems.append(f'excused {op} {e}, which reffs/README.md\'s table does not list')
    return {op: sorted(e for e in table[op] if (op, e) not in cannot) for op in OPS}

def seen(tmp, seeds, req, problems):
    tried, ok, errs = {}, {}, {}
    for s in [f'{c}-s{n}' for n in seeds for c in ('reach', 'new')]:
        for op, r in json.load(open(f'{tmp}/{s}/summary.json'))['reach'].items():
            tried[op] = tried.get(op, 0) + r['tried']
            ok[op] = ok.get(op, 0) + r['ok']
            for e, n in r['errors'].items():
                errs.setdefault(op, {})[e] = errs.get(op, {}).get(e, 0) + n
    for op in OPS:
        if ok.get(op, 0) == 0:
            problems.append(f'{op} never succeeded ({tried.get(op, 0)} tries)')
        problems += [f'{op} never returned {e}' for e in req[op] if not errs.get(op, {}).get(e)]
    if not problems:
        print(f'{len(seeds)} seeds of two configs: {sum(tried.get(op, 0) for op in OPS)} operations; '
              f'{sum(map(len, req.values()))} (operation, errno) pairs of RefFS\'s table required and seen')

problems = []
req = required(table_of(readme_rows('reffs/README.md'), problems), problems)
if sys.argv[1] == 'seen':
    seen(sys.argv[2], sys.argv[3:], req, problems)
else:
    print('not producible by this pool:')
    for (op, e), why in sorted(cannot.items()):
        print(f'  {op} {e}: {why}')
for p in problems:
    print('FAIL:', p)
sys.exit(1 if problems else 0)
PY
python3 "$T/reach.py" table || fail "reffs/README.md's errno table and this test's excuses disagree"
for s in "${seeds[@]}"; do
  for c in reach new; do
    "$METIS_BIN/metis" run "$T/$c.ini" --seed "$s" --ops "$ops" --out "$T/$c-s$s" >"$T/$c-s$s.out" 2>&1 \
      || { cat "$T/$c-s$s.out"; fail "$c.ini seed $s: metis run failed"; }
    assert_no_leftovers "$(run_id_of "$T/$c-s$s.out")"
  done
done

python3 "$T/reach.py" seen "$T" "${seeds[@]}" || fail "the reach check failed"
echo PASS
