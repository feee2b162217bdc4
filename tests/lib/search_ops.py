#!/usr/bin/env python3
# Operations per search of a run against the run's total: each log's end record counts its own search's, summary.json the run's (tests that go on past a failed search).
"""usage: search_ops.py RUN_DIR MIN_AFTER

Exit 0 when the searches' operations add up to summary.json's ops and the searches after the
first did more than MIN_AFTER of them; prints the per-search counts either way."""
import json
import os
import re
import sys


def end_ops(path):
    text = open(path).read()
    return int(re.findall(r"^end status=\d+ reason=.* ops=(\d+)$", text, re.M)[-1])


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    run, min_after = argv[1], int(argv[2])
    s = json.load(open(os.path.join(run, "summary.json")))
    logs = ["search-%d/log.txt" % k for k in range(1, s["searches"])] + ["log.txt"]
    own = [end_ops(os.path.join(run, p)) for p in logs]
    print("operations per search:", own, "run:", s["ops"])
    if sum(own) != s["ops"]:
        print("the searches' operations do not add up to the run's", file=sys.stderr)
        return 1
    if s["ops"] - own[0] <= min_after:
        print("the searches after the first did %d operations, not more than %d"
              % (s["ops"] - own[0], min_after), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
