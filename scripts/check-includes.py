#!/usr/bin/env python3
# Fails when a product C file includes a header its part may not use (the rules file, from fs-state/README.md's table).
"""usage: check-includes.py RULES [ROOT]

Reads RULES (scripts/include-rules.txt) and checks every `#include "..."` line of the C files
under the rules' `check` folders. Lines of RULES, '#' starting a comment:

  check DIR...                  the folders whose *.c and *.h files are checked
  search DIR...                 where an include is looked for after the includer's own folder
                                (the compiler's -I order)
  generated NAME PART           an include NAME the build makes (not in the tree) is a header of PART
  NAME = PATTERN...             a name for a list of patterns, written $NAME in later lines
  PART... : ALLOWED...          files of PART may include headers of PART and of ALLOWED

A PART (or ALLOWED) names files by path prefix: `fs-state/backend` is the folder and all below
it, `fs-state/engine/step` is step.c and step.h, `reffs/reffs_ioctl.h` one file, `fs-state/front/`
the folder only (not a file of the same name beside it). `*` matches within
one path component, `{a,b}` either name. A file matched by several rules may use what any of
them allows; a file matched by none is an error. Exit status 1 on any finding, else 0.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
README = "fs-state/README.md"


def expand_braces(pattern):
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(pattern[:m.start()] + alt + pattern[m.end():])
    return out


def pattern_regex(pattern):
    """A path prefix as a regex: the name itself, the name plus .c/.h, or anything below it
    (only the last when the prefix ends with '/')."""
    alts = []
    for p in expand_braces(pattern):
        body = "".join("[^/]*" if ch == "*" else re.escape(ch) for ch in p)
        alts.append(body + (".*" if p.endswith("/") else r"(\.[ch]|/.*)?"))
    return re.compile("^(?:" + "|".join(alts) + ")$")


class Rules:
    def __init__(self):
        self.check, self.search, self.generated, self.rules = [], [], {}, []
        self.names = {}

    def expand_names(self, words, where):
        out = []
        for w in words:
            if w.startswith("$"):
                if w[1:] not in self.names:
                    raise ValueError("%s: %s is not defined above" % (where, w))
                out += self.names[w[1:]]
            else:
                out.append(w)
        return out

    def add_line(self, words, where):
        words = self.expand_names(words, where)
        if len(words) >= 2 and words[1] == "=":
            self.names[words[0]] = words[2:]
        elif words[0] == "check":
            self.check += words[1:]
        elif words[0] == "search":
            self.search += words[1:]
        elif words[0] == "generated" and len(words) == 3:
            self.generated[words[1]] = words[2]
        elif ":" in words:
            i = words.index(":")
            parts, allowed = words[:i], words[i + 1:]
            if not parts:
                raise ValueError("%s: a rule without a part" % where)
            self.rules.append((parts, [pattern_regex(p) for p in parts + allowed]))
        else:
            raise ValueError("%s: not a rule: %s" % (where, " ".join(words)))


def read_rules(path):
    rules = Rules()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                rules.add_line(words, "%s:%d" % (path, n))
    return rules


def resolve(rules, root, includer, name):
    """The tree path of an include, as the compiler finds it; None when not in the tree."""
    for d in [os.path.dirname(includer)] + rules.search:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, p)):
            return p
    return rules.generated.get(name)


def parts_of(rules, path):
    """The rules whose part holds path: (the part's name, what it may include)."""
    return [(parts[0], regexes) for parts, regexes in rules.rules
            if any(r.match(path) for r in regexes[:len(parts)])]


def source_files(rules, root):
    for d in rules.check:
        for top, dirs, names in os.walk(os.path.join(root, d)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(top, n), root)


def check_file(rules, root, path):
    """The findings of one file, one line each."""
    mine = parts_of(rules, path)
    if not mine:
        return ["%s: is in no part of the include rules (see %s)" % (path, README)]
    found = []
    with open(os.path.join(root, path), errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(rules, root, path, m.group(1))
            if target is None:
                found.append("%s:%d: includes %s, which is not in the tree" % (path, n, m.group(1)))
            elif not any(r.match(target) for _, regexes in mine for r in regexes):
                found.append("%s:%d: includes %s, which %s may not use (see %s)"
                             % (path, n, m.group(1), mine[0][0], README))
    return found


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    root = argv[2] if len(argv) == 3 else "."
    try:
        rules = read_rules(argv[1])
    except (OSError, ValueError) as e:
        print("check-includes: %s" % e, file=sys.stderr)
        return 2
    findings, files = [], list(source_files(rules, root))
    for path in files:
        findings += check_file(rules, root, path)
    for line in findings:
        print(line)
    print("check-includes: %d files, %d findings" % (len(files), len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
