#!/usr/bin/env python3
# Fails when object files call each other in a circle (a dependency cycle), read from nm's symbols.
"""usage: check-cycles.py DIR...

Each DIR is searched for *.o files; a file depends on another when it uses a symbol the other
defines. Every strongly connected component of more than one file is a cycle and is printed
as one line; the exit status is 1 if there is any, 0 otherwise. Files in different DIRs are
checked together, so a cycle across folders is found too.
"""
import os
import subprocess
import sys


def object_files(dirs):
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith(".o"):
                    yield os.path.join(root, n)


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCGSV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def graph(objs):
    defs, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        uses[o] = u
        for s in d:
            defs[s] = o
    return {o: sorted({defs[s] for s in uses[o] if s in defs and defs[s] != o}) for o in objs}


def components(g):
    """Tarjan's strongly connected components, iterative so deep graphs cannot overflow."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in g:
        if root in index:
            continue
        work = [(root, iter(g[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(g[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    objs = list(object_files(argv[1:]))
    if not objs:
        print("check-cycles: no object files under " + " ".join(argv[1:]), file=sys.stderr)
        return 2
    cycles = [sorted(c) for c in components(graph(objs)) if len(c) > 1]
    for c in cycles:
        print("check-cycles: these files call each other in a circle: " + " ".join(c),
              file=sys.stderr)
    print("check-cycles: %d object files, %d cycles" % (len(objs), len(cycles)))
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
