#!/usr/bin/env python3
# Fails when files, rooms (a source with its header) or folders use each other in a circle, read from nm's symbols and the #include lines.
"""usage: check-cycles.py [--why] [--build BUILD] [--folders TOP]... [-I DIR]... DIR...

Three graphs over the C sources under each DIR (and their objects under BUILD/DIR, default
BUILD=build), each checked for circles (strongly connected components of more than one node):

  files    an object file uses a symbol another defines (nm)
  rooms    a room is a source with its header (x.c and x.h are room x; a header alone is a room
           too); room A uses room B when a file of A includes a header of B, or A's object uses
           a symbol B's defines. Two rooms that need each other are a circle even when their
           objects do not call each other (a header that includes its user's header).
  folders  the folders that hold rooms, by the same uses: a folder's rooms may use each other,
           but two folders may not need each other. With --folders TOP (given once per TOP),
           only the folders under each TOP (the ones laid out as rooms; RefFS keeps its public
           header above its library on purpose).

Objects whose source is gone (left in BUILD by a file moved or removed) are not counted.

An include is looked for beside its includer, then in each -I DIR (default: the Makefile's
-Ireffs -Ifs-state -Ireplayer -Ifaultdev). Each circle is printed as one line (with --why, each use inside it below it: the file and the
include or symbol); the exit status is 1 if there is any, 0 otherwise.
Everything is checked together, so a circle across the DIRs is found too.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SEARCH = ["reffs", "fs-state", "replayer", "faultdev"]   # the Makefile's -I order (default)


def files_under(dirs, suffixes):
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            subdirs.sort()
            for n in sorted(names):
                if n.endswith(suffixes):
                    yield os.path.normpath(os.path.join(root, n))


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


def object_uses(objs):
    """(user, definer, symbol) for every symbol one object uses that another defines."""
    defs, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        uses[o] = u
        for s in d:
            defs[s] = o
    return [(o, defs[s], s) for o in objs for s in sorted(uses[o])
            if s in defs and defs[s] != o]


def object_graph(objs, calls):
    g = {o: set() for o in objs}
    for a, b, _ in calls:
        g[a].add(b)
    return {o: sorted(v) for o, v in g.items()}


def resolve(includer, name, search):
    """The tree path of an include as the compiler finds it; None when not a tree file."""
    for d in [os.path.dirname(includer)] + search:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def include_edges(sources, search):
    for src in sources:
        with open(src, errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                target = m and resolve(src, m.group(1), search)
                if target:
                    yield src, target, "includes " + m.group(1)


def room(path):
    return os.path.splitext(path)[0]


def source_of(obj, build):
    return room(os.path.relpath(obj, build)) + ".c"


def merged(nodes, edges, key):
    """The graph of (a, b) edges with each end mapped by key, self-edges dropped."""
    g = {key(n): set() for n in nodes}
    for a, b, _ in edges:
        ka, kb = key(a), key(b)
        g.setdefault(ka, set())
        g.setdefault(kb, set())
        if ka != kb:
            g[ka].add(kb)
    return {k: sorted(v) for k, v in g.items()}


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


def circles(g):
    return [sorted(c) for c in components(g) if len(c) > 1]


def parse_args(argv):
    build, dirs, verbose, tops, search = "build", [], False, [], []
    it = iter(argv)
    for a in it:
        if a == "-I":
            d = next(it, None)
            if d is None:
                raise ValueError("-I needs a folder")
            search.append(os.path.normpath(d))
        elif a == "--why":
            verbose = True
        elif a == "--folders":
            top = next(it, None)
            if top is None:
                raise ValueError("--folders needs a folder")
            tops.append(os.path.normpath(top))
        elif a == "--build":
            build = next(it, None)
            if build is None:
                raise ValueError("--build needs a folder")
        elif a.startswith("-"):
            raise ValueError("unknown option %s" % a)
        else:
            dirs.append(os.path.normpath(a))
    if not dirs:
        raise ValueError("no folder to check")
    return build, dirs, verbose, tops, search or SEARCH


def why(circle, edges, key):
    """Each use inside a circle, one line: the first reason found per pair of nodes."""
    inside, seen = set(circle), set()
    for a, b, reason in edges:
        pair = (key(a), key(b))
        if pair[0] != pair[1] and set(pair) <= inside and pair not in seen:
            seen.add(pair)
            yield "    %s -> %s: %s %s" % (pair[0], pair[1], a, reason)


def report(what, found, edges, key, verbose):
    for c in found:
        print("check-cycles: these %s use each other in a circle: %s" % (what, " ".join(c)))
        if verbose:
            for line in why(c, edges, key):
                print(line)
    return len(found)


def main(argv):
    try:
        build, dirs, verbose, tops, search = parse_args(argv[1:])
    except ValueError as e:
        print("check-cycles: %s" % e, file=sys.stderr)
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    objs = [o for o in files_under([os.path.join(build, d) for d in dirs], (".o",))
            if os.path.isfile(source_of(o, build))]
    sources = list(files_under(dirs, (".c", ".h")))
    if not objs or not sources:
        print("check-cycles: no object files under %s or no sources under %s"
              % (build, " ".join(dirs)), file=sys.stderr)
        return 2
    calls = object_uses(objs)
    uses = list(include_edges(sources, search))
    uses += [(source_of(a, build), source_of(b, build), "uses " + sym) for a, b, sym in calls]
    rooms = merged(sources, uses, room)
    under = lambda p: not tops or any(p == t or p.startswith(t + "/") for t in tops)
    folders = merged([p for p in sources if under(p)],
                     [u for u in uses if under(u[0]) and under(u[1])], os.path.dirname)
    by_call = [(a, b, "uses " + sym) for a, b, sym in calls]
    n = report("object files", circles(object_graph(objs, calls)), by_call, str, verbose)
    n += report("rooms (a source with its header)", circles(rooms), uses, room, verbose)
    n += report("folders", circles(folders), uses, os.path.dirname, verbose)
    print("check-cycles: %d object files, %d rooms, %d folders, %d circles"
          % (len(objs), len(rooms), len(folders), n))
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
