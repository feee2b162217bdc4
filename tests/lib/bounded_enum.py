#!/usr/bin/env python3
# The states of tests/fixtures/bounded/bounded-small.ini within a depth, counted without Metis: the six POSIX calls simulated on a dict tree, as root.
"""Usage: bounded_enum.py DEPTH [FILES [symmetry]]: prints how many distinct trees lie within
DEPTH operations of the empty root, with FILES file names per directory (1: bounded/bounded-small.ini,
2: bounded/bounded-symmetry.ini, in tests/fixtures/). Shares no code with the engine: a file's bytes are labels, the same
label for the same write at the same place (a write's data depends on its arguments alone), 0
for what no write put down (a hole reads as zeros and the abstract state does not tell them
apart). With "symmetry" ([run] symmetry = names) a write's label names its path's shape
("/d/f"), not its path, and trees are counted up to renaming file names among themselves in
each directory: each tree's least form over every such renaming, tried one by one (the engine
hashes canonically instead)."""
import itertools
import sys

NFILES = int(sys.argv[2]) if len(sys.argv) > 2 else 1
SYMMETRY = len(sys.argv) > 3 and sys.argv[3] == 'symmetry'
FILE_NAMES = ['f%d' % i for i in range(NFILES)]
DIRS = ['/d0']
FILES = [d + '/' + f for d in [''] + DIRS for f in FILE_NAMES]
SIZES = [0, 4]
OFFSETS = [0, 4]


def parent(path):
    return path.rsplit('/', 1)[0] or '/'


def kind(tree, path):
    return 'd' if path == '/' else tree.get(path, (None,))[0]


def changed(tree, path, entry):
    t = dict(tree)
    if entry is None:
        t.pop(path, None)
    else:
        t[path] = entry
    return frozenset(t.items())


def create(tree, p):
    if kind(tree, parent(p)) != 'd' or p in tree:
        return None                       # ENOENT, ENOTDIR; an existing file opens unchanged
    return changed(tree, p, ('f', ()))


def write(tree, p, off, size):
    if kind(tree, p) != 'f' or size == 0:
        return None
    data = list(tree[p][1]) + [0] * max(0, off + size - len(tree[p][1]))
    for j in range(size):
        data[off + j] = (shape(p) if SYMMETRY else p, off, size, j)
    return changed(tree, p, ('f', tuple(data)))


def truncate(tree, p, size):
    if kind(tree, p) != 'f':
        return None
    data = list(tree[p][1])[:size]
    return changed(tree, p, ('f', tuple(data + [0] * (size - len(data)))))


def unlink(tree, p):
    return changed(tree, p, None) if kind(tree, p) == 'f' else None


def mkdir(tree, p):
    if kind(tree, parent(p)) != 'd' or p in tree:
        return None
    return changed(tree, p, ('d', None))


def rmdir(tree, p):
    if kind(tree, p) != 'd' or any(q.startswith(p + '/') for q in tree):
        return None
    return changed(tree, p, None)


def successors(tree):
    for p in FILES:
        yield create(tree, p)
        for off in OFFSETS:
            for size in SIZES:
                yield write(tree, p, off, size)
        for size in SIZES:
            yield truncate(tree, p, size)
    for p in DIRS + FILES:
        yield unlink(tree, p)
        yield rmdir(tree, p)
    for p in DIRS:
        yield mkdir(tree, p)


def shape(path):
    return '/'.join(c[:1] for c in path.split('/'))


def renamings():
    """Every renaming of file names within each directory ('' is the root): a dict per
    directory from each file name to its new name."""
    perms = list(itertools.permutations(FILE_NAMES))
    for choice in itertools.product(perms, repeat=1 + len(DIRS)):
        yield {d: dict(zip(FILE_NAMES, c)) for d, c in zip([''] + DIRS, choice)}


def renamed(path, r):
    parent, name = path.rsplit('/', 1)
    return parent + '/' + r[parent].get(name, name) if parent in r else path


def canonical(state):
    if not SYMMETRY:
        return state
    forms = (sorted((renamed(p, r), e) for p, e in state) for r in renamings())
    return frozenset(min(forms, key=repr))


def count(depth):
    seen = {canonical(frozenset())}
    layer = [frozenset()]
    for _ in range(depth):
        nxt = []
        for state in layer:
            for s in successors(dict(state)):
                if s is not None and canonical(s) not in seen:
                    seen.add(canonical(s))
                    nxt.append(s)
        layer = nxt
    return len(seen)


if __name__ == '__main__':
    print(count(int(sys.argv[1])))
