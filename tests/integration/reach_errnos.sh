#!/usr/bin/env bash
# Over fixed seeds every operation succeeds and returns every errno of RefFS's table that the pool can produce.
. "$(dirname "$0")/../lib/common.sh"
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
for s in "${seeds[@]}"; do
  for c in reach new; do
    "$METIS_BIN/metis" run "$T/$c.ini" --seed "$s" --ops "$ops" --out "$T/$c-s$s" >"$T/$c-s$s.out" 2>&1 \
      || { cat "$T/$c-s$s.out"; fail "$c.ini seed $s: metis run failed"; }
    assert_no_leftovers "$(run_id_of "$T/$c-s$s.out")"
  done
done

python3 - "$T" "${seeds[@]}" <<'PY'
import json, sys
tmp, seeds = sys.argv[1], sys.argv[2:]
# RefFS's errno table (reffs/README.md) per operation: the errnos of the calls it makes,
# the lookup of its path included (the same table as tests/mutations/reach.patch).
LOOKUP = ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']
table = {
    'create_file': LOOKUP + ['EEXIST', 'EPERM', 'EINVAL', 'ENOSPC'],
    'write_file': LOOKUP + ['EISDIR', 'EINVAL', 'ENOSPC', 'EFBIG'],
    'truncate': LOOKUP + ['EISDIR', 'EINVAL', 'EFBIG'],
    'fallocate_file': LOOKUP + ['EOPNOTSUPP', 'EINVAL', 'ENOSPC', 'EFBIG', 'EISDIR', 'ENODEV'],
    'chmod': LOOKUP, 'chown_file': LOOKUP, 'chgrp_file': LOOKUP,
    'unlink': LOOKUP + ['EISDIR'],
    'mkdir': LOOKUP + ['EEXIST', 'EMLINK', 'ENOSPC'],
    'rmdir': LOOKUP + ['ENOTEMPTY', 'EINVAL'],
    'rename': LOOKUP + ['EISDIR', 'EINVAL', 'ENOTEMPTY', 'EEXIST', 'EBUSY', 'EMLINK'],
    'link': LOOKUP + ['EPERM', 'EEXIST', 'EMLINK'],
    'symlink': LOOKUP + ['EEXIST', 'ENOSPC'],
    'setxattr': LOOKUP + ['EEXIST', 'ENODATA', 'EINVAL', 'E2BIG', 'ERANGE', 'EOPNOTSUPP', 'EPERM', 'ENOSPC'],
    'removexattr': LOOKUP + ['ENODATA', 'ERANGE', 'EOPNOTSUPP', 'EPERM'],
    'copy_range': LOOKUP + ['EISDIR', 'EINVAL', 'ENOSPC', 'EFBIG'],
    'mknod': LOOKUP + ['EEXIST', 'ENOSPC'],
    'open_unlink': LOOKUP + ['EISDIR', 'EINVAL', 'ENOSPC', 'EFBIG'],
    'utimes': LOOKUP,
}
# What this pool cannot produce, and why.
ALL = list(table)
cannot = {}
def no(ops, errno, why):
    for op in ops:
        cannot[(op, errno)] = why
no(ALL, 'ENAMETOOLONG', 'pool names are at most 255 bytes (name_len <= 255)')
no(['create_file', 'write_file', 'fallocate_file', 'mkdir', 'symlink', 'setxattr', 'copy_range',
    'mknod', 'open_unlink'], 'ENOSPC',
   'the sizing rule keeps every device at most half full; 8 pool names stay below the free inodes')
no(['write_file', 'truncate', 'fallocate_file', 'copy_range', 'open_unlink'], 'EFBIG',
   'the sizing rule bounds offsets and sizes far below the maximum file size (and caps INSERT_RANGE there)')
no(['create_file'], 'EPERM', 'only mknod of S_IFDIR; create_file always makes regular files')
no(['create_file'], 'EINVAL', 'only mknod of other types or a name with "/", which the VFS never passes')
no(['write_file'], 'EINVAL', 'offsets and sizes are unsigned draws; a FIFO gives ESPIPE, a socket ENXIO')
no(['fallocate_file'], 'ENODEV', 'special files fail first: a socket or device node at open (ENXIO), a FIFO with ESPIPE')
no(['mkdir', 'link', 'rename'], 'EMLINK', '65000 links need 65000 names; a pool holds at most 4096')
no(['rmdir'], 'EINVAL', 'only rmdir of "."; pool paths never end in "."')
no(['rename'], 'EBUSY', 'only "." or ".." as a name; pool paths have neither')
no(['setxattr'], 'EINVAL', 'Metis draws only 0, XATTR_CREATE, XATTR_REPLACE; names are never a bare prefix')
no(['setxattr'], 'E2BIG', 'xattr_size stays below 65536 bytes')
no(['setxattr', 'removexattr'], 'ERANGE', 'pool xattr names are 1..255 bytes')
no(['setxattr', 'removexattr'], 'EOPNOTSUPP', 'pool xattr names are user.*')

tried, ok, errs = {}, {}, {}
for s in [f'{c}-s{n}' for n in seeds for c in ('reach', 'new')]:
    reach = json.load(open(f'{tmp}/{s}/summary.json'))['reach']
    for op, r in reach.items():
        tried[op] = tried.get(op, 0) + r['tried']
        ok[op] = ok.get(op, 0) + r['ok']
        for e, n in r['errors'].items():
            errs.setdefault(op, {})[e] = errs.get(op, {}).get(e, 0) + n
problems = []
for op in table:
    if ok.get(op, 0) == 0:
        problems.append(f'{op} never succeeded ({tried.get(op, 0)} tries)')
    for e in table[op]:
        if (op, e) in cannot:
            continue
        if errs.get(op, {}).get(e, 0) == 0:
            problems.append(f'{op} never returned {e}')
checked = sum(1 for op in table for e in table[op] if (op, e) not in cannot)
print(f'{len(seeds)} seeds of two configs: {sum(tried[op] for op in table)} operations; {checked} (operation, errno) pairs of '
      f'RefFS\'s table required and seen' if not problems else '')
print('not producible by this pool:')
for (op, e), why in sorted(cannot.items()):
    print(f'  {op} {e}: {why}')
for p in problems:
    print('FAIL:', p)
sys.exit(1 if problems else 0)
PY
[ $? -eq 0 ] || fail "the reach check failed"
echo PASS
