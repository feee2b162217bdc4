#!/usr/bin/env python3
# The states of tests/fixtures/bounded-small.ini within a depth, counted without Metis: the six POSIX calls simulated on a dict tree, as root.
"""Usage: bounded_enum.py DEPTH: prints how many distinct trees lie within DEPTH operations of
the empty root. Shares no code with the engine: a file's bytes are labels, the same label for
the same write at the same place (a write's data depends on its arguments alone), 0 for what
no write put down (a hole reads as zeros and the abstract state does not tell them apart)."""
import sys

FILES = ['/f0', '/d0/f0']
DIRS = ['/d0']
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
        data[off + j] = (p, off, size, j)
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


def count(depth):
    seen = {frozenset()}
    layer = [frozenset()]
    for _ in range(depth):
        nxt = []
        for state in layer:
            for s in successors(dict(state)):
                if s is not None and s not in seen:
                    seen.add(s)
                    nxt.append(s)
        layer = nxt
    return len(seen)


if __name__ == '__main__':
    print(count(int(sys.argv[1])))
